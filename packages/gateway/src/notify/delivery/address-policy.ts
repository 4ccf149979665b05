/**
 * Which IP addresses a production gateway may send a notification to.
 *
 * Pure functions over address strings, no I/O. The rule is an allow-list in spirit: IPv4 is
 * allowed unless it falls in one of the special-purpose blocks below (IANA IPv4 Special-Purpose
 * Address Registry), and IPv6 is allowed only inside global unicast `2000::/3`, minus the
 * special blocks inside it. IPv6 forms that carry an IPv4 address (IPv4-mapped `::ffff:a.b.c.d`,
 * SIIT `::ffff:0:a.b.c.d`, NAT64 `64:ff9b::a.b.c.d`) are judged by the IPv4 address they carry,
 * so `::ffff:127.0.0.1` is loopback. Anything that does not parse as a canonical address is
 * refused: the policy fails closed.
 *
 * Parsing and prefix matching are ipaddr.js's; node:net's strict `isIPv4`/`isIPv6` gate what
 * reaches it, because ipaddr.js also reads non-canonical forms (`127.1`, octal, hex) we refuse.
 */
import { isIPv4, isIPv6 } from 'node:net';
import ipaddr from 'ipaddr.js';

/** Why an address is refused. */
export type ForbiddenRange =
  | 'invalid'
  | 'unspecified'
  | 'this-network'
  | 'loopback'
  | 'private'
  | 'shared-cgnat'
  | 'link-local'
  | 'ietf-protocol'
  | 'documentation'
  | 'benchmarking'
  | 'multicast'
  | 'reserved'
  | 'broadcast'
  | 'unique-local'
  | 'site-local'
  | 'ipv4-compatible'
  | 'nat64-local'
  | '6to4'
  | 'teredo'
  | 'discard';

export type AddressVerdict =
  | { readonly allowed: true; readonly address: string }
  | {
      readonly allowed: false;
      readonly address: string;
      readonly range: ForbiddenRange;
      /** For IPv6 forms carrying an IPv4 address: that address, which decided the verdict. */
      readonly embeddedIpv4?: string;
    };

/** A CIDR block and what lies in it: a forbidden range, or 'embedded' (judge the IPv4 in the last 32 bits). */
type Rule<Verdict> = readonly [cidr: string, verdict: Verdict];

/** IPv4 blocks that are never a merchant's public web server. Checked in order; the first match decides. */
export const FORBIDDEN_IPV4_BLOCKS: readonly Rule<ForbiddenRange>[] = [
  ['255.255.255.255/32', 'broadcast'],
  ['0.0.0.0/8', 'this-network'],
  ['10.0.0.0/8', 'private'],
  ['100.64.0.0/10', 'shared-cgnat'],
  ['127.0.0.0/8', 'loopback'],
  ['169.254.0.0/16', 'link-local'], // includes the cloud metadata address 169.254.169.254
  ['172.16.0.0/12', 'private'],
  ['192.0.0.0/24', 'ietf-protocol'],
  ['192.0.2.0/24', 'documentation'],
  ['192.88.99.0/24', 'reserved'], // deprecated 6to4 relay anycast
  ['192.168.0.0/16', 'private'],
  ['198.18.0.0/15', 'benchmarking'],
  ['198.51.100.0/24', 'documentation'],
  ['203.0.113.0/24', 'documentation'],
  ['224.0.0.0/4', 'multicast'],
  ['240.0.0.0/4', 'reserved'],
];

/** IPv6 blocks, checked in order; the first match decides. Everything unmatched outside 2000::/3 is reserved. */
export const IPV6_RULES: readonly Rule<ForbiddenRange | 'embedded'>[] = [
  ['::/128', 'unspecified'],
  ['::1/128', 'loopback'],
  ['::ffff:0:0/96', 'embedded'], // IPv4-mapped
  ['::ffff:0:0:0/96', 'embedded'], // IPv4-translated (SIIT)
  ['64:ff9b::/96', 'embedded'], // NAT64 well-known prefix
  ['64:ff9b:1::/48', 'nat64-local'],
  ['::/96', 'ipv4-compatible'], // deprecated ::a.b.c.d
  ['100::/64', 'discard'],
  ['2001::/32', 'teredo'],
  ['2001:db8::/32', 'documentation'],
  ['2001::/23', 'ietf-protocol'], // includes benchmarking 2001:2::/48
  ['2002::/16', '6to4'],
  ['3fff::/20', 'documentation'],
  ['fc00::/7', 'unique-local'],
  ['fe80::/10', 'link-local'],
  ['fec0::/10', 'site-local'],
  ['ff00::/8', 'multicast'],
];

