/**
 * What the request's `Host` header must never decide, and what the return routes must never tell:
 * - the browser routes' origin check compares `Origin` with the configured `publicUrl` and
 *   `allowedOrigins` only (a `Host: evil.example` with a matching `Origin` is DNS rebinding);
 * - `returnTo` is checked against the configured origins only, so no redirect leaves the shop;
 * - `/return` and `/return/continue` answer the same for an unknown order and for someone else's;
 * - the order store's folder and file are private (0700 / 0600).
 *
 * On SQLite and, when DATABASE_URL is set, on PostgreSQL (the file modes are SQLite's own).
 */
import assert from 'node:assert/strict';
import { chmodSync, mkdirSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import http from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, afterEach, describe, test } from 'node:test';
import { returnToken } from '../src/orders/callback-urls.ts';
import { createStore } from '../src/store/index.ts';
import { DEFAULT_SQLITE_FILE } from '../src/store/database.ts';
import { ENGINES, type EngineFixture } from './support/engines.ts';
import { startHarness, newKey, type Harness, type HarnessOptions } from './support/harness.ts';

let shop: Harness | undefined;
const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  await shop?.close();
  shop = undefined;
});
after(async () => {
  for (const cleanup of cleanups) await cleanup();
});

/** A shop whose order store is a fresh database of `engine`. */
async function startOn(engine: EngineFixture, setup: HarnessOptions = {}): Promise<Harness> {
  const { option, cleanup } = await engine.fresh();
  cleanups.push(cleanup);
  return startHarness({ ...setup, database: option });
}

/** A raw request with a Host header of our choosing (fetch does not allow setting it). */
function request(base: string, path: string, options: { method?: string; headers?: Record<string, string>; body?: string } = {}): Promise<{ status: number; headers: http.IncomingHttpHeaders; text: string }> {
  const url = new URL(path, base);
  return new Promise((resolve, reject) => {
    const req = http.request(
      { host: url.hostname, port: url.port, path: `${url.pathname}${url.search}`, method: options.method ?? 'GET', headers: options.headers },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, text: Buffer.concat(chunks).toString('utf8') }));
      },
    );
    req.on('error', reject);
    req.end(options.body);
  });
}

