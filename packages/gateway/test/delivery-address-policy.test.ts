import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { classifyAddress, describeRefusal, parseIpv4, parseIpv6, type ForbiddenRange } from '../src/notify/delivery/address-policy.ts';
import { forbiddenHostName, literalAddressOf } from '../src/notify/delivery/host-policy.ts';

const refused: ReadonlyArray<readonly [string, ForbiddenRange]> = [
  // IPv4 special-purpose blocks, edges included
  ['0.0.0.0', 'this-network'],
  ['0.255.255.255', 'this-network'],
  ['10.0.0.1', 'private'],
  ['10.255.255.255', 'private'],
  ['100.64.0.1', 'shared-cgnat'],
  ['100.127.255.255', 'shared-cgnat'],
  ['127.0.0.1', 'loopback'],
  ['127.255.255.254', 'loopback'],
  ['169.254.169.254', 'link-local'],
  ['169.254.0.1', 'link-local'],
  ['172.16.5.4', 'private'],
  ['172.31.255.255', 'private'],
  ['192.0.0.8', 'ietf-protocol'],
  ['192.0.2.10', 'documentation'],
  ['192.88.99.1', 'reserved'],
  ['192.168.1.1', 'private'],
  ['198.18.0.1', 'benchmarking'],
  ['198.19.255.255', 'benchmarking'],
  ['198.51.100.7', 'documentation'],
  ['203.0.113.9', 'documentation'],
  ['224.0.0.1', 'multicast'],
  ['239.255.255.250', 'multicast'],
  ['240.0.0.1', 'reserved'],
  ['255.255.255.255', 'broadcast'],
  // IPv6
  ['::', 'unspecified'],
  ['::1', 'loopback'],
  ['[::1]', 'loopback'],
  ['::ffff:127.0.0.1', 'loopback'],
  ['::ffff:7f00:1', 'loopback'],
  ['[::ffff:7f00:1]', 'loopback'],
  ['::ffff:a9fe:a9fe', 'link-local'],
  ['::ffff:10.0.0.1', 'private'],
  ['::ffff:0:127.0.0.1', 'loopback'],
  ['64:ff9b::127.0.0.1', 'loopback'],
  ['64:ff9b::a9fe:a9fe', 'link-local'],
  ['64:ff9b:1::8.8.8.8', 'nat64-local'],
  ['::127.0.0.1', 'ipv4-compatible'],
  ['::8.8.8.8', 'ipv4-compatible'],
  ['100::1', 'discard'],
  ['2001::1', 'teredo'],
  ['2001:2::1', 'ietf-protocol'],
  ['2001:db8::1', 'documentation'],
  ['3fff::1', 'documentation'],
  ['2002:7f00:1::1', '6to4'],
  ['fc00::1', 'unique-local'],
  ['fd00::1', 'unique-local'],
  ['fe80::1', 'link-local'],
  ['fe80::1%eth0', 'link-local'],
  ['febf:ffff::1', 'link-local'],
  ['fec0::1', 'site-local'],
  ['ff02::1', 'multicast'],
  ['4000::1', 'reserved'],
  ['1::1', 'reserved'],
  // not a canonical address: fail closed
  ['127.1', 'invalid'],
  ['0177.0.0.1', 'invalid'],
  ['0x7f000001', 'invalid'],
  ['2130706433', 'invalid'],
  ['localhost', 'invalid'],
  ['', 'invalid'],
  ['1.2.3.4.5', 'invalid'],
  [':::1', 'invalid'],
];

const allowed: readonly string[] = [
  '8.8.8.8',
  '1.1.1.1',
  '93.184.216.34',
  '9.255.255.255',
  '11.0.0.0',
  '100.63.255.255',
  '100.128.0.0',
  '126.255.255.255',
  '128.0.0.0',
  '169.253.255.255',
  '172.15.255.255',
  '172.32.0.0',
  '192.167.255.255',
  '192.169.0.0',
  '198.17.255.255',
  '198.20.0.0',
  '223.255.255.255',
  '2606:4700:4700::1111',
  '2a00:1450:4001:80b::200e',
  '2001:4860:4860::8888',
  '::ffff:8.8.8.8',
  '64:ff9b::8.8.8.8',
  '[2606:4700::1]',
];

