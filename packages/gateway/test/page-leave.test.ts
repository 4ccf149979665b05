/**
 * The way back to the shop (issue 32): `GET /pay/leave` sends the customer to `redirectUrl` once
 * the shop answers, and keeps them on the gateway's own page (the receipt, a notice, the link to
 * try again) when it does not, so nobody lands on a browser error page. The probe is the real one
 * (`shop-probe.ts`) against real local servers: up, down (closed port, 503, silent), and a
 * destination the address policy will not probe.
 */
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { describe, it, type TestContext } from 'node:test';
import { judgeStatus, probeShop } from '../src/page/shop-probe.ts';
import { MemoryPageDeps, listen, pageApp } from './page-support.ts';

/** A shop answering every request with `status` (or never, with `null`), closed after the test. */
async function shop(t: TestContext, status: number | null): Promise<string> {
  const server: Server = createServer((_req, res) => {
    if (status === null) return;
    res.writeHead(status).end();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  t.after(() => new Promise<void>((resolve) => {
    server.closeAllConnections();
    server.close(() => resolve());
  }));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}/pay/return?order=A1&rt=x`;
}

/** An address nothing listens on: a port a server had a moment ago. */
async function closedPort(): Promise<string> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return `http://127.0.0.1:${port}/pay/return?order=A1&rt=x`;
}

const local = { allowPrivateNetworks: true, timeoutMs: 500 };

describe('probeShop', () => {
  it('judges a status: the proxy errors 502, 503 and 504 are "down", any other answer is "up"', () => {
    const table: Array<[number, string]> = [[200, 'up'], [303, 'up'], [404, 'up'], [405, 'up'], [500, 'up'], [502, 'down'], [503, 'down'], [504, 'down']];
    for (const [status, verdict] of table) assert.equal(judgeStatus(status), verdict, String(status));
  });

  it('up for a shop that answers, down for a closed port, a 503 or silence past the deadline', async (t) => {
    assert.equal(await probeShop(await shop(t, 200), local), 'up');
    assert.equal(await probeShop(await shop(t, 404), local), 'up');
    assert.equal(await probeShop(await shop(t, 503), local), 'down');
    assert.equal(await probeShop(await closedPort(), local), 'down');
    const started = Date.now();
    assert.equal(await probeShop(await shop(t, null), local), 'down');
    assert.ok(Date.now() - started < 2_000, 'within the deadline');
  });

  it('unknown (the customer goes, as without the probe) where the address policy will not probe: a loopback shop in production', async (t) => {
    assert.equal(await probeShop(await shop(t, 200), { allowPrivateNetworks: false }), 'unknown');
    assert.equal(await probeShop('javascript:alert(1)', local), 'unknown');
  });
});

describe('GET /pay/leave', () => {
  async function gateway(t: TestContext) {
    const deps = new MemoryPageDeps();
    const server = await listen(pageApp(deps, { sandbox: true, probeShop: (url) => probeShop(url, local) }));
    t.after(() => server.close());
    return { deps, get: (path: string) => fetch(server.url + path, { redirect: 'manual' }) };
  }

  it('the shop answers: 303 to redirectUrl exactly as the merchant sent it', async (t) => {
    const g = await gateway(t);
    const redirectUrl = await shop(t, 200);
    g.deps.add({ platOrderNum: 'P1', status: 'PAID', method: 'VA_BCA', paidAt: Date.now(), redirectUrl });
    const res = await g.get('/pay/leave?orderNum=P1&lang=id');
    assert.equal(res.status, 303);
    assert.equal(res.headers.get('location'), redirectUrl);
  });

  it('the shop is down: back to the receipt with the notice, in the page\'s language, and the link that tries again', async (t) => {
    const g = await gateway(t);
    g.deps.add({ platOrderNum: 'P1', status: 'PAID', method: 'VA_BCA', paidAt: Date.now(), redirectUrl: await closedPort() });
    const res = await g.get('/pay/leave?orderNum=P1&lang=id');
    assert.equal(res.status, 303);
    assert.equal(res.headers.get('location'), '/pay?orderNum=P1&lang=id&notice=shop-unreachable');
    const page = await (await g.get(res.headers.get('location')!)).text();
    assert.match(page, /Toko tidak dapat dihubungi saat ini/);
    assert.match(page, /href="\/pay\/leave\?orderNum=P1&amp;lang=id" id="return-link"/);
    assert.doesNotMatch(page, /data-redirect-url/);
  });

  it('no redirectUrl: back to the page; an unknown order: 404; a bad order number: 400', async (t) => {
    const g = await gateway(t);
    g.deps.add({ platOrderNum: 'P1' });
    const none = await g.get('/pay/leave?orderNum=P1');
    assert.equal(none.headers.get('location'), '/pay?orderNum=P1');
    assert.equal((await g.get('/pay/leave?orderNum=P2')).status, 404);
    assert.equal((await g.get('/pay/leave?orderNum=%3Cx%3E')).status, 400);
  });
});