for (const engine of ENGINES) {
  describe(`the Host header decides nothing (${engine.name})`, () => {
    test('Host: evil.example with a matching Origin cannot create orders (DNS rebinding)', async () => {
      shop = await startOn(engine);
      const answer = await request(shop.merchantUrl, '/pay/links', {
        method: 'POST',
        headers: { host: 'evil.example', origin: 'http://evil.example', 'content-type': 'application/json' },
        body: JSON.stringify({ item: 'kopi', idempotencyKey: newKey() }),
      });
      assert.equal(answer.status, 403, answer.text);
      assert.equal(JSON.parse(answer.text).error.code, 'origin_not_allowed');
      assert.equal(shop.eventsNamed('order.transition').length, 0, 'no order stored');
    });

    test('returnTo on the Host-derived origin is refused, and no return ever redirects off the shop', async () => {
      shop = await startOn(engine);
      const refused = await request(shop.merchantUrl, '/pay/links', {
        method: 'POST',
        headers: { host: 'evil.example', 'content-type': 'application/json' },
        body: JSON.stringify({ item: 'kopi', idempotencyKey: newKey(), returnTo: 'http://evil.example/phish' }),
      });
      assert.equal(refused.status, 400, refused.text);
      assert.equal(JSON.parse(refused.text).error.issues[0].field, 'returnTo');

      // A Referer on the Host-derived origin is ignored: the return goes to the shop's root.
      const created = await request(shop.merchantUrl, '/pay/links', {
        method: 'POST',
        headers: { host: 'evil.example', referer: 'http://evil.example/phish', 'content-type': 'application/json' },
        body: JSON.stringify({ item: 'kopi', idempotencyKey: newKey() }),
      });
      assert.equal(created.status, 201, created.text);
      const { orderNum, statusToken } = JSON.parse(created.text) as { orderNum: string; statusToken: string };
      const back = await request(shop.merchantUrl, `/pay/return/continue?order=${orderNum}&rt=${returnToken(statusToken)}`, { headers: { host: 'evil.example' } });
      assert.equal(back.status, 303);
      assert.equal(new URL(back.headers.location!).origin, shop.merchantUrl);
    });

    test('allowedOrigins still get CORS, the status token header included', async () => {
      shop = await startOn(engine, { options: { allowedOrigins: ['https://checkout.shop.example'] } });
      const preflight = await request(shop.merchantUrl, '/pay/orders/PB123', {
        method: 'OPTIONS',
        headers: { origin: 'https://checkout.shop.example', 'access-control-request-method': 'GET', 'access-control-request-headers': 'tombolbayar-status-token' },
      });
      assert.equal(preflight.status, 204);
      assert.match(String(preflight.headers['access-control-allow-headers']), /Tombolbayar-Status-Token/);
    });
  });

  describe(`the return routes tell nothing about other orders (${engine.name})`, () => {
    test('an unknown order and someone else\'s order (no or a wrong rt) get the same answer', async () => {
      shop = await startOn(engine);
      const created = await shop.createLink({ item: 'kopi' });
      const { orderNum, statusToken } = created.body as { orderNum: string; statusToken: string };
      for (const route of ['/pay/return', '/pay/return/continue']) {
        const unknown = await request(shop.merchantUrl, `${route}?order=PBNOSUCHORDER00000`);
        const noSecret = await request(shop.merchantUrl, `${route}?order=${orderNum}`);
        const wrongSecret = await request(shop.merchantUrl, `${route}?order=${orderNum}&rt=${'A'.repeat(22)}`);
        for (const answer of [noSecret, wrongSecret]) {
          assert.equal(answer.status, unknown.status, route);
          assert.equal(answer.text, unknown.text, route);
          assert.equal(answer.headers.location, undefined);
        }
        assert.equal(unknown.status, 404);
        const own = await request(shop.merchantUrl, `${route}?order=${orderNum}&rt=${returnToken(statusToken)}`);
        assert.ok([200, 303].includes(own.status), `${route}: ${own.status}`);
      }
    });
  });
}

describe('the order store is private', () => {
  test('a folder it creates is 0700 and the SQLite file 0600 (and so its -wal and -shm)', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'pb-perm-'));
    try {
      const file = join(dir, 'data', 'orders.sqlite');
      shop = await startHarness({ database: { kind: 'sqlite', file } });
      await shop.createLink({ item: 'kopi' });
      assert.equal(statSync(join(dir, 'data')).mode & 0o777, 0o700);
      for (const path of [file, `${file}-wal`, `${file}-shm`]) assert.equal(statSync(path).mode & 0o777, 0o600, path);
    } finally {
      await shop?.close();
      shop = undefined;
      rmSync(dir, { recursive: true, force: true });
    }
  });

  test('its own default folder (.tombolbayar), left 0755 by an older version, is tightened to 0700; a folder the merchant chose is left as it is', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'pb-perm-'));
    const cwd = process.cwd();
    try {
      mkdirSync(join(dir, '.tombolbayar'), { mode: 0o755 });
      chmodSync(join(dir, '.tombolbayar'), 0o755);
      mkdirSync(join(dir, 'chosen'), { mode: 0o755 });
      chmodSync(join(dir, 'chosen'), 0o755);
      process.chdir(dir);
      for (const file of [DEFAULT_SQLITE_FILE, join('chosen', 'orders.sqlite')]) {
        const store = createStore({ kind: 'sqlite', file });
        await store.migrate();
        await store.close();
      }
      assert.equal(statSync(join(dir, '.tombolbayar')).mode & 0o777, 0o700);
      assert.equal(statSync(join(dir, DEFAULT_SQLITE_FILE)).mode & 0o777, 0o600);
      assert.equal(statSync(join(dir, 'chosen')).mode & 0o777, 0o755, 'not the plug-in\'s folder');
      assert.equal(statSync(join(dir, 'chosen', 'orders.sqlite')).mode & 0o777, 0o600);
    } finally {
      process.chdir(cwd);
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
