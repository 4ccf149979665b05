/**
 * The limit on order creation, per client: the merchant's `key` (a session), else the client's
 * address as the framework knows it (`RequestFacts.clientAddress`; Express: `req.ip`, so `trust
 * proxy` is the app's), an IPv6 address counted by its /56 (one customer's network). Sized for
 * customers sharing a carrier's address (see `DEFAULT_RATE_LIMIT`). Headers as IETF
 * draft-ietf-httpapi-ratelimit-headers-08 (`RateLimit`, `RateLimit-Policy`), `Retry-After` when refused.
 *
 * A fixed window per client in two maps, written here rather than taken from a library: the core
 * must run wherever `fetch` does (express-rate-limit is Express middleware), the store is this
 * process's memory like before, and `rate-limiter-flexible`'s memory limiter keeps a timer per
 * key where this rotates two maps once a window (clients idle for a whole window are dropped
 * together, no timers, nothing to close).
 */
import { createHash } from 'node:crypto';
import { isIPv6 } from 'node:net';
import { PayButtonError } from '../errors.ts';
import type { ResolvedOptions } from '../options.ts';
import type { EdgeHeaders } from './answer.ts';

interface Client {
  hits: number;
  resetAt: number;
}

/** The bucket of an address: itself, an IPv4-mapped IPv6 address as IPv4, other IPv6 by its /56 network. */
export function addressKey(address: string, prefixBits = 56): string {
  if (!isIPv6(address)) return address;
  let hostname: string;
  try {
    hostname = new URL(`http://[${address.replace(/%.*$/, '')}]/`).hostname.slice(1, -1);
  } catch {
    return address;
  }
  const [head = '', tail = ''] = hostname.split('::');
  const left = head ? head.split(':') : [];
  const right = hostname.includes('::') && tail ? tail.split(':') : [];
  const groups = hostname.includes('::') ? [...left, ...Array<string>(8 - left.length - right.length).fill('0'), ...right] : left;
  const words = groups.map((group) => parseInt(group, 16));
  if (words.slice(0, 5).every((word) => word === 0) && words[5] === 0xffff) {
    return `${words[6]! >> 8}.${words[6]! & 0xff}.${words[7]! >> 8}.${words[7]! & 0xff}`;
  }
  const kept = words.map((word, index) => {
    const bits = Math.max(0, Math.min(16, prefixBits - index * 16));
    return bits === 16 ? word : bits === 0 ? 0 : word & (0xffff << (16 - bits)) & 0xffff;
  });
  return `${new URL(`http://[${kept.map((word) => word.toString(16)).join(':')}]/`).hostname.slice(1, -1)}/${prefixBits}`;
}

/** The header's name for a policy: `300-in-1min`, as express-rate-limit named it. */
function policyName(limit: number, windowMs: number): string {
  const seconds = windowMs / 1000;
  const minutes = seconds / 60;
  const hours = minutes / 60;
  const days = hours / 24;
  const duration = seconds < 60 ? `${seconds}sec` : minutes < 60 ? `${minutes}min` : hours < 24 ? `${hours}hr${hours > 1 ? 's' : ''}` : `${days}day${days > 1 ? 's' : ''}`;
  return `${limit}-in-${duration}`;
}

/** The draft's partition key: a short hash of the client's key, so the header does not echo it. */
function partitionKey(key: string): string {
  return Buffer.from(createHash('sha256').update(key).digest('hex').slice(0, 12)).toString('base64');
}

/**
 * Whether a request counts in the one bucket of clients nobody can tell apart (pure): the limit
 * is on, no `rateLimit.key` of the merchant's names it, and no client address was passed (a
 * Next.js route handler without `clientAddress`, a `pay.fetch` without it). Every customer then
 * shares one allowance, which the fetch core says once (`client_address_unknown`).
 */
export function inSharedBucket(setting: ResolvedOptions['rateLimit'], native: unknown, clientAddress: string | undefined): boolean {
  if (setting === false || (clientAddress !== undefined && clientAddress !== '')) return false;
  return !setting.key?.(native as never);
}

/**
 * Count one request of this client: sets the rate-limit headers on `headers`, and throws
 * `rate_limited` (with `Retry-After`) past the limit.
 */
export type RateLimiter = (native: unknown, clientAddress: string | undefined, headers: EdgeHeaders) => void;

export function createRateLimiter(setting: ResolvedOptions['rateLimit'], now: () => number = Date.now): RateLimiter {
  if (setting === false) return () => {};
  const { windowMs, limit } = setting;
  const name = policyName(limit, windowMs);
  const windowSeconds = Math.ceil(windowMs / 1000);
  let current = new Map<string, Client>();
  let previous = new Map<string, Client>();
  let rotateAt = now() + windowMs;
  return (native, clientAddress, headers) => {
    const at = now();
    if (at >= rotateAt) {
      // Whoever sat in `previous` made no request for a whole window: their counts are over.
      previous = at >= rotateAt + windowMs ? new Map() : current;
      current = new Map();
      rotateAt = at + windowMs;
    }
    // A key of the merchant's is its own namespace: it can never land in an address's bucket.
    const own = setting.key?.(native as never);
    const key = own ? `key:${own}` : `ip:${addressKey(clientAddress ?? '')}`;
    let client = current.get(key);
    if (!client) {
      client = previous.get(key) ?? { hits: 0, resetAt: at + windowMs };
      previous.delete(key);
      current.set(key, client);
    }
    if (client.resetAt <= at) {
      client.hits = 0;
      client.resetAt = at + windowMs;
    }
    client.hits += 1;
    const resetSeconds = Math.max(0, Math.ceil((client.resetAt - at) / 1000));
    const pk = partitionKey(key);
    headers.set('RateLimit', `"${name}"; r=${Math.max(0, limit - client.hits)}; t=${resetSeconds}`);
    headers.set('RateLimit-Policy', `"${name}"; q=${limit}; w=${windowSeconds}; pk=:${pk}:`);
    if (client.hits > limit) {
      headers.set('Retry-After', String(resetSeconds));
      throw new PayButtonError('rate_limited', 'Too many payment requests from this client; wait a minute and try again.');
    }
  };
}
