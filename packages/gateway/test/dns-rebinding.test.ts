/**
 * DNS rebinding: a page on `evil.example`, whose name the attacker re-points at the gateway's
 * address, sends requests whose `Host` and `Origin` agree (and that the browser marks
 * `Sec-Fetch-Site: same-origin`). The sandbox API and the hosted page's forms must refuse them:
 * the gateway's own origins come from its configuration (`publicUrl`, or the address it listens
 * on, or the address the request's socket arrived at), never from the request's headers. Every
 * request here goes to 127.0.0.1; the evil name is only a header.
 */
import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { createGateway } from '../src/index.ts';
import { linkRequest, signed } from './support/client.ts';
import { freshStore } from './support/engines.ts';
import { startHarness, MERCHANT_CODE, type Harness } from './support/harness.ts';
import { merchantKeys, platformKeys } from './support/keys.ts';

let h: Harness;
before(async () => {
  h = await startHarness('sqlite');
});
after(async () => {
  await h.stop();
});

function post(path: string, headers: Record<string, string>, body: string, base = h.url): Promise<{ status: number; text: string }> {
  return request('POST', path, headers, body, base);
}

function request(method: string, path: string, headers: Record<string, string>, body?: string, base = h.url): Promise<{ status: number; text: string }> {
  const url = new URL(path, base);
  return new Promise((resolve, reject) => {
    const req = http.request({ host: url.hostname, port: url.port, path: url.pathname + url.search, method, headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, text: Buffer.concat(chunks).toString('utf8') }));
    });
    req.on('error', reject);
    req.end(body);
  });
}

/** A request with its target written as given (origin-form or absolute-form), to the harness's socket. */
function rawRequest(method: string, target: string, headers: Record<string, string>): Promise<{ status: number; text: string }> {
  const url = new URL(h.url);
  return new Promise((resolve, reject) => {
    const req = http.request({ host: url.hostname, port: url.port, path: target, method, headers, setHost: false }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, text: Buffer.concat(chunks).toString('utf8') }));
    });
    req.on('error', reject);
    req.end();
  });
}

describe('DNS rebinding', () => {
  it('the sandbox API refuses a rebound page, and still serves the gateway\'s own origins and tools', async () => {
    const created = await h.client.createLink();
    const platOrderNum = created.body.platOrderNum!;
    const port = new URL(h.url).port;
    const rebound = { host: `evil.example:${port}`, origin: `http://evil.example:${port}`, 'sec-fetch-site': 'same-origin', 'content-type': 'application/json' };
    const refused = await post(`/sandbox/orders/${platOrderNum}/pay`, rebound, JSON.stringify({ method: 'VA_BCA' }));
    assert.equal(refused.status, 403, refused.text);
    assert.equal((await h.client.query({ orderNum: created.body.orderNum! })).body.status, 'PENDING');

    const own = await post(`/sandbox/orders/${platOrderNum}/expire`, { origin: `http://localhost:${port}`, 'sec-fetch-site': 'same-origin', 'content-type': 'application/json' }, '{}');
    assert.equal(own.status, 200, own.text);
    const second = await h.client.createLink();
    const tool = await post(`/sandbox/orders/${second.body.platOrderNum!}/fail`, { 'content-type': 'application/json' }, '{}');
    assert.equal(tool.status, 200, tool.text);
  });

  it('the sandbox API\'s reads refuse a rebound page too (notifications, orders, faults, clock)', async () => {
    const created = await h.client.createLink();
    const platOrderNum = created.body.platOrderNum!;
    const port = new URL(h.url).port;
    const paths = [`/sandbox/orders/${platOrderNum}`, '/sandbox/deliveries', `/sandbox/deliveries?orderNum=${created.body.orderNum!}`, '/sandbox/faults', '/sandbox/clock'];
    const rebound = { host: `evil.example:${port}`, origin: `http://evil.example:${port}`, 'sec-fetch-site': 'same-origin' };
    for (const path of paths) {
      const refusedHeaders: Record<string, string>[] = [rebound, { host: `evil.example:${port}` }, { host: `127.0.0.1:${port}`, 'sec-fetch-site': 'cross-site' }];
      for (const headers of refusedHeaders) {
        const refused = await request('GET', path, headers);
        assert.equal(refused.status, 403, `${path} ${JSON.stringify(headers)}: ${refused.text}`);
        assert.ok(!refused.text.includes(platOrderNum), 'nothing of the order in the refusal');
      }
      assert.equal((await request('GET', path, { host: `127.0.0.1:${port}` })).status, 200, `${path}: a tool`);
      assert.equal((await request('GET', path, { host: `localhost:${port}`, 'sec-fetch-site': 'none' })).status, 200, `${path}: typed in the address bar`);
      assert.equal((await request('GET', path, { host: `127.0.0.1:${port}`, 'sec-fetch-site': 'same-origin' })).status, 200, `${path}: the gateway's own page`);
    }
  });

  it('a read judges the Host header as sent: a trailing dot or an absolute-form target does not get around it', async () => {
    const port = new URL(h.url).port;
    const cases: Array<[string, Record<string, string>, number]> = [
      ['/sandbox/clock', { host: `localhost.:${port}` }, 403],
      ['/sandbox/clock', { host: `LOCALHOST:${port}` }, 200],
      ['/sandbox/clock', { host: 'localhost' }, 403],
      ['/sandbox/clock', { host: `localhost:${Number(port) + 1}` }, 403],
      ['/sandbox/clock', { host: `[::1]:${port}`, 'sec-fetch-site': 'same-origin' }, 200],
      // Absolute-form targets (what a proxy is sent): the Host header still decides.
      [`http://127.0.0.1:${port}/sandbox/clock`, { host: `evil.example:${port}` }, 403],
      [`http://evil.example:${port}/sandbox/clock`, { host: `evil.example:${port}`, 'sec-fetch-site': 'same-origin' }, 403],
      [`http://evil.example:${port}/sandbox/clock`, { host: `127.0.0.1:${port}` }, 200],
    ];
    for (const [target, headers, status] of cases) {
      const answer = await rawRequest('GET', target, headers);
      assert.equal(answer.status, status, `${target} ${JSON.stringify(headers)}: ${answer.text.slice(0, 120)}`);
    }
  });

  it('the hosted page\'s forms refuse a rebound page', async () => {
    const created = await h.client.createLink();
    const port = new URL(h.url).port;
    const form = new URLSearchParams({ orderNum: created.body.platOrderNum!, method: 'VA_BCA' }).toString();
    const refused = await post('/pay/method', { host: `evil.example:${port}`, origin: `http://evil.example:${port}`, 'sec-fetch-site': 'same-origin', 'content-type': 'application/x-www-form-urlencoded' }, form);
    assert.equal(refused.status, 403);
    const order = await h.gateway.findOrder(created.body.platOrderNum!);
    assert.equal(order?.method, null, 'no method chosen by the rebound page');
  });
});

