/**
 * What each adapter owes its framework beyond the shared contract: Hono's client address option
 * and a middleware that read the body first; Fastify's `trustProxy`, its parsers kept for the
 * merchant's own routes (the plugin is encapsulated), a Content-Type Fastify cannot parse left to
 * the core, and `app.close()` closing the plug-in. `quote` gets the framework's own request.
 */
import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, test } from 'node:test';
import { createAdaptorServer } from '@hono/node-server';
import Fastify, { type FastifyInstance, type FastifyRequest } from 'fastify';
import { Hono, type Context } from 'hono';
import { payButtonFastify } from '../../src/adapters/fastify.ts';
import { payButtonHono } from '../../src/adapters/hono.ts';
import type { PayButtonOptions } from '../../src/options.ts';
import { createPayButton } from '../../src/core.ts';
import { ENGINES } from '../support/engines.ts';
import { newKey } from '../support/harness.ts';
import { MERCHANT_CODE, merchantKeys, platformKeys } from '../support/keys.ts';
import { partitionOf, startSandbox, type SandboxGateway } from './shop.ts';

let sandbox: SandboxGateway;
let cleanups: Array<() => Promise<void>> = [];
before(async () => {
  sandbox = await startSandbox();
});
after(async () => {
  for (const cleanup of cleanups.reverse()) await cleanup();
  cleanups = [];
  await sandbox.close();
});

/** Options with a fresh SQLite store; `natives` collects what `quote` was given. */
async function options<Native>(baseUrl: string, natives: unknown[]): Promise<PayButtonOptions<Native>> {
  const store = await ENGINES[0]!.fresh();
  cleanups.push(store.cleanup);
  return {
    gatewayUrl: sandbox.url, merchantCode: MERCHANT_CODE, privateKey: merchantKeys().privateKey, platformPublicKey: platformKeys().publicKey,
    publicUrl: baseUrl, database: store.option, logger: false, selfCheck: false,
    quote: (native) => {
      natives.push(native);
      return { payMoney: 50_000, productDetail: 'Teh Tarik', name: 'Budi Santoso', email: 'budi@example.com', phone: '081234567890' };
    },
    onPaid: () => {},
  };
}

async function listening(server: http.Server): Promise<string> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  cleanups.push(() => new Promise<void>((resolve) => {
    server.close(() => resolve());
    server.closeAllConnections();
  }));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

const createLink = (baseUrl: string, headers: Record<string, string> = {}) =>
  fetch(`${baseUrl}/pay/links`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', origin: baseUrl, ...headers },
    body: JSON.stringify({ item: 'teh', idempotencyKey: newKey() }),
  });

describe('Hono', () => {
  test('quote gets the Context; clientAddress chooses the bucket; a middleware that read the body first is no harm', async () => {
    const app = new Hono();
    // A merchant's middleware that reads every JSON body before the routes.
    app.use('*', async (c, next) => {
      if (c.req.method === 'POST') await c.req.json().catch(() => undefined);
      await next();
    });
    const baseUrl = await listening(createAdaptorServer({ fetch: app.fetch }) as http.Server);
    const natives: unknown[] = [];
    const pay = createPayButton<Context>(await options(baseUrl, natives));
    cleanups.push(() => pay.close());
    app.route('/pay', payButtonHono(pay, { clientAddress: (c) => c.req.header('x-test-client') }));

    const created = await createLink(baseUrl, { 'x-test-client': '198.51.100.7' });
    assert.equal(created.status, 201, await created.clone().text());
    assert.match(created.headers.get('ratelimit-policy') ?? '', new RegExp(`pk=:${partitionOf('198.51.100.7')}:$`));
    const context = natives[0] as Context;
    assert.equal(typeof context.req.header, 'function', 'quote got Hono\'s Context');

    // A client gone before its request was worked on: no network error to send, nothing logged as a 500.
    const gone = new AbortController();
    gone.abort();
    const answer = await app.request(`${baseUrl}/pay/orders/PBNOSUCHORDER00000`, { signal: gone.signal });
    assert.deepEqual([answer.status, await answer.text()], [503, '']);
  });
});

test('a wrong argument is refused at once, naming what to pass', async () => {
  assert.throws(() => payButtonHono({} as never), /payButtonHono: pass what createPayButton\(\{ \.\.\. \}\) from @tombolbayar\/server returned/);
  const app = Fastify();
  app.register(payButtonFastify, { prefix: '/pay' } as never);
  await assert.rejects(async () => { await app.ready(); }, /payButtonFastify: pass \{ payButton: createPayButton/);
});

describe('Fastify', () => {
  let app: FastifyInstance;
  let baseUrl: string;
  let pay: ReturnType<typeof createPayButton<FastifyRequest>>;
  const natives: unknown[] = [];
  before(async () => {
    const server = http.createServer();
    baseUrl = await listening(server);
    app = Fastify({ trustProxy: '127.0.0.1', serverFactory: (handler) => server.on('request', handler) });
    pay = createPayButton<FastifyRequest>(await options(baseUrl, natives));
    await app.register(payButtonFastify, { prefix: '/pay', payButton: pay });
    app.post('/api/echo', async (request) => ({ got: request.body }));
    await app.ready();
  });

  test('request.ip (with the app\'s trustProxy) is the client; quote gets the FastifyRequest', async () => {
    const created = await createLink(baseUrl, { 'x-forwarded-for': '203.0.113.50' });
    assert.equal(created.status, 201, await created.clone().text());
    assert.match(created.headers.get('ratelimit-policy') ?? '', new RegExp(`pk=:${partitionOf('203.0.113.50')}:$`));
    assert.equal((natives[0] as FastifyRequest).ip, '203.0.113.50');
  });

  test('encapsulated: the app\'s own routes keep their JSON parser; a Content-Type Fastify cannot parse is the core\'s to answer', async () => {
    const echo = await fetch(`${baseUrl}/api/echo`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"a":1}' });
    assert.deepEqual(await echo.json(), { got: { a: 1 } });
    const notify = await fetch(`${baseUrl}/pay/notify`, { method: 'POST', headers: { 'content-type': 'not a type' }, body: 'orderNum=x' });
    assert.match(await notify.text(), /^REJECTED /, 'the gateway gets the plug-in\'s answer, not Fastify\'s');
  });

  test('a fastify-plugin: named for hasPlugin(), made for Fastify 5.x (an older Fastify is told at register())', () => {
    assert.equal(app.hasPlugin('@tombolbayar/server'), true);
    assert.equal((payButtonFastify as unknown as Record<symbol, { fastify?: string; encapsulate?: boolean }>)[Symbol.for('plugin-meta')]?.fastify, '5.x');
    assert.equal((payButtonFastify as unknown as Record<symbol, boolean>)[Symbol.for('skip-override')], false, 'encapsulated');
  });

  test('app.close() closes the plug-in', async () => {
    await app.close();
    await assert.rejects(pay.getOrder('PBNOSUCHORDER00000'));
  });
});
