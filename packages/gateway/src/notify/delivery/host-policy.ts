/**
 * Rules on the host part of a callback URL, before any DNS: literal IP hosts and names that only
 * ever mean "this machine" or "this network". Pure functions.
 *
 * Hosts here are WHATWG URL `hostname`s: lower-cased, punycoded, IPv4 literals in any notation
 * (`127.1`, `0x7f000001`, `0177.0.0.1`, `2130706433`) already normalised to dotted decimal, and
 * IPv6 literals in brackets.
 */
import { isIP } from 'node:net';

/** The IP address a URL host names literally, without brackets; null when the host is a name. */
export function literalAddressOf(hostname: string): string | null {
  const bare = hostname.startsWith('[') && hostname.endsWith(']') ? hostname.slice(1, -1) : hostname;
  return isIP(bare) === 0 ? null : bare;
}

/**
 * Special-use names (RFC 6761 `localhost`, RFC 6762 `local` mDNS, RFC 8375 `home.arpa`, ICANN's
 * private-use `internal`, which cloud metadata services use: `metadata.google.internal`).
 */
export const FORBIDDEN_SUFFIXES: readonly string[] = ['localhost', 'local', 'internal', 'home.arpa'];

/**
 * Why a host name may not receive production notifications, or null when it may (subject to
 * the addresses it resolves to, checked at connect time). Single-label names (`http://metadata/`,
 * `http://intranet/`) are refused too: they resolve through the machine's search domains to
 * internal hosts, never to a merchant's public site.
 *
 * The reasons reach a signed `platRespMessage`, so they contain no double quote (the family's
 * Java verifier strips them before comparing, issue 14) and echo nothing of the URL.
 */
export function forbiddenHostName(hostname: string): string | null {
  if (literalAddressOf(hostname) !== null) return null;
  const name = hostname.toLowerCase().replace(/\.$/, '');
  if (name === '') return 'must name a host';
  for (const suffix of FORBIDDEN_SUFFIXES) {
    if (name === suffix) return `must not be the special-use host name ${suffix}`;
    if (name.endsWith(`.${suffix}`)) return `must not be a host name in the special-use domain ${suffix}`;
  }
  if (!name.includes('.')) return 'must be a fully qualified host name';
  return null;
}
