/**
 * Crashes in the middle of a payment, with real processes killed by SIGKILL:
 *
 * 1. The merchant's server dies between receiving a notification and acknowledging it (its
 *    `onPaid` is running). Restarted on the same store, the gateway's retries reach it and every
 *    order ends paid with exactly one `onPaid` effect.
 * 2. The gateway dies while its deliveries are in flight: some the merchant has not processed yet,
 *    some it has processed (onPaid done) but not yet answered. Restarted as the real CLI on the same
 *    store, it delivers every notification again and the plug-in runs no `onPaid` twice.
 *
 * (crash-recovery.test.ts of the gateway covers a kill with deliveries pending, not in flight.)
 */
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import express from 'express';
import { payButton, type Order, type PayButtonRouter } from '../src/adapters/express.ts';
import { MERCHANT_CODE, merchantKeys, platformKeys } from './support/keys.ts';
import { leakedFragments, send, sqliteProbe, startChild, startGatewayCli, type ChildServer, type MerchantServerConfig } from './hostile-support.ts';
import { testGateway } from './support/sandbox-gateway.ts';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function until<T>(check: () => Promise<T | undefined | false> | T | undefined | false, what: string, timeoutMs = 45_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value !== undefined && value !== false) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(50);
  }
}

/** Lines of the effects file: `enter <orderNum> <attempt>` and `effect <orderNum>`. */
function effects(file: string): string[] {
  try {
    return readFileSync(file, 'utf8').split('\n').filter(Boolean);
  } catch {
    return [];
  }
}

async function createLink(shopUrl: string, idempotencyKey: string): Promise<string> {
  const answer = await send(shopUrl, '/pay/links', { method: 'POST', headers: { 'content-type': 'application/json', origin: shopUrl }, body: JSON.stringify({ idempotencyKey, item: 'kopi', method: 'VA_BCA' }) });
  assert.equal(answer.status, 201, answer.text);
  return answer.json.orderNum as string;
}

test('kill -9 of the merchant server while onPaid runs: after a restart every order is paid, onPaid took effect once', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'pb-crash-merchant-'));
  // Attempts time out later than the hang, so they are cut by the kill and not by the gateway.
  const gateway = testGateway(dir, { notifications: { pollIntervalMs: 50, timeoutMs: 30_000 } });
  let merchant: ChildServer | undefined;
  try {
    const { url: gatewayUrl } = await gateway.listen();
    writeFileSync(join(dir, 'merchant.pem'), merchantKeys().privateKey, { mode: 0o600 });
    writeFileSync(join(dir, 'platform.pub'), platformKeys().publicKey);
    const config: MerchantServerConfig = {
      port: 0,
      gatewayUrl,
      merchantCode: MERCHANT_CODE,
      privateKeyFile: join(dir, 'merchant.pem'),
      platformPublicKeyFile: join(dir, 'platform.pub'),
      databaseFile: join(dir, 'orders.sqlite'),
      effectsFile: join(dir, 'effects.log'),
      hang: true,
      fulfilmentLeaseMs: 1_000,
    };
    merchant = await startChild('runMerchantServer', config);
    const port = Number(new URL(merchant.url).port);
    const orderNums: string[] = [];
    for (let i = 0; i < 3; i++) orderNums.push(await createLink(merchant.url, `crash-merchant-${process.pid}-${i}`));
    for (const orderNum of orderNums) await gateway.pay((await gateway.findOrderByOrderNum(MERCHANT_CODE, orderNum))!.platOrderNum);

    // Every notification has arrived and its onPaid is running: kill the merchant there.
    await until(() => orderNums.every((orderNum) => effects(config.effectsFile).includes(`enter ${orderNum} 1`)), 'onPaid to start for every order');
    await merchant.kill9();
    merchant = undefined;
    assert.deepEqual(effects(config.effectsFile).filter((line) => line.startsWith('effect')), [], 'nothing took effect before the kill');
    for (const orderNum of orderNums) {
      const [delivery] = await gateway.deliveries.list({ orderNum });
      assert.notEqual(delivery!.state, 'delivered', 'the gateway has no acknowledgement');
    }

    merchant = await startChild('runMerchantServer', { ...config, port, hang: false });
    // Time passes on the gateway clock: the retry schedule brings every notification back.
    await until(async () => {
      gateway.clock.advance(60_000);
      const states = await Promise.all(orderNums.map(async (orderNum) => (await gateway.deliveries.list({ orderNum }))[0]!.state));
      return states.every((state) => state === 'delivered');
    }, 'every notification delivered after the restart');

    const lines = effects(config.effectsFile);
    for (const orderNum of orderNums) {
      assert.equal(lines.filter((line) => line === `effect ${orderNum}`).length, 1, `${orderNum} took effect exactly once`);
      assert.ok(lines.includes(`enter ${orderNum} 2`), 'onPaid ran again after the crash, as attempt 2');
    }
    const store = sqliteProbe(config.databaseFile);
    try {
      assert.equal(await store.count('tombolbayar_orders', "status = 'paid' AND fulfilled_at IS NOT NULL"), 3);
    } finally {
      await store.close();
    }
  } finally {
    await merchant?.kill9();
    await gateway.close();
    rmSync(dir, { recursive: true, force: true });
  }
});

