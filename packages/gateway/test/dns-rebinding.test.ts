/**
 * DNS rebinding: a page on `evil.example`, whose name the attacker re-points at the gateway's
 * address, sends requests whose `Host` and `Origin` agree (and that the browser marks
 * `Sec-Fetch-Site: same-origin`). The sandbox API and the hosted page's forms must refuse them:
 * the gateway's own origins come from its configuration (`publicUrl`, or the address it listens
 * on), never from the request. Every request here goes to 127.0.0.1; the evil name is only a header.
 */
import assert from 'node:assert/strict';
import http from 'node:http';
import { after, before, describe, it } from 'node:test';
import { startHarness, type Harness } from './support/harness.ts';

let h: Harness;
before(async () => {
  h = await startHarness('sqlite');
});
after(async () => {
  await h.stop();
});

function post(path: string, headers: Record<string, string>, body: string): Promise<{ status: number; text: string }> {
  const url = new URL(path, h.url);
  return new Promise((resolve, reject) => {
    const req = http.request({ host: url.hostname, port: url.port, path: url.pathname + url.search, method: 'POST', headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, text: Buffer.concat(chunks).toString('utf8') }));
    });
    req.on('error', reject);
    req.end(body);
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
