/**
 * The Express adapter's conversions (`src/adapters/node-request.ts`) over real HTTP: the body reaches
 * the core byte for byte, read whole (`readBody`) or as a stream (what `/notify` verifies its
 * signature over), repeated request headers survive, the core's answers are written as made, a
 * client that disconnects mid-body crashes nothing,
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
import { answer, clientGone } from '../src/http/answer.ts';
import { toRequest, writeAnswer } from '../src/adapters/node-request.ts';
import { payButton, type PayButtonRouter } from '../src/adapters/express.ts';
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
      const max = Number(req.query.max ?? Infinity);
      const bytes = req.query.via === 'stream' ? Buffer.from(await new Response(request.body).arrayBuffer()) : await request.readBody!(max);
      if (bytes === undefined) return void res.status(413).json({ tooLarge: true });
      res.json({ hex: bytes.toString('hex'), url: request.url, accept: request.headers.get('x-repeated') });
    } catch (error) {
      bodyErrors.push((error as Error).name);
      sawError();
    }
  });
  app.get('/answer', (req, res) => writeAnswer(answer(202, 'accepted', { 'X-Kept': 'yes', 'Cache-Control': 'no-store' }), req, res));
  app.get('/gone', (req, res) => writeAnswer(clientGone(), req, res));
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
  for (const via of ['whole', 'stream']) {
    test(`read ${via}: the body arrives byte for byte (Latin-1, invalid UTF-8, every byte value), with the full URL`, async () => {
      const bytes = Buffer.concat([Buffer.from('name=Jos\xe9&x=', 'latin1'), Buffer.from(Array.from({ length: 256 }, (_, index) => index)), Buffer.from([0xc3, 0x28])]);
      const response = await fetch(`${base}/echo?via=${via}`, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: bytes });
      const echoed = (await response.json()) as { hex: string; url: string };
      assert.equal(echoed.hex, bytes.toString('hex'));
      assert.equal(echoed.url, `${base}/echo?via=${via}`);
    });

    test(`read ${via}: a large body in many chunks arrives whole`, async () => {
      const bytes = Buffer.alloc(1024 * 1024, 7);
      const response = await fetch(`${base}/echo?via=${via}`, { method: 'POST', body: bytes });
      assert.equal(((await response.json()) as { hex: string }).hex, bytes.toString('hex'));
    });

    test(`read ${via}: a client that disconnects mid-body: the read fails as aborted, nothing crashes, the next request is served`, async () => {
      const failed = new Promise<void>((resolve) => (sawError = resolve));
      const request = http.request(`${base}/echo?via=${via}`, { method: 'POST', agent: false, headers: { 'content-length': '1000' } });
      request.on('error', () => {});
      request.write('partial');
      await new Promise<void>((resolve) => request.once('socket', (socket) => socket.once('connect', resolve)));
      request.destroy();
      await failed;
      assert.deepEqual(bodyErrors.splice(0), ['AbortError']);
      const after = await fetch(`${base}/echo?via=${via}`, { method: 'POST', body: 'ok' });
      assert.equal(after.status, 200);
    });
  }

  test('read whole: past its limit the read gives up, the rest is drained, and the answer still reaches the client on the same connection', async () => {
    const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
    const post = (path: string, body: Buffer) =>
      new Promise<{ status: number; text: string }>((resolve, reject) => {
        const request = http.request(`${base}${path}`, { method: 'POST', agent }, (res) => {
          let text = '';
          res.setEncoding('utf8').on('data', (chunk: string) => (text += chunk)).on('end', () => resolve({ status: res.statusCode!, text }));
        });
        request.on('error', reject).end(body);
      });
    const refused = await post('/echo?max=1000', Buffer.alloc(256 * 1024, 1));
    assert.deepEqual([refused.status, JSON.parse(refused.text)], [413, { tooLarge: true }]);
    const next = await post('/echo?max=1000', Buffer.from('small'));
    assert.equal(next.status, 200);
    assert.equal((JSON.parse(next.text) as { hex: string }).hex, Buffer.from('small').toString('hex'));
    agent.destroy();
  });

  test('an answer is written as the core made it; a client gone has its connection ended', async () => {
    const written = await fetch(`${base}/answer`);
    assert.equal(written.status, 202);
    assert.equal(written.headers.get('x-kept'), 'yes');
    assert.equal(written.headers.get('cache-control'), 'no-store');
    assert.equal(await written.text(), 'accepted');
    await assert.rejects(fetch(`${base}/gone`), TypeError);
  });

  test('repeated request headers are kept', async () => {
    const repeated = await new Promise<string | null>((resolve, reject) => {
      const request = http.request(`${base}/echo`, { method: 'POST', headers: { 'x-repeated': ['one', 'two'] } }, (res) => {
        let text = '';
        res.setEncoding('utf8').on('data', (chunk: string) => (text += chunk)).on('end', () => resolve((JSON.parse(text) as { accept: string | null }).accept));
      });
      request.on('error', reject).end('x');
    });
    assert.equal(repeated, 'one, two');
  });

  test('a disconnect before a plug-in route answers is survived too', async () => {
    const request = http.request(`${base}/pay/links`, { method: 'POST', agent: false, headers: { 'content-type': 'application/json', 'content-length': '500' } });
    request.on('error', () => {});
    request.write('{"item":');
    await new Promise<void>((resolve) => request.once('socket', (socket) => socket.once('connect', resolve)));
    request.destroy();
    const health = await fetch(`${base}/pay/orders/PB-NOPE`, { headers: { 'tombolbayar-status-token': 'x'.repeat(43) } });
    assert.equal(health.status, 404);
  });

  test('a path that is not the plug-in\'s goes on to the next handler, its body unread', async () => {
    const response = await fetch(`${base}/pay/elsewhere`, { method: 'POST', headers: { 'content-type': 'text/plain' }, body: 'still here' });
    assert.deepEqual(await response.json(), { body: 'still here' });
  });
});