describe('a production gateway mounted in a server of its own, without publicUrl', () => {
  it('signs links and judges forms by the address it was reached at, whatever the Host says', async () => {
    const store = freshStore('sqlite');
    const gateway = createGateway({
      database: store.database,
      dataDir: store.dataDir,
      platformPrivateKey: platformKeys().privateKey,
      merchants: [{ merchantCode: MERCHANT_CODE, publicKey: merchantKeys().publicKey }],
      logger: false,
      notifications: { worker: false },
    });
    // Mounted, never `listen`ed: no publicUrl, no listen URL; only the socket says where it is.
    const server = http.createServer(gateway.app);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    const port = new URL(base).port;
    try {
      const fields = linkRequest(MERCHANT_CODE, { notifyUrl: 'https://shop.example.com/notify', redirectUrl: 'https://shop.example.com/back' });
      const body = JSON.stringify(signed(fields, merchantKeys().privateKey));
      const created = await post('/gateway/prepaidOrder', { host: `evil.example:${port}`, 'content-type': 'application/json' }, body, base);
      const answer = JSON.parse(created.text) as Record<string, string>;
      assert.equal(answer.platRespCode, 'SUCCESS', answer.platRespMessage);
      assert.ok(answer.url!.startsWith(`${base}/pay?orderNum=`), `the signed url is built from the socket, not the Host: ${answer.url}`);

      const form = new URLSearchParams({ orderNum: answer.platOrderNum!, method: 'VA_BCA' }).toString();
      const formHeaders = { 'sec-fetch-site': 'same-origin', 'content-type': 'application/x-www-form-urlencoded' };
      const rebound = await post('/pay/method', { ...formHeaders, host: `evil.example:${port}`, origin: `http://evil.example:${port}` }, form, base);
      assert.equal(rebound.status, 403, 'a rebound page is refused');
      assert.equal((await gateway.findOrder(answer.platOrderNum!))?.method, null);
      const own = await post('/pay/method', { ...formHeaders, host: `127.0.0.1:${port}`, origin: base }, form, base);
      assert.equal(own.status, 303, own.text);
      assert.equal((await gateway.findOrder(answer.platOrderNum!))?.method, 'VA_BCA');
    } finally {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await gateway.close();
      await store.cleanup();
    }
  });
});
