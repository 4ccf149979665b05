/**
 * deliverNotification against real HTTP(S) servers on 127.0.0.1 (sandbox mode: private networks
 * allowed). Each server does what a real merchant endpoint might do, well or badly.
 *
 * Tests never leave the machine: every call resolves through `loopbackOnlyLookup` (a fake
 * resolver that refuses any answer outside 127.0.0.0/8 and ::1, a literal address included), and
 * the process-wide guard records every connection attempt, so the tests below can assert where
 * sockets went.
 */
import assert from 'node:assert/strict';
import type { LookupAddress } from 'node:dns';
import http, { type IncomingMessage, type ServerResponse } from 'node:http';
import https from 'node:https';
import net, { type AddressInfo, type LookupFunction } from 'node:net';
import { after, describe, it } from 'node:test';
import { loopbackOnlyLookup, NON_LOOPBACK_CODE, watchConnections } from '@tombolbayar/test-support/network';
import { DEFAULT_DELIVERY_TIMEOUT_MS, DELIVERY_ERROR_CLASSES, deliverNotification, EXCERPT_MAX_CHARS, JSON_QUOTED_ACK_NOTE } from '../src/notify/delivery/index.ts';

const connections = watchConnections();
const sandbox = { allowPrivateNetworks: true, lookup: loopbackOnlyLookup() };

after(() => {
  assert.deepEqual(connections.outsideLoopback(), [], 'no socket of this file connected beyond loopback');
});

interface Received {
  method: string;
  path: string;
  headers: http.IncomingHttpHeaders;
  body: string;
}

interface Receiver {
  url: string;
  port: number;
  received: Received[];
  connections: () => number;
  close: () => Promise<void>;
}

const open: Array<() => Promise<void>> = [];
after(async () => {
  await Promise.all(open.map((close) => close()));
});

async function listen(server: net.Server): Promise<number> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return (server.address() as AddressInfo).port;
}

function closer(server: net.Server): () => Promise<void> {
  let closed: Promise<void> | undefined;
  return () => {
    closed ??= new Promise<void>((resolve) => {
      (server as http.Server).closeAllConnections?.();
      server.close(() => resolve());
    });
    return closed;
  };
}

/** An HTTP server on 127.0.0.1 that records each request (body read in full) and then calls `respond`. */
async function receiver(respond: (res: ServerResponse, req: IncomingMessage) => void, server: http.Server = http.createServer()): Promise<Receiver> {
  const received: Received[] = [];
  let connections = 0;
  server.on('connection', () => {
    connections += 1;
  });
  server.on('request', (req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      received.push({ method: req.method ?? '', path: req.url ?? '', headers: req.headers, body: Buffer.concat(chunks).toString('utf8') });
      respond(res, req);
    });
  });
  const port = await listen(server);
  const close = closer(server);
  open.push(close);
  const scheme = server instanceof https.Server ? 'https' : 'http';
  return { url: `${scheme}://127.0.0.1:${port}/notify`, port, received, connections: () => connections, close };
}

const answer = (status: number, body: string, headers: Record<string, string> = {}) => (res: ServerResponse) => {
  res.writeHead(status, { 'content-type': 'text/plain', ...headers });
  res.end(body);
};

