/**
 * Identifiers and secrets the plug-in mints: order numbers (fresh, short enough for the signature
 * budget and bank statements), status tokens (unguessable, compared in constant time) and request
 * fingerprints (to refuse one idempotency key reused with another body).
 */
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import { customAlphabet } from 'nanoid';

/** Upper-case letters and digits without look-alikes (0/O, 1/I): readable on a phone, in a bank app. */
const ORDER_ALPHABET = '23456789ABCDEFGHJKLMNPQRSTUVWXYZ';
/** 16 characters of 32 symbols: 80 bits, so collisions are never a practical concern. */
export const ORDER_SUFFIX_CHARS = 16;
const orderSuffix = customAlphabet(ORDER_ALPHABET, ORDER_SUFFIX_CHARS);

export function newOrderNum(prefix: string): string {
  return `${prefix}${orderSuffix()}`;
}

/** 32 random bytes, base64url: 43 characters, 256 bits. */
export function newStatusToken(): string {
  return randomBytes(32).toString('base64url');
}

export const STATUS_TOKEN_PATTERN = /^[A-Za-z0-9_-]{43}$/;

/** The request header that carries the status token (never a query parameter: URLs get logged). */
export const STATUS_TOKEN_HEADER = 'Tombolbayar-Status-Token';
/** The header's name in an earlier version (an element script a page still has cached): read for one version. */
export const EARLIER_STATUS_TOKEN_HEADER = 'PayButton-Status-Token';

/**
 * Constant-time equality of two tokens. Both sides are hashed first, so the comparison takes the
 * same time whatever the lengths, and `timingSafeEqual` always gets equal-length buffers.
 */
export function tokensEqual(given: string, expected: string): boolean {
  const a = createHash('sha256').update(given, 'utf8').digest();
  const b = createHash('sha256').update(expected, 'utf8').digest();
  return timingSafeEqual(a, b);
}

/** Canonical JSON (sorted keys) of a value, for fingerprints. */
function canonicalJson(value: unknown): string {
  if (value === null || typeof value !== 'object') return JSON.stringify(value) ?? 'null';
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  const entries = Object.keys(value as Record<string, unknown>)
    .sort()
    .filter((key) => (value as Record<string, unknown>)[key] !== undefined)
    .map((key) => `${JSON.stringify(key)}:${canonicalJson((value as Record<string, unknown>)[key])}`);
  return `{${entries.join(',')}}`;
}

/** SHA-256 hex of what a create request asked for (its body without the idempotency key). */
export function requestFingerprint(kind: string, body: Record<string, unknown>): string {
  const { idempotencyKey: _ignored, ...rest } = body;
  return createHash('sha256').update(`${kind}\n${canonicalJson(rest)}`, 'utf8').digest('hex');
}
