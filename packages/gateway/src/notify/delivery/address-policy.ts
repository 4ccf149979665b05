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
 */
import { isIPv4, isIPv6 } from 'node:net';

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

interface Ipv4Block {
  readonly base: number;
  readonly prefix: number;
  readonly range: ForbiddenRange;
}

function block(cidr: string, range: ForbiddenRange): Ipv4Block {
  const [base, prefix] = cidr.split('/');
  const parsed = parseIpv4(base ?? '');
  if (parsed === null || prefix === undefined) throw new Error(`bad CIDR in policy table: ${cidr}`);
  return { base: parsed, prefix: Number(prefix), range };
}

/** IPv4 blocks that are never a merchant's public web server. Most specific first. */
export const FORBIDDEN_IPV4_BLOCKS: readonly Ipv4Block[] = [
  block('255.255.255.255/32', 'broadcast'),
  block('0.0.0.0/8', 'this-network'),
  block('10.0.0.0/8', 'private'),
  block('100.64.0.0/10', 'shared-cgnat'),
  block('127.0.0.0/8', 'loopback'),
  block('169.254.0.0/16', 'link-local'), // includes the cloud metadata address 169.254.169.254
  block('172.16.0.0/12', 'private'),
  block('192.0.0.0/24', 'ietf-protocol'),
  block('192.0.2.0/24', 'documentation'),
  block('192.88.99.0/24', 'reserved'), // deprecated 6to4 relay anycast
  block('192.168.0.0/16', 'private'),
  block('198.18.0.0/15', 'benchmarking'),
  block('198.51.100.0/24', 'documentation'),
  block('203.0.113.0/24', 'documentation'),
  block('224.0.0.0/4', 'multicast'),
  block('240.0.0.0/4', 'reserved'),
];

/** Canonical dotted-decimal IPv4 to an unsigned 32-bit number; null for anything else. */
export function parseIpv4(text: string): number | null {
  if (!isIPv4(text)) return null;
  let value = 0;
  for (const part of text.split('.')) value = value * 256 + Number(part);
  return value >>> 0;
}

function formatIpv4(value: number): string {
  return [value >>> 24, (value >>> 16) & 0xff, (value >>> 8) & 0xff, value & 0xff].join('.');
}

/** An IPv6 address (optionally bracketed, optionally with a zone id) to its eight 16-bit groups. */
export function parseIpv6(text: string): number[] | null {
  let s = text.startsWith('[') && text.endsWith(']') ? text.slice(1, -1) : text;
  const zone = s.indexOf('%');
  if (zone >= 0) s = s.slice(0, zone);
  if (!isIPv6(s)) return null;
  const lastColon = s.lastIndexOf(':');
  const last = s.slice(lastColon + 1);
  if (last.includes('.')) {
    const v4 = parseIpv4(last);
    if (v4 === null) return null;
    s = `${s.slice(0, lastColon + 1)}${(v4 >>> 16).toString(16)}:${(v4 & 0xffff).toString(16)}`;
  }
  const gap = s.indexOf('::');
  const toGroups = (part: string): number[] => (part === '' ? [] : part.split(':').map((g) => parseInt(g, 16)));
  let groups: number[];
  if (gap >= 0) {
    const head = toGroups(s.slice(0, gap));
    const tail = toGroups(s.slice(gap + 2));
    groups = [...head, ...new Array<number>(8 - head.length - tail.length).fill(0), ...tail];
  } else {
    groups = toGroups(s);
  }
  if (groups.length !== 8 || groups.some((g) => !Number.isInteger(g) || g < 0 || g > 0xffff)) return null;
  return groups;
}

function inIpv4Block(value: number, { base, prefix }: Ipv4Block): boolean {
  if (prefix === 0) return true;
  const mask = prefix === 32 ? 0xffffffff : (~0 << (32 - prefix)) >>> 0;
  return ((value & mask) >>> 0) === ((base & mask) >>> 0);
}

function classifyIpv4(address: string, value: number): AddressVerdict {
  for (const entry of FORBIDDEN_IPV4_BLOCKS) {
    if (inIpv4Block(value, entry)) return { allowed: false, address, range: entry.range };
  }
  return { allowed: true, address };
}