const GLOBAL_UNICAST = ipaddr.IPv6.parseCIDR('2000::/3');

function compile<Verdict>(rules: readonly Rule<Verdict>[]) {
  return rules.map(([cidr, verdict]) => ({ range: ipaddr.parseCIDR(cidr), verdict }));
}
const IPV4_TABLE = compile(FORBIDDEN_IPV4_BLOCKS);
const IPV6_TABLE = compile(IPV6_RULES);

function parseIpv4Address(text: string): ipaddr.IPv4 | null {
  return isIPv4(text) ? ipaddr.IPv4.parse(text) : null;
}

/**
 * An IPv6 address (optionally bracketed, optionally with a zone id), zone dropped. A dotted IPv4
 * tail is rewritten as two hex groups first: ipaddr.js reads `::a.b.c.d` as `::ffff:a.b.c.d`.
 */
function parseIpv6Address(text: string): ipaddr.IPv6 | null {
  let s = text.startsWith('[') && text.endsWith(']') ? text.slice(1, -1) : text;
  const zone = s.indexOf('%');
  if (zone >= 0) s = s.slice(0, zone);
  if (!isIPv6(s)) return null;
  const lastColon = s.lastIndexOf(':');
  const tail = parseIpv4Address(s.slice(lastColon + 1));
  if (tail !== null) {
    const [a = 0, b = 0, c = 0, d = 0] = tail.toByteArray();
    s = `${s.slice(0, lastColon + 1)}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  return ipaddr.IPv6.parse(s);
}

/** Canonical dotted-decimal IPv4 to an unsigned 32-bit number; null for anything else. */
export function parseIpv4(text: string): number | null {
  const address = parseIpv4Address(text);
  return address === null ? null : address.toByteArray().reduce((value, byte) => value * 256 + byte, 0);
}

/** An IPv6 address (optionally bracketed, optionally with a zone id) to its eight 16-bit groups. */
export function parseIpv6(text: string): number[] | null {
  return parseIpv6Address(text)?.parts.slice() ?? null;
}

function classifyIpv4(address: string, ip: ipaddr.IPv4): AddressVerdict {
  const rule = IPV4_TABLE.find(({ range }) => ip.match(range));
  return rule ? { allowed: false, address, range: rule.verdict } : { allowed: true, address };
}

/** Judge an IPv4 address carried in the last 32 bits of an IPv6 one by the IPv4 rules. */
function classifyEmbedded(address: string, ip: ipaddr.IPv6): AddressVerdict {
  const carried = new ipaddr.IPv4(ip.toByteArray().slice(12));
  const inner = classifyIpv4(carried.toString(), carried);
  return inner.allowed
    ? { allowed: true, address }
    : { allowed: false, address, range: inner.range, embeddedIpv4: inner.address };
}

function classifyIpv6(address: string, ip: ipaddr.IPv6): AddressVerdict {
  const rule = IPV6_TABLE.find(({ range }) => ip.match(range));
  if (rule?.verdict === 'embedded') return classifyEmbedded(address, ip);
  if (rule) return { allowed: false, address, range: rule.verdict };
  if (!ip.match(GLOBAL_UNICAST)) return { allowed: false, address, range: 'reserved' };
  return { allowed: true, address };
}

/**
 * Whether a production gateway may connect to `address` (an IP literal as DNS returns it, or as
 * a URL host, brackets allowed). Anything that is not a canonical IP literal is refused.
 */
export function classifyAddress(address: string): AddressVerdict {
  const v4 = parseIpv4Address(address);
  if (v4 !== null) return classifyIpv4(address, v4);
  const v6 = parseIpv6Address(address);
  if (v6 !== null) return classifyIpv6(address, v6);
  return { allowed: false, address, range: 'invalid' };
}

/** A short phrase for a refused address, for the attempt log and order-creation errors. */
export function describeRefusal(verdict: AddressVerdict): string {
  if (verdict.allowed) return `an allowed address (${verdict.address})`;
  const carried = verdict.embeddedIpv4 ? `, carrying ${verdict.embeddedIpv4}` : '';
  return `an address in the ${verdict.range} range (${verdict.address}${carried})`;
}
