/**
 * The SSRF corpus (in the style of azu/request-filtering-agent's tests), run offline: DNS is an
 * injected lookup, and the only real server is a connection counter on 127.0.0.1. In production
 * mode every entry must be refused with 'refused-address' before any socket is opened; the same
 * URLs in sandbox mode do reach the counter, which proves the counter would have seen a leak.
 *
 * Tests never leave the machine: the production corpus gives the gateway's policy the fake zone's
 * private and public answers as they are (the policy must refuse them itself), while the
 * process-wide guard of `@tombolbayar/test-support/network` would stop any socket beyond loopback;
 * the sandbox control resolves through `loopbackOnlyLookup`. No test here connects beyond loopback
 * (checked after the file).
 */
import assert from 'node:assert/strict';
import type { LookupAddress } from 'node:dns';
import diagnostics from 'node:diagnostics_channel';
import http from 'node:http';
import { isIP, type AddressInfo, type LookupFunction } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { loopbackOnlyLookup, watchConnections } from '@tombolbayar/test-support/network';
import { checkCallbackUrl, deliverNotification, resolveDeliveryAddresses } from '../src/notify/delivery/index.ts';
import { pinnedLookup } from '../src/notify/delivery/resolve.ts';

/** The fake DNS zone: every name the corpus uses, and what it resolves to. */
const ZONE: Record<string, readonly string[]> = {
  'internal-only.example': ['10.0.0.1'],
  'mixed.example': ['93.184.216.34', '10.0.0.1'],
  'mixed-v6.example': ['2606:2800:220:1:248:1893:25c8:1946', 'fd00::1'],
  'loopback.example': ['127.0.0.1'],
  '127.0.0.1.nip.io': ['127.0.0.1'],
  'mapped.example': ['::ffff:127.0.0.1'],
  'nat64.example': ['64:ff9b::7f00:1'],
  'metadata.example': ['169.254.169.254'],
  'zero.example': ['0.0.0.0'],
  'cgnat.example': ['100.64.0.1'],
  'garbage.example': ['not-an-address'],
  localhost: ['127.0.0.1'],
  'foo.localhost': ['127.0.0.1'],
  'metadata.google.internal': ['169.254.169.254'],
  'shop.example.com': ['93.184.216.34', '2606:2800:220:1:248:1893:25c8:1946'],
};

const lookups: string[] = [];
/** Like `dns.lookup`: a literal address answers as itself, a name from the zone. */
const fakeDns: LookupFunction = (hostname, _options, callback) => {
  lookups.push(hostname);
  const answers = isIP(hostname) !== 0 ? [hostname] : ZONE[hostname];
  if (!answers) return callback(Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: 'ENOTFOUND' }), []);
  callback(
    null,
    answers.map((address): LookupAddress => ({ address, family: address.includes(':') ? 6 : 4 })),
  );
};

const connections = watchConnections();
let port = 0;
let serverConnections = 0;
let clientSockets = 0;
const counter = http.createServer((_req, res) => res.end('SUCCESS'));
counter.on('connection', () => {
  serverConnections += 1;
});
const countClientSocket = () => {
  clientSockets += 1;
};

before(async () => {
  await new Promise<void>((resolve) => counter.listen(0, '127.0.0.1', resolve));
  port = (counter.address() as AddressInfo).port;
  // Every client socket Node creates is published here: a refused attempt must create none.
  diagnostics.subscribe('net.client.socket', countClientSocket);
});
after(async () => {
  assert.deepEqual(connections.outsideLoopback(), [], 'no socket of this file connected beyond loopback');
  diagnostics.unsubscribe('net.client.socket', countClientSocket);
  counter.closeAllConnections();
  await new Promise<void>((resolve) => counter.close(() => resolve()));
});

/**
 * Corpus entries; `{port}` is the counter's port. `reachesCounter`: in sandbox mode it lands on the
 * counter (0.0.0.0 would too, but it is outside 127.0.0.0/8, so the test guard refuses it).
 */
const corpus: ReadonlyArray<{ url: string; reachesCounter?: boolean }> = [
  { url: 'http://127.0.0.1:{port}/', reachesCounter: true },
  { url: 'http://127.1:{port}/', reachesCounter: true },
  { url: 'http://0x7f000001:{port}/', reachesCounter: true },
  { url: 'http://0177.0.0.1:{port}/', reachesCounter: true },
  { url: 'http://2130706433:{port}/', reachesCounter: true },
  { url: 'http://0x7f.0.0.1:{port}/', reachesCounter: true },
  { url: 'http://127.0.0.1.:{port}/', reachesCounter: true },
  { url: 'http://%31%32%37.0.0.1:{port}/', reachesCounter: true },
  { url: 'http://0.0.0.0:{port}/' },
  { url: 'http://0:{port}/' },
  { url: 'http://[::ffff:127.0.0.1]:{port}/' },
  { url: 'http://[::ffff:7f00:1]:{port}/' },
  { url: 'http://[64:ff9b::127.0.0.1]:{port}/' },
  { url: 'http://[::]:{port}/' },
  { url: 'http://[::1]:{port}/' },
  { url: 'http://169.254.169.254/latest/meta-data/' },
  { url: 'http://[fd00:ec2::254]/latest/meta-data/' },
  { url: 'http://10.0.0.1/' },
  { url: 'http://172.16.5.4/' },
  { url: 'http://192.168.1.1/' },
  { url: 'http://100.64.0.1/' },
  { url: 'http://[fd00::1]/' },
  { url: 'http://[fe80::1]/' },
  { url: 'http://224.0.0.1/' },
  { url: 'http://255.255.255.255/' },
  { url: 'http://example.com@127.0.0.1:{port}/' },
  { url: 'http://127.0.0.1:{port}#@example.com', reachesCounter: true },
  { url: 'http://127.0.0.1:{port}\\@example.com/', reachesCounter: true },
  { url: 'http://127.0.0.1:{port}?@example.com', reachesCounter: true },
  { url: 'http://internal-only.example/' },
  { url: 'http://mixed.example/' },
  { url: 'http://mixed-v6.example/' },
  { url: 'http://loopback.example:{port}/', reachesCounter: true },
  { url: 'http://127.0.0.1.nip.io:{port}/', reachesCounter: true },
  { url: 'http://mapped.example:{port}/' },
  { url: 'http://nat64.example/' },
  { url: 'http://metadata.example/' },
  { url: 'http://zero.example:{port}/' },
  { url: 'http://cgnat.example/' },
  { url: 'http://garbage.example/' },
  { url: 'http://localhost:{port}/', reachesCounter: true },
  { url: 'http://foo.localhost:{port}/', reachesCounter: true },
  { url: 'http://metadata.google.internal/' },
  { url: 'http://metadata/' },
];

