/**
 * The Express adapter's conversions (`src/express/convert.ts`) over real HTTP: the body reaches
 * the core byte for byte (what `/notify` verifies its signature over), repeated request headers
 * and several `Set-Cookie` answers survive, a client that disconnects mid-body crashes nothing,
 * and a path that is not the plug-in's goes on to the app's next handler with its body unread.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import http, { type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import express from 'express';
import { toRequest, writeResponse } from '../src/express/convert.ts';
import { payButton, type PayButtonRouter } from '../src/index.ts';
import { MERCHANT_CODE, merchantKeys, platformKeys } from './support/keys.ts';

let server: Server;
let base: string;
let dir: string;
let router: PayButtonRouter;
const bodyErrors: string[] = [];
let sawError: () => void = () => {};

before(async () => {
  dir = mkdtempSync(join(tmpdir(), 'pb-adapter-'));
  const app = express();
  app.post('/echo', async (req, res) => {
    const request = toRequest(req);
    try {
      const bytes = Buffer.from(await new Response(request.body).arrayBuffer());
      res.json({ hex: bytes.toString('hex'), url: request.url, accept: request.headers.get('x-repeated') });
    } catch (error) {
      bodyErrors.push((error as Error).name);
      sawError();
    }
  });
  app.get('/cookies', (req, res) => {
    const response = new Response('two cookies', { status: 202, headers: [['Set-Cookie', 'a=1; Path=/'], ['Set-Cookie', 'b=2; Path=/'], ['X-Kept', 'yes']] });
    void writeResponse(response, req, res);
  });
  router = payButton({
    logger: false,
    selfCheck: false,
    sweep: false,
    gatewayUrl: 'http://127.0.0.1:9',
    merchantCode: MERCHANT_CODE,
    privateKey: merchantKeys().privateKey,
    platformPublicKey: platformKeys().publicKey,
    publicUrl: 'http://127.0.0.1:9',
    database: { kind: 'sqlite', file: join(dir, 'orders.sqlite') },
    quote: () => ({ payMoney: 150_000, productDetail: 'Kopi', name: 'Budi', email: 'budi@example.com', phone: '081234567890' }),
    onPaid: () => {},
  });
  app.use('/pay', router);
  app.post('/pay/elsewhere', express.text({ type: '*/*' }), (req, res) => {
    res.json({ body: req.body });
  });
  server = app.listen(0, '127.0.0.1');
  await new Promise((resolve) => server.once('listening', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  await router.ready();
});

after(async () => {
  await router.close();
  server.closeAllConnections();
  await new Promise<void>((resolve) => server.close(() => resolve()));
  rmSync(dir, { recursive: true, force: true });
});

describe('Express req → the core\'s request → Express res', () => {
  test('the body arrives byte for byte (Latin-1, invalid UTF-8, every byte value), with the full URL', async () => {
    const bytes = Buffer.concat([Buffer.from('name=Jos\xe9&x=', 'latin1'), Buffer.from(Array.from({ length: 256 }, (_, index) => index)), Buffer.from([0xc3, 0x28])]);
    const response = await fetch(`${base}/echo?a=1`, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: bytes });
    const echoed = (await response.json()) as { hex: string; url: string };
    assert.equal(echoed.hex, bytes.toString('hex'));
    assert.equal(echoed.url, `${base}/echo?a=1`);
  });

  test('a large body in many chunks arrives whole', async () => {
    const bytes = Buffer.alloc(1024 * 1024, 7);
    const response = await fetch(`${base}/echo`, { method: 'POST', body: bytes });
    assert.equal(((await response.json()) as { hex: string }).hex, bytes.toString('hex'));
  });

  test('repeated request headers are kept; several Set-Cookie are written one each', async () => {
    const answer = await new Promise<{ status: number; headers: http.IncomingHttpHeaders; text: string; accept: string | null }>((resolve, reject) => {
      const request = http.request(`${base}/cookies`, (res) => {
        let text = '';
        res.setEncoding('utf8').on('data', (chunk: string) => (text += chunk)).on('end', () => resolve({ status: res.statusCode!, headers: res.headers, text, accept: null }));
      });
      request.on('error', reject).end();
    });
    assert.equal(answer.status, 202);
    assert.deepEqual(answer.headers['set-cookie'], ['a=1; Path=/', 'b=2; Path=/']);
    assert.equal(answer.headers['x-kept'], 'yes');
    assert.equal(answer.text, 'two cookies');
    const repeated = await new Promise<string | null>((resolve, reject) => {
      const request = http.request(`${base}/echo`, { method: 'POST', headers: { 'x-repeated': ['one', 'two'] } }, (res) => {
        let text = '';
        res.setEncoding('utf8').on('data', (chunk: string) => (text += chunk)).on('end', () => resolve((JSON.parse(text) as { accept: string | null }).accept));
      });
      request.on('error', reject).end('x');
    });
    assert.equal(repeated, 'one, two');
  });

  test('a client that disconnects mid-body: the read fails as aborted, nothing crashes, the next request is served', async () => {
    const failed = new Promise<void>((resolve) => (sawError = resolve));
    const request = http.request(`${base}/echo`, { method: 'POST', agent: false, headers: { 'content-length': '1000' } });
    request.on('error', () => {});
    request.write('partial');
    await new Promise<void>((resolve) => request.once('socket', (socket) => socket.once('connect', resolve)));
    request.destroy();
    await failed;
    assert.deepEqual(bodyErrors, ['AbortError']);
    const after = await fetch(`${base}/echo`, { method: 'POST', body: 'ok' });
    assert.equal(after.status, 200);
  });

  test('a disconnect before a plug-in route answers is survived too', async () => {
    const request = http.request(`${base}/pay/links`, { method: 'POST', agent: false, headers: { 'content-type': 'application/json', 'content-length': '500' } });
    request.on('error', () => {});
    request.write('{"item":');
    await new Promise<void>((resolve) => request.once('socket', (socket) => socket.once('connect', resolve)));
    request.destroy();
    const health = await fetch(`${base}/pay/orders/PB-NOPE`, { headers: { 'paybutton-status-token': 'x'.repeat(43) } });
    assert.equal(health.status, 404);
  });

  test('a path that is not the plug-in\'s goes on to the next handler, its body unread', async () => {
    const response = await fetch(`${base}/pay/elsewhere`, { method: 'POST', headers: { 'content-type': 'text/plain' }, body: 'still here' });
    assert.deepEqual(await response.json(), { body: 'still here' });
  });
});