/** A port on 127.0.0.1 where nothing listens. */
async function deadPort(): Promise<number> {
  const server = net.createServer();
  const port = await listen(server);
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

const fields = { code: '00', orderNum: 'ORD-1', platSign: 'abc+/=' };

describe('acknowledgement', () => {
  for (const body of ['SUCCESS', '  SUCCESS\n', '\r\nSUCCESS\t ']) {
    it(`counts HTTP 200 ${JSON.stringify(body)} as acknowledged`, async () => {
      const merchant = await receiver(answer(200, body));
      const result = await deliverNotification(merchant.url, fields, sandbox);
      assert.equal(result.acknowledged, true);
      assert.equal(result.httpStatus, 200);
      assert.equal(result.errorClass, null);
      assert.equal(result.bodyExcerpt, 'SUCCESS');
      assert.equal(result.detail, undefined);
      assert.ok(Number.isInteger(result.latencyMs) && result.latencyMs >= 0);
      assert.equal(merchant.received.length, 1);
    });
  }

  for (const body of ['"SUCCESS"', '"SUCCESS"\n']) {
    it(`counts HTTP 200 ${JSON.stringify(body)} (JSON-quoted, Django REST framework) as acknowledged, with a note`, async () => {
      const merchant = await receiver(answer(200, body));
      const result = await deliverNotification(merchant.url, fields, sandbox);
      assert.deepEqual([result.acknowledged, result.httpStatus, result.errorClass], [true, 200, null]);
      assert.equal(result.bodyExcerpt, '"SUCCESS"');
      assert.equal(result.detail, JSON_QUOTED_ACK_NOTE);
      assert.match(result.detail!, /JSON-quoted/);
      assert.equal(merchant.received.length, 1);
    });
  }

  const failures: ReadonlyArray<readonly [number, string, string]> = [
    [200, 'OK', 'unexpected-body'],
    [200, 'success', 'unexpected-body'],
    [200, 'SUCCESS.', 'unexpected-body'],
    [200, "'SUCCESS'", 'unexpected-body'],
    [200, '"success"', 'unexpected-body'],
    [200, '"SUCCESS', 'unexpected-body'],
    [200, '""SUCCESS""', 'unexpected-body'],
    [200, '{"status":"SUCCESS"}', 'unexpected-body'],
    [200, '', 'unexpected-body'],
    [201, 'SUCCESS', 'http-status'],
    [204, '', 'http-status'],
    [404, 'Not Found', 'http-status'],
    [500, 'SUCCESS', 'http-status'],
    [503, 'Service Unavailable', 'http-status'],
  ];
  for (const [status, body, errorClass] of failures) {
    it(`does not count HTTP ${status} ${JSON.stringify(body)}: ${errorClass}`, async () => {
      const merchant = await receiver(answer(status, body));
      const result = await deliverNotification(merchant.url, fields, sandbox);
      assert.equal(result.acknowledged, false);
      assert.equal(result.httpStatus, status);
      assert.equal(result.errorClass, errorClass);
      assert.equal(result.bodyExcerpt, body);
      assert.equal(merchant.received.length, 1);
    });
  }
});

describe('what the merchant receives', () => {
  it('is one form-urlencoded POST with exactly the fields, UTF-8 values intact', async () => {
    const merchant = await receiver(answer(200, 'SUCCESS'));
    const sent = {
      code: '00',
      msg: 'Pembayaran berhasil',
      name: 'Siti Nurhaliza — café ☕ 日本 🇮🇩',
      email: 'siti+test@example.co.id',
      productDetail: 'a&b=c+d%20e?f#g',
      payMoney: '150000',
      platSign: 'Q2x+/AbC==',
    };
    const result = await deliverNotification(`${merchant.url}?merchant=7`, sent, sandbox);
    assert.equal(result.acknowledged, true);
    const [request] = merchant.received;
    assert.ok(request);
    assert.equal(request.method, 'POST');
    assert.equal(request.path, '/notify?merchant=7');
    assert.equal(request.headers['content-type'], 'application/x-www-form-urlencoded');
    assert.equal(request.headers['content-length'], String(Buffer.byteLength(request.body)));
    assert.equal(request.headers.host, `127.0.0.1:${merchant.port}`);
    assert.equal(request.headers.authorization, undefined);
    assert.deepEqual(Object.fromEntries(new URLSearchParams(request.body)), sent);
  });

  it('connects to the address the lookup gave, with the URL host name in Host', async () => {
    const merchant = await receiver(answer(200, 'SUCCESS'));
    let lookups = 0;
    // A rebinding resolver: a loopback answer first, a public address on any later question.
    const rebinding: LookupFunction = (_host, _options, callback) => {
      lookups += 1;
      const address = lookups === 1 ? '127.0.0.1' : '192.0.2.1';
      callback(null, [{ address, family: 4 } satisfies LookupAddress]);
    };
    const watch = watchConnections();
    const result = await deliverNotification(`http://merchant.example:${merchant.port}/notify`, fields, { ...sandbox, lookup: loopbackOnlyLookup(rebinding) });
    assert.equal(result.acknowledged, true);
    assert.equal(lookups, 1, 'resolved once; the connection used that answer');
    assert.deepEqual(watch.attempts(), [{ address: '127.0.0.1', port: merchant.port }], 'one connection, to the first answer');
    assert.equal(merchant.received[0]?.headers.host, `merchant.example:${merchant.port}`);
  });

  it('refuses a fake DNS answer that names a public address before any socket opens', async () => {
    for (const [url, zone] of [
      ['http://merchant.example/notify', { 'merchant.example': ['93.184.216.34'] }],
      ['http://mixed.example/notify', { 'mixed.example': ['127.0.0.1', '2606:2800:220:1:248:1893:25c8:1946'] }],
      ['http://192.0.2.1/notify', {}],
      ['http://[2606:4700:4700::1111]/notify', {}],
    ] as const) {
      const watch = watchConnections();
      const result = await deliverNotification(url, fields, { ...sandbox, lookup: loopbackOnlyLookup(zone) });
      assert.equal(result.acknowledged, false, url);
      assert.equal(result.errorClass, 'dns', url);
      assert.equal(result.detail, `lookup failed (${NON_LOOPBACK_CODE})`, url);
      assert.deepEqual(watch.attempts(), [], `${url}: no socket tried to connect anywhere`);
    }
  });

  it('resolves afresh on every attempt (no cached connection or answer)', async () => {
    const merchant = await receiver(answer(200, 'SUCCESS'));
    let lookups = 0;
    const lookup: LookupFunction = (_host, _options, callback) => {
      lookups += 1;
      callback(null, [{ address: '127.0.0.1', family: 4 }]);
    };
    for (let i = 0; i < 3; i += 1) {
      await deliverNotification(`http://merchant.example:${merchant.port}/notify`, fields, { ...sandbox, lookup: loopbackOnlyLookup(lookup) });
    }
    assert.equal(lookups, 3);
    assert.equal(merchant.connections(), 3);
  });
});

describe('failures, each with its error class', () => {
  it('does not follow a redirect, even to a page that says SUCCESS', async () => {
    for (const status of [301, 302, 303, 307, 308]) {
      const merchant = await receiver((res, req) => {
        if (req.url === '/ok') answer(200, 'SUCCESS')(res);
        else answer(status, 'moved', { location: '/ok' })(res);
      });
      const result = await deliverNotification(merchant.url, fields, sandbox);
      assert.equal(result.acknowledged, false);
      assert.equal(result.httpStatus, status);
      assert.equal(result.errorClass, 'redirect');
      assert.deepEqual(merchant.received.map((r) => `${r.method} ${r.path}`), ['POST /notify']);
    }
  });

  it('times out on a server that never answers', async () => {
    const merchant = await receiver(() => {});
    const result = await deliverNotification(merchant.url, fields, { ...sandbox, timeoutMs: 200 });
    assert.equal(result.acknowledged, false);
    assert.equal(result.httpStatus, null);
    assert.equal(result.errorClass, 'timeout');
    // Once at most, never retried: on a busy machine the 200 ms can run out before the server has
    // even read the request.
    assert.ok(merchant.received.length <= 1, `sent ${merchant.received.length} times`);
  });

  it('times out on a body that drips in slower than the deadline', async () => {
    const merchant = await receiver((res) => {
      res.writeHead(200, { 'content-type': 'text/plain', 'content-length': '7' });
      let sent = 0;
      const drip = setInterval(() => {
        if (res.destroyed || sent === 7) return clearInterval(drip);
        res.write('SUCCESS'[sent++]!);
      }, 60);
      res.on('close', () => clearInterval(drip));
    });
    const result = await deliverNotification(merchant.url, fields, { ...sandbox, timeoutMs: 250 });
    assert.equal(result.acknowledged, false);
    assert.equal(result.httpStatus, 200);
    assert.equal(result.errorClass, 'timeout');
    assert.ok('SUCCESS'.startsWith(result.bodyExcerpt), result.bodyExcerpt);
    assert.ok(result.bodyExcerpt.length < 7);
  });

  it('reports a refused connection', async () => {
    const result = await deliverNotification(`http://127.0.0.1:${await deadPort()}/notify`, fields, sandbox);
    assert.equal(result.acknowledged, false);
    assert.equal(result.httpStatus, null);
    assert.equal(result.errorClass, 'connect');
    assert.match(result.detail ?? '', /ECONNREFUSED/);
  });

  it('reads only a few KB of a huge body and never counts it', async () => {
    const limit = 64 * 1024 * 1024;
    let hungUp!: Promise<{ ended: boolean; bytesWritten: number }>;
    const merchant = await receiver((res) => {
      let bytesWritten = 0;
      hungUp = new Promise((resolve) => res.on('close', () => resolve({ ended: res.writableEnded, bytesWritten })));
      res.writeHead(200, { 'content-type': 'text/plain' });
      const chunk = Buffer.alloc(64 * 1024, 'SUCCESS ');
      const pump = () => {
        // Up to 64 MB unless the client hangs up first.
        while (!res.destroyed && bytesWritten < limit) {
          bytesWritten += chunk.length;
          if (!res.write(chunk)) return void res.once('drain', pump);
        }
        if (!res.destroyed) res.end();
      };
      pump();
    });
    const result = await deliverNotification(merchant.url, fields, sandbox);
    assert.equal(result.acknowledged, false);
    assert.equal(result.httpStatus, 200);
    assert.equal(result.errorClass, 'unexpected-body');
    assert.ok(result.bodyExcerpt.length <= EXCERPT_MAX_CHARS);
    assert.ok(result.bodyExcerpt.startsWith('SUCCESS SUCCESS'));
    const server = await hungUp;
    assert.equal(server.ended, false, 'the client hung up instead of reading everything');
    assert.ok(server.bytesWritten < limit);
  });

  it('does not count SUCCESS padded beyond the read limit', async () => {
    const merchant = await receiver(answer(200, `SUCCESS${' '.repeat(5000)}`));
    const result = await deliverNotification(merchant.url, fields, sandbox);
    assert.equal(result.errorClass, 'unexpected-body');
    assert.equal(result.bodyExcerpt, 'SUCCESS');
  });

  it('reports a connection cut in the middle of the body', async () => {
    const merchant = await receiver((res, req) => {
      res.writeHead(200, { 'content-type': 'text/plain', 'content-length': '100' });
      res.write('SUC', () => req.socket.destroy());
    });
    const result = await deliverNotification(merchant.url, fields, sandbox);
    assert.equal(result.acknowledged, false);
    assert.equal(result.httpStatus, 200);
    assert.equal(result.errorClass, 'aborted');
  });

  it('reports a connection closed before any response', async () => {
    const merchant = await receiver((_res, req) => req.socket.destroy());
    const result = await deliverNotification(merchant.url, fields, sandbox);
    assert.equal(result.httpStatus, null);
    assert.equal(result.errorClass, 'connect');
  });

  it('reports a response that is not HTTP', async () => {
    const server = net.createServer((socket) => {
      socket.once('data', () => socket.end('SUCCESS\r\n\r\n'));
    });
    const port = await listen(server);
    open.push(closer(server));
    const result = await deliverNotification(`http://127.0.0.1:${port}/notify`, fields, sandbox);
    assert.equal(result.httpStatus, null);
    assert.equal(result.errorClass, 'protocol');
  });

  it('reports an untrusted TLS certificate', async () => {
    const merchant = await receiver(answer(200, 'SUCCESS'), https.createServer({ key: SELF_SIGNED_KEY, cert: SELF_SIGNED_CERT }));
    const result = await deliverNotification(merchant.url, fields, sandbox);
    assert.equal(result.acknowledged, false);
    assert.equal(result.httpStatus, null);
    assert.equal(result.errorClass, 'tls');
    assert.equal(merchant.received.length, 0, 'nothing was sent over the untrusted connection');
  });

  it('keeps the excerpt short and free of control characters', async () => {
    const body = `Error\u0000 \u001b[31mred\u001b[0m\r\nline two\u202e\u0007 ${'x'.repeat(1000)}`;
    const merchant = await receiver(answer(500, body));
    const result = await deliverNotification(merchant.url, fields, sandbox);
    assert.equal(result.errorClass, 'http-status');
    assert.ok(result.bodyExcerpt.length <= EXCERPT_MAX_CHARS);
    assert.ok(result.bodyExcerpt.startsWith('Error [31mred[0m line two '), result.bodyExcerpt);
    assert.doesNotMatch(result.bodyExcerpt, /[\p{Cc}\p{Cf}]/u);
  });
});

describe('bad URLs and resolver failures', () => {
  it('refuses URLs it cannot or must not post to, without connecting', async () => {
    const merchant = await receiver(answer(200, 'SUCCESS'));
    for (const url of ['notify', '', 'ftp://127.0.0.1/notify', 'javascript:alert(1)', `http://user:secret@127.0.0.1:${merchant.port}/notify`, 'http://[fe80::1%25eth0]/']) {
      const result = await deliverNotification(url, fields, sandbox);
      assert.equal(result.errorClass, 'invalid-url', url);
      assert.equal(result.httpStatus, null);
    }
    assert.equal(merchant.connections(), 0);
  });

  const failingLookups: ReadonlyArray<readonly [string, LookupFunction]> = [
    ['NXDOMAIN', (_h, _o, callback) => callback(Object.assign(new Error('getaddrinfo ENOTFOUND'), { code: 'ENOTFOUND' }), [])],
    ['no addresses', (_h, _o, callback) => callback(null, [])],
    ['a resolver that throws', () => {
      throw new Error('resolver exploded');
    }],
  ];
  for (const [name, lookup] of failingLookups) {
    it(`reports dns for ${name}`, async () => {
      const result = await deliverNotification('http://shop.example.com/notify', fields, { ...sandbox, lookup: loopbackOnlyLookup(lookup) });
      assert.equal(result.errorClass, 'dns');
      assert.equal(result.httpStatus, null);
    });
  }

  it('reports a timeout when DNS never answers', async () => {
    const result = await deliverNotification('http://shop.example.com/notify', fields, { ...sandbox, timeoutMs: 100, lookup: loopbackOnlyLookup(() => {}) });
    assert.equal(result.errorClass, 'timeout');
  });

  it('never throws, even when called wrongly', async () => {
    const result = await deliverNotification('http://shop.example.com/', fields, null as unknown as { allowPrivateNetworks: boolean });
    assert.equal(result.acknowledged, false);
    assert.ok(DELIVERY_ERROR_CLASSES.includes(result.errorClass as (typeof DELIVERY_ERROR_CLASSES)[number]));
  });

  it('defaults to a 10 s timeout', () => {
    assert.equal(DEFAULT_DELIVERY_TIMEOUT_MS, 10_000);
  });
});

/** Self-signed for 127.0.0.1 until 2126: a certificate no client trusts. */
const SELF_SIGNED_KEY = `-----BEGIN PRIVATE KEY-----
MIGHAgEAMBMGByqGSM49AgEGCCqGSM49AwEHBG0wawIBAQQgWnY2YTtTYV4GqLVO
yC9BMA/NESgJPSs3b+ZF2OsIQvqhRANCAAQI98s9dQ0s8cu7HVjSHfneN9aJ/CIL
9x0OdR/iXDJUom+S6ZAZdQVosXGZYampIWOcM3c28HSX9vFc8bN0/5zm
-----END PRIVATE KEY-----
`;
const SELF_SIGNED_CERT = `-----BEGIN CERTIFICATE-----
MIIBqTCCAU+gAwIBAgIUdIG12RM4kaxh9pBGukWx4+vzTWIwCgYIKoZIzj0EAwIw
GzEZMBcGA1UEAwwQc2VsZi1zaWduZWQudGVzdDAgFw0yNjExMjIxOTAyNDNaGA8y
MTI2MTAyOTE5MDI0M1owGzEZMBcGA1UEAwwQc2VsZi1zaWduZWQudGVzdDBZMBMG
ByqGSM49AgEGCCqGSM49AwEHA0IABAj3yz11DSzxy7sdWNId+d431on8Igv3HQ51
H+JcMlSib5LpkBl1BWixcZlhqakhY5wzdzbwdJf28Vzxs3T/nOajbzBtMB0GA1Ud
DgQWBBTNJ64sxXZ6LbBq8ykbEkE6H10xaTAfBgNVHSMEGDAWgBTNJ64sxXZ6LbBq
8ykbEkE6H10xaTAPBgNVHRMBAf8EBTADAQH/MBoGA1UdEQQTMBGHBH8AAAGCCWxv
Y2FsaG9zdDAKBggqhkjOPQQDAgNIADBFAiEA9flAXCJQL/BAQyBMfFR5ENGWNnlz
YCXdy6gRMeQI6EsCIFhFDfOq81mBImS4WaE3/iLs4bP6XRe1BtumMpY5/bDX
-----END CERTIFICATE-----
`;