test('kill -9 of the gateway with deliveries in flight: after a restart of the CLI every notification is delivered, onPaid once', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'pb-crash-gateway-'));
  const dataDir = join(dir, 'gateway');
  const merchantPublicKeyFile = join(dir, 'merchant.pub');
  writeFileSync(merchantPublicKeyFile, merchantKeys().publicKey);
  // The CLI's own file names, so that the restarted CLI finds the store and the key.
  mkdirSync(dataDir, { recursive: true });
  writeFileSync(join(dataDir, 'platform-private.pem'), platformKeys().privateKey, { mode: 0o600 });

  let gateway: ChildServer | undefined;
  const server = http.createServer();
  let router: PayButtonRouter | undefined;
  try {
    gateway = await startChild('runGatewayServer', { port: 0, dataDir, merchantCode: MERCHANT_CODE, merchantPublicKeyFile });
    const gatewayUrl = gateway.url;
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const shopUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    const fulfilled: string[] = [];
    router = payButton({
      logger: false,
      selfCheck: false,
      gatewayUrl,
      merchantCode: MERCHANT_CODE,
      privateKey: merchantKeys().privateKey,
      platformPublicKey: platformKeys().publicKey,
      publicUrl: shopUrl,
      database: { kind: 'sqlite', file: join(dir, 'orders.sqlite') },
      rateLimit: false,
      statusRefreshMs: false,
      quote: () => ({ payMoney: 150_000, productDetail: 'Kopi Gayo 250g', name: 'Budi Santoso', email: 'budi@example.com', phone: '081234567890' }),
      onPaid: (order) => {
        fulfilled.push(order.orderNum);
      },
    });
    // Notifications 1-2 are held before the plug-in sees them; 3-4 are processed (onPaid runs)
    // but their answer never leaves; the rest pass. Only while `holding`.
    let holding = true;
    let arrivals = 0;
    let heldBefore = 0;
    let heldAfter = 0;
    const app = express();
    app.post('/pay/notify', (_req, res, next) => {
      if (!holding) return next();
      arrivals += 1;
      if (arrivals <= 2) {
        heldBefore += 1;
        return; // never answered: the gateway's attempt stays in flight
      }
      if (arrivals <= 4) {
        res.end = (() => {
          heldAfter += 1;
          return res;
        }) as never;
      }
      next();
    });
    app.use('/pay', router);
    server.on('request', app);

    const orderNums: string[] = [];
    for (let i = 0; i < 5; i++) orderNums.push(await createLink(shopUrl, `crash-gateway-${process.pid}-${i}`));
    for (const orderNum of orderNums) {
      const { platOrderNum } = (await router!.getOrder(orderNum))!;
      const paid = await send(gatewayUrl, `/sandbox/orders/${platOrderNum}/pay`, { method: 'POST' });
      assert.equal(paid.status, 200, paid.text);
    }
    // Two attempts wait for an answer the plug-in never saw, two for one it will never send, one
    // went through: kill the gateway there.
    await until(() => heldBefore === 2 && heldAfter === 2 && fulfilled.length === 3, 'the deliveries in flight');
    await until(async () => {
      const log = await send(gatewayUrl, '/sandbox/deliveries');
      return log.json.deliveries.filter((delivery: { state: string }) => delivery.state === 'delivered').length === 1;
    }, 'the one delivery that went through to be recorded');
    await gateway.kill9();
    gateway = undefined;
    holding = false;

    gateway = await startGatewayCli(['--sandbox', '--time-scale', '0.01', '--data', dataDir, '--merchant', `${MERCHANT_CODE}=${merchantPublicKeyFile}`, '--port', new URL(gatewayUrl).port]);
    const restarted = gateway.url;
    // No clock trick: the rows the killed process held come free when its leases end (real time).
    await until(async () => {
      const log = await send(restarted, '/sandbox/deliveries');
      const states = log.json.deliveries.map((delivery: { state: string }) => delivery.state);
      return states.length === 5 && states.every((state: string) => state === 'delivered');
    }, 'every notification delivered by the restarted CLI');

    assert.deepEqual([...fulfilled].sort(), [...orderNums].sort(), 'onPaid ran exactly once per order');
    for (const orderNum of orderNums) {
      const stored: Order | undefined = await router!.getOrder(orderNum);
      assert.equal(stored?.status, 'paid');
      assert.ok(stored?.fulfilledAt);
    }
    const log = await send(restarted, '/sandbox/deliveries');
    const redelivered = log.json.deliveries.filter((delivery: { attempts: unknown[] }) => delivery.attempts.length >= 1);
    assert.equal(redelivered.length, 5, 'every notification has its acknowledged attempt on record');
    assert.deepEqual(leakedFragments(gateway.output(), platformKeys().privateKey, platformKeys().publicKey), [], "no platform key in the CLI's output");
    assert.equal(await gateway.stop(), 0, 'the CLI shuts down cleanly');
    gateway = undefined;
  } finally {
    await gateway?.kill9();
    await router?.close();
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
    rmSync(dir, { recursive: true, force: true });
  }
});
