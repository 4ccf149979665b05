/**
 * "A crash loses nothing": a gateway process killed with SIGKILL while notifications are pending
 * (some failing and waiting for a retry, some not yet tried) delivers every one after a restart on
 * the same store. Run against the real CLI, on SQLite and on PostgreSQL.
 */
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { merchantClient } from './support/client.ts';
import { startGatewayProcess, type GatewayProcess } from './support/cli-process.ts';
import { ENGINES, freshStore } from './support/engines.ts';
import { merchantKeys } from './support/keys.ts';
import { eventually, startReceiver } from './support/receiver.ts';

const MERCHANT = 'M-CRASH-01';

async function sandboxCall(base: string, method: string, path: string, body?: unknown) {
  const response = await fetch(`${base}/sandbox${path}`, {
    method,
    ...(body === undefined ? {} : { headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) }),
  });
  return (await response.json()) as Record<string, any>;
}

for (const engine of ENGINES) {
  test(`kill -9 with deliveries pending, restart, every notification is delivered (${engine})`, async () => {
    const store = freshStore(engine);
    const keys = merchantKeys('crash');
    const publicKeyFile = join(store.dataDir, 'merchant-public.pem');
    writeFileSync(publicKeyFile, keys.publicKey);
    // Real retry delays (12 s and more after a failure), so the kill falls between attempts: leases
    // are on real time, and a lease held by the killed process would hold its row for 60 s.
    const args = ['--sandbox', '--time-scale', '1', '--data', store.dataDir, '--merchant', `${MERCHANT}=${publicKeyFile}`];
    if (store.database.kind === 'postgres') args.push('--database-url', store.database.url, '--database-schema', store.database.schema!);

    const receiver = await startReceiver(() => ({ status: 503, body: 'maintenance' }));
    let gateway: GatewayProcess | undefined;
    try {
      gateway = await startGatewayProcess(args);
      const client = merchantClient(gateway.url, { merchantCode: MERCHANT, privateKey: keys.privateKey });
      const orderNums: string[] = [];
      // Three notifications fail and wait for their retry, two have not been tried at all.
      for (let i = 0; i < 5; i++) {
        const created = await client.createVa({ notifyUrl: receiver.url, orderNum: `CRASH-${engine}-${i}` });
        assert.equal(created.body.platRespCode, 'SUCCESS', created.body.platRespMessage);
        if (i >= 3) {
          await sandboxCall(gateway.url, 'PUT', `/faults/${MERCHANT}/orders/${created.body.orderNum}`, { notifications: { delayMs: 3_600_000 } });
        }
        const paid = await sandboxCall(gateway.url, 'POST', `/orders/${created.body.platOrderNum}/pay`);
        assert.equal(paid.order.status, 'PAID');
        orderNums.push(created.body.orderNum!);
      }
      const base = gateway.url;
      await eventually(async () => {
        const log = await sandboxCall(base, 'GET', '/deliveries');
        const tried = log.deliveries.filter((d: any) => d.attempts.length > 0);
        return tried.length >= 3 ? true : undefined;
      }, 30_000, 'first attempts');
      await gateway.kill9();

      receiver.answer(() => ({ status: 200, body: 'SUCCESS' }));
      gateway = await startGatewayProcess(args);
      const restarted = gateway.url;
      // Past every retry time and the delay fault (the gateway clock; leases are not on it).
      await sandboxCall(restarted, 'POST', '/clock/advance', { minutes: 120 });
      for (const orderNum of orderNums) {
        await eventually(async () => {
          const log = await sandboxCall(restarted, 'GET', `/deliveries?orderNum=${orderNum}`);
          return log.deliveries[0]?.state === 'delivered' ? true : undefined;
        }, 30_000, `delivery of ${orderNum}`);
        const acknowledged = receiver.received.filter((r) => r.fields.orderNum === orderNum && r.fields.code === '00');
        assert.ok(acknowledged.length >= 1, `${orderNum} reached the merchant`);
      }
      assert.equal(await gateway.stop(), 0, 'SIGTERM shuts down cleanly');
      gateway = undefined;
    } finally {
      if (gateway) await gateway.kill9();
      await receiver.close();
      await store.cleanup();
    }
  });
}
