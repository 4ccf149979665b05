/**
 * Issue 25 on the plug-in: `health()` for the merchant's probes, a store that is down answered
 * `503 store_unavailable` with `Retry-After` (and served once it is up), and load shedding past
 * `maxInFlight`.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import http from 'node:http';
import net from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import express from 'express';
import { payButton, type PayButtonRouter } from '../src/adapters/express.ts';
import { newKey, startHarness, waitFor, type Harness } from './support/harness.ts';
import { validOptions } from './support/options.ts';

async function serve(app: express.Express): Promise<{ url: string; close: () => Promise<void> }> {
  const server = http.createServer(app);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as net.AddressInfo).port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

describe('health() and a store that is down', () => {
  const dir = mkdtempSync(join(tmpdir(), 'pb-health-'));
  let router: PayButtonRouter | undefined;
  let server: Awaited<ReturnType<typeof serve>> | undefined;
  after(async () => {
    await server?.close();
    await router?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('answers 503 with Retry-After while PostgreSQL is unreachable, never a crash or a 500', async () => {
    // Nothing listens on port 1: every connection is refused.
    router = payButton(validOptions(dir, { database: { kind: 'postgres', url: 'postgres://postgres@127.0.0.1:1/none', connectTimeoutMs: 500 }, rateLimit: false }));
    const app = express();
    app.get('/readyz', router.health());
    app.use('/pay', router);
    server = await serve(app);
    const ready = await fetch(`${server.url}/readyz`);
    assert.equal(ready.status, 503);
    assert.equal(ready.headers.get('retry-after'), '5');
    const readiness = (await ready.json()) as { status: string; database: string };
    assert.deepEqual([readiness.status, readiness.database], ['unavailable', 'unavailable']);
    const created = await fetch(`${server.url}/pay/links`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', origin: 'https://shop.example' },
      body: JSON.stringify({ item: 'kopi', idempotencyKey: newKey() }),
    });
    assert.equal(created.status, 503);
    assert.ok(Number(created.headers.get('retry-after')) > 0);
    const body = (await created.json()) as { error: { code: string; retryable: boolean } };
    assert.equal(body.error.code, 'store_unavailable');
    assert.equal(body.error.retryable, true);
    assert.doesNotMatch(JSON.stringify(body), /ECONNREFUSED|127\.0\.0\.1|postgres/);
  });
});

describe('health() and load shedding on a working shop', () => {
  let harness: Harness;
  let server: Awaited<ReturnType<typeof serve>> | undefined;
  after(async () => {
    await server?.close();
    await harness?.close();
  });

  it('health() is 200 when the store answers; past maxInFlight a request is refused at once with 503 overloaded, and other paths go on to the app', async () => {
    harness = await startHarness({ options: { maxInFlight: 1 } });
    const app = express();
    app.get('/readyz', harness.router.health());
    server = await serve(app);
    const ready = await fetch(`${server.url}/readyz`);
    assert.equal(ready.status, 200);
    const readiness = (await ready.json()) as { load: Record<string, unknown> };
    assert.deepEqual({ ...readiness, load: { ...readiness.load, eventLoopDelayMs: 0 } }, { status: 'ready', database: 'ok', load: { state: 'ok', inFlight: 0, reading: 0, shed: 0, eventLoopDelayMs: 0 } });

    // One request held open (its body never ends) is all this client may have open (its cap is
    // maxInFlight); it takes no work slot from other clients (contract/slow-clients.test.ts).
    const { port } = new URL(harness.merchantUrl);
    const held = net.connect(Number(port), '127.0.0.1');
    held.write(`POST /pay/links HTTP/1.1\r\nHost: x\r\nOrigin: ${harness.merchantUrl}\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{`);
    const shed = await waitFor(async () => {
      const response = await harness.createLink();
      return response.status === 503 ? response : undefined;
    }, 'a request of the same client refused while its slow one is open');
    assert.equal(shed.headers.get('retry-after'), '1');
    const saturated = await fetch(`${server.url}/readyz`);
    assert.equal(saturated.status, 503);
    assert.equal(((await saturated.json()) as { status: string }).status, 'saturated');
    assert.equal(shed.body.error.code, 'overloaded');
    assert.equal(shed.body.error.retryable, true);
    // A path that is not the plug-in's still goes on to the app (its 404 here), busy or not.
    const elsewhere = await fetch(`${harness.merchantUrl}/pay/not-ours`);
    assert.equal(elsewhere.status, 404);
    assert.notEqual((await elsewhere.text()).includes('overloaded'), true);
    held.destroy();
    const next = await waitFor(async () => {
      const response = await harness.createLink();
      return response.status === 201 ? response : undefined;
    }, 'a link once the slot is free');
    assert.equal(next.status, 201);
  });
});
