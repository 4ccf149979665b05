/**
 * Resolve a callback host once, check every address, and hand the checked addresses to the
 * connection. Because the socket connects to exactly these addresses (see `pinnedLookup`), there
 * is no second resolution an attacker's DNS could answer differently (no DNS rebinding window),
 * and a name with one public and one private address is refused outright.
 */
import { lookup as systemLookup, type LookupAddress, type LookupOptions } from 'node:dns';
import { isIP, type LookupFunction } from 'node:net';
import { classifyAddress, describeRefusal } from './address-policy.ts';
import { forbiddenHostName, literalAddressOf } from './host-policy.ts';

export interface ResolveOptions {
  readonly allowPrivateNetworks: boolean;
  /** Same signature as `dns.lookup`; the system resolver when absent. */
  readonly lookup?: LookupFunction | undefined;
}

export type ResolveOutcome =
  | { readonly ok: true; readonly addresses: readonly LookupAddress[] }
  | { readonly ok: false; readonly errorClass: 'dns' | 'refused-address'; readonly detail: string };

function callLookup(lookup: LookupFunction, hostname: string): Promise<LookupAddress[]> {
  return new Promise((resolve, reject) => {
    try {
      lookup(hostname, { all: true }, (error, address, family) => {
        if (error) return reject(error);
        if (Array.isArray(address)) return resolve(address);
        // A lookup that ignored `all: true` answers with one address.
        return resolve(typeof address === 'string' ? [{ address, family: family ?? isIP(address) }] : []);
      });
    } catch (error) {
      reject(error);
    }
  });
}

/**
 * The addresses a notification to `hostname` may connect to, or why there are none.
 *
 * Every destination goes through `lookup`, a literal address too: the system resolver answers a
 * literal with itself at once, and an injected resolver (tests) thereby sees every address a
 * notification could go to, so it can refuse anything beyond the machine (issue 12).
 */
export async function resolveDeliveryAddresses(hostname: string, options: ResolveOptions): Promise<ResolveOutcome> {
  const literal = literalAddressOf(hostname);
  if (!options.allowPrivateNetworks) {
    // Refused before any lookup: what the URL alone tells.
    if (literal !== null) {
      const verdict = classifyAddress(literal);
      if (!verdict.allowed) return { ok: false, errorClass: 'refused-address', detail: `refused ${describeRefusal(verdict)}` };
    } else {
      const nameProblem = forbiddenHostName(hostname);
      if (nameProblem !== null) return { ok: false, errorClass: 'refused-address', detail: `host ${nameProblem}` };
    }
  }
  let answers: LookupAddress[];
  try {
    answers = await callLookup(options.lookup ?? (systemLookup as LookupFunction), literal ?? hostname);
  } catch (error) {
    const code = (error as { code?: unknown } | null)?.code;
    return { ok: false, errorClass: 'dns', detail: `lookup failed${typeof code === 'string' ? ` (${code})` : ''}` };
  }
  const seen = new Set<string>();
  const addresses: LookupAddress[] = [];
  for (const answer of answers) {
    const address = typeof answer?.address === 'string' ? answer.address : '';
    const family = isIP(address);
    if (family === 0) {
      if (!options.allowPrivateNetworks) {
        return { ok: false, errorClass: 'refused-address', detail: 'refused a lookup answer that is not an IP address' };
      }
      continue;
    }
    if (!options.allowPrivateNetworks) {
      const verdict = classifyAddress(address);
      if (!verdict.allowed) {
        return { ok: false, errorClass: 'refused-address', detail: `refused ${describeRefusal(verdict)}` };
      }
    }
    if (!seen.has(address)) {
      seen.add(address);
      addresses.push({ address, family });
    }
  }
  if (addresses.length === 0) return { ok: false, errorClass: 'dns', detail: 'lookup returned no address' };
  return { ok: true, addresses };
}

/**
 * A `lookup` for `http.request` that answers with the already-checked addresses and never asks
 * DNS again, so the socket can only connect to an address that passed the policy.
 */
export function pinnedLookup(addresses: readonly LookupAddress[]): LookupFunction {
  return (_hostname: string, options: LookupOptions, callback) => {
    const family = options.family === 'IPv4' ? 4 : options.family === 'IPv6' ? 6 : options.family;
    const wanted = family === 4 || family === 6 ? addresses.filter((a) => a.family === family) : [...addresses];
    const first = wanted[0];
    if (first === undefined) {
      const error: NodeJS.ErrnoException = new Error('no checked address of the requested family');
      error.code = 'ENOTFOUND';
      process.nextTick(callback, error, '', 0);
      return;
    }
    if (options.all) process.nextTick(callback, null, wanted);
    else process.nextTick(callback, null, first.address, first.family);
  };
}