const withPort = (url: string) => url.replace('{port}', String(port));
const production = { allowPrivateNetworks: false, lookup: fakeDns, timeoutMs: 2000 };

describe('SSRF corpus in production mode', () => {
  for (const entry of corpus) {
    it(`refuses ${entry.url} at connect time, opening no socket`, async () => {
      const url = withPort(entry.url);
      const [connectionsBefore, socketsBefore] = [serverConnections, clientSockets];
      const result = await deliverNotification(url, { code: '00' }, production);
      assert.equal(result.acknowledged, false);
      assert.equal(result.errorClass, 'refused-address', `${url}: ${result.errorClass} ${result.detail ?? ''}`);
      assert.equal(result.httpStatus, null);
      assert.equal(clientSockets, socketsBefore, 'no client socket was created');
      assert.equal(serverConnections, connectionsBefore, 'the counter saw no connection');
    });

    it(`refuses ${entry.url} at order creation too (as https)`, () => {
      const url = withPort(entry.url).replace(/^http:/, 'https:');
      const needsDns = ['internal-only', 'mixed', 'loopback.example', 'nip.io', 'mapped', 'nat64.example', 'metadata.example', 'zero.example', 'cgnat.example', 'garbage.example'];
      const result = checkCallbackUrl(url, { production: true });
      if (needsDns.some((name) => url.includes(name))) {
        // Only DNS can tell; creation lets it through and the connect-time check refuses it (above).
        assert.deepEqual(result, { ok: true });
      } else {
        assert.equal(result.ok, false, url);
      }
    });
  }

  it('explains what it refused', async () => {
    const result = await deliverNotification('http://mixed.example/', {}, production);
    assert.equal(result.detail, 'refused an address in the private range (10.0.0.1)');
    const mapped = await deliverNotification(`http://[::ffff:7f00:1]:${port}/`, {}, production);
    assert.equal(mapped.detail, 'refused an address in the loopback range (::ffff:7f00:1, carrying 127.0.0.1)');
  });
});

describe('the same URLs in sandbox mode (the control)', () => {
  for (const entry of corpus.filter((e) => e.reachesCounter)) {
    it(`${entry.url} does reach the counter when private networks are allowed`, async () => {
      const before = serverConnections;
      const result = await deliverNotification(withPort(entry.url), { code: '00' }, { ...production, allowPrivateNetworks: true, lookup: loopbackOnlyLookup(fakeDns) });
      assert.equal(result.acknowledged, true, `${result.errorClass} ${result.detail ?? ''}`);
      assert.equal(serverConnections, before + 1);
    });
  }
});

describe('public destinations', () => {
  it('allows a name whose every address is public, and connects only to those addresses', async () => {
    lookups.length = 0;
    const outcome = await resolveDeliveryAddresses('shop.example.com', { allowPrivateNetworks: false, lookup: fakeDns });
    assert.deepEqual(outcome, {
      ok: true,
      addresses: [
        { address: '93.184.216.34', family: 4 },
        { address: '2606:2800:220:1:248:1893:25c8:1946', family: 6 },
      ],
    });
    assert.deepEqual(lookups, ['shop.example.com']);
    // The socket's lookup answers with exactly the checked addresses, whatever it is asked.
    const pinned = pinnedLookup(outcome.ok ? outcome.addresses : []);
    const all = await new Promise((resolve) => pinned('anything.else', { all: true }, (_e, addresses) => resolve(addresses)));
    assert.deepEqual(all, outcome.ok ? outcome.addresses : null);
    const v6 = await new Promise((resolve) => pinned('anything.else', { family: 6 }, (_e, address) => resolve(address)));
    assert.equal(v6, '2606:2800:220:1:248:1893:25c8:1946');
  });

  it('allows public literal addresses', async () => {
    for (const host of ['8.8.8.8', '[2606:4700:4700::1111]', '[::ffff:8.8.8.8]']) {
      const outcome = await resolveDeliveryAddresses(host, { allowPrivateNetworks: false, lookup: fakeDns });
      assert.equal(outcome.ok, true, host);
    }
  });

  it('reports an unknown name as a DNS failure, not a refusal', async () => {
    const result = await deliverNotification('https://nowhere.example/', {}, production);
    assert.equal(result.errorClass, 'dns');
  });
});