/** True when the first `bits` bits of the address equal those of `prefix` (given as groups). */
function hasPrefix(groups: readonly number[], prefix: readonly number[], bits: number): boolean {
  for (let i = 0; i * 16 < bits; i += 1) {
    const take = Math.min(16, bits - i * 16);
    const mask = (0xffff << (16 - take)) & 0xffff;
    if (((groups[i] ?? 0) & mask) !== ((prefix[i] ?? 0) & mask)) return false;
  }
  return true;
}

/** Judge an IPv4 address carried inside an IPv6 one by the IPv4 rules. */
function classifyEmbedded(address: string, groups: readonly number[]): AddressVerdict {
  const value = ((((groups[6] ?? 0) << 16) >>> 0) + (groups[7] ?? 0)) >>> 0;
  const embeddedIpv4 = formatIpv4(value);
  const inner = classifyIpv4(embeddedIpv4, value);
  return inner.allowed ? { allowed: true, address } : { allowed: false, address, range: inner.range, embeddedIpv4 };
}

interface Ipv6Rule {
  readonly prefix: readonly number[];
  readonly bits: number;
  /** A forbidden range, or 'embedded' to judge the IPv4 address in the last 32 bits. */
  readonly verdict: ForbiddenRange | 'embedded';
}

/** Checked in order; the first match decides. Everything unmatched outside 2000::/3 is reserved. */
const IPV6_RULES: readonly Ipv6Rule[] = [
  { prefix: [0, 0, 0, 0, 0, 0, 0, 0], bits: 128, verdict: 'unspecified' },
  { prefix: [0, 0, 0, 0, 0, 0, 0, 1], bits: 128, verdict: 'loopback' },
  { prefix: [0, 0, 0, 0, 0, 0xffff], bits: 96, verdict: 'embedded' }, // IPv4-mapped
  { prefix: [0, 0, 0, 0, 0xffff, 0], bits: 96, verdict: 'embedded' }, // IPv4-translated (SIIT)
  { prefix: [0x64, 0xff9b, 0, 0, 0, 0], bits: 96, verdict: 'embedded' }, // NAT64 well-known prefix
  { prefix: [0x64, 0xff9b, 1], bits: 48, verdict: 'nat64-local' },
  { prefix: [0, 0, 0, 0, 0, 0], bits: 96, verdict: 'ipv4-compatible' }, // deprecated ::a.b.c.d
  { prefix: [0x100, 0, 0, 0], bits: 64, verdict: 'discard' },
  { prefix: [0x2001, 0], bits: 32, verdict: 'teredo' },
  { prefix: [0x2001, 0x0db8], bits: 32, verdict: 'documentation' },
  { prefix: [0x2001, 0], bits: 23, verdict: 'ietf-protocol' }, // includes benchmarking 2001:2::/48
  { prefix: [0x2002], bits: 16, verdict: '6to4' },
  { prefix: [0x3fff], bits: 20, verdict: 'documentation' },
  { prefix: [0xfc00], bits: 7, verdict: 'unique-local' },
  { prefix: [0xfe80], bits: 10, verdict: 'link-local' },
  { prefix: [0xfec0], bits: 10, verdict: 'site-local' },
  { prefix: [0xff00], bits: 8, verdict: 'multicast' },
];

function classifyIpv6(address: string, groups: readonly number[]): AddressVerdict {
  for (const rule of IPV6_RULES) {
    if (!hasPrefix(groups, rule.prefix, rule.bits)) continue;
    if (rule.verdict === 'embedded') return classifyEmbedded(address, groups);
    return { allowed: false, address, range: rule.verdict };
  }
  if (!hasPrefix(groups, [0x2000], 3)) return { allowed: false, address, range: 'reserved' };
  return { allowed: true, address };
}

/**
 * Whether a production gateway may connect to `address` (an IP literal as DNS returns it, or as
 * a URL host, brackets allowed). Anything that is not a canonical IP literal is refused.
 */
export function classifyAddress(address: string): AddressVerdict {
  const v4 = parseIpv4(address);
  if (v4 !== null) return classifyIpv4(address, v4);
  const v6 = parseIpv6(address);
  if (v6 !== null) return classifyIpv6(address, v6);
  return { allowed: false, address, range: 'invalid' };
}

/** A short phrase for a refused address, for the attempt log and order-creation errors. */
export function describeRefusal(verdict: AddressVerdict): string {
  if (verdict.allowed) return `an allowed address (${verdict.address})`;
  const carried = verdict.embeddedIpv4 ? `, carrying ${verdict.embeddedIpv4}` : '';
  return `an address in the ${verdict.range} range (${verdict.address}${carried})`;
}