describe('address policy', () => {
  for (const [address, range] of refused) {
    it(`refuses ${address || '(empty)'} as ${range}`, () => {
      const verdict = classifyAddress(address);
      assert.equal(verdict.allowed, false);
      assert.equal(verdict.allowed ? undefined : verdict.range, range);
    });
  }
  for (const address of allowed) {
    it(`allows ${address}`, () => {
      assert.deepEqual(classifyAddress(address), { allowed: true, address });
    });
  }

  it('names the IPv4 address an IPv6 form carries', () => {
    const verdict = classifyAddress('::ffff:7f00:1');
    assert.equal(verdict.allowed ? undefined : verdict.embeddedIpv4, '127.0.0.1');
    assert.equal(describeRefusal(verdict), 'an address in the loopback range (::ffff:7f00:1, carrying 127.0.0.1)');
  });

  it('judges every IPv4-mapped address like the IPv4 address it carries', () => {
    fc.assert(
      fc.property(fc.ipV4(), (v4) => {
        const direct = classifyAddress(v4);
        const mapped = classifyAddress(`::ffff:${v4}`);
        const nat64 = classifyAddress(`64:ff9b::${v4}`);
        return direct.allowed === mapped.allowed && direct.allowed === nat64.allowed;
      }),
    );
  });

  it('parses IPv4 to a 32-bit number and IPv6 to eight groups', () => {
    assert.equal(parseIpv4('127.0.0.1'), 0x7f000001);
    assert.equal(parseIpv4('255.255.255.255'), 0xffffffff);
    assert.equal(parseIpv4('127.1'), null);
    assert.deepEqual(parseIpv6('::'), [0, 0, 0, 0, 0, 0, 0, 0]);
    assert.deepEqual(parseIpv6('::ffff:127.0.0.1'), [0, 0, 0, 0, 0, 0xffff, 0x7f00, 1]);
    assert.deepEqual(parseIpv6('2001:db8::ff00:42:8329'), [0x2001, 0xdb8, 0, 0, 0, 0xff00, 0x42, 0x8329]);
    assert.deepEqual(parseIpv6('[fe80::1%25eth0]'), [0xfe80, 0, 0, 0, 0, 0, 0, 1]);
    assert.equal(parseIpv6('1:2:3:4:5:6:7:8:9'), null);
    assert.equal(parseIpv6('example.com'), null);
  });

  it('round-trips any IPv6 address through parsing', () => {
    fc.assert(
      fc.property(fc.ipV6(), (v6) => {
        const groups = parseIpv6(v6);
        return groups !== null && groups.length === 8;
      }),
    );
  });
});

describe('host name policy', () => {
  const table: ReadonlyArray<readonly [string, string | null]> = [
    ['localhost', 'must not be the special-use host name localhost'],
    ['localhost.', 'must not be the special-use host name localhost'],
    ['foo.localhost', 'must not be a host name in the special-use domain localhost'],
    ['printer.local', 'must not be a host name in the special-use domain local'],
    ['metadata.google.internal', 'must not be a host name in the special-use domain internal'],
    ['router.home.arpa', 'must not be a host name in the special-use domain home.arpa'],
    ['metadata', 'must be a fully qualified host name'],
    ['intranet', 'must be a fully qualified host name'],
    ['shop.example.com', null],
    ['localhost.example.com', null],
    ['xn--bcher-kva.example', null],
    ['127.0.0.1', null], // literal addresses are the address policy's job
    ['[::1]', null],
  ];
  for (const [host, reason] of table) {
    it(`${host} -> ${reason ?? 'allowed'}`, () => assert.equal(forbiddenHostName(host), reason));
  }

  it('tells literal addresses from names', () => {
    assert.equal(literalAddressOf('127.0.0.1'), '127.0.0.1');
    assert.equal(literalAddressOf('[::ffff:7f00:1]'), '::ffff:7f00:1');
    assert.equal(literalAddressOf('example.com'), null);
    assert.equal(literalAddressOf('127.0.0.1.nip.io'), null);
  });
});
