/**
 * Two gateway processes on one PostgreSQL database keep every guarantee: one order per orderNum,
 * one transition per order, and each notification delivered once, never by both at a time.
 * (PostgreSQL only: SQLite is one process's embedded store.)
 */
import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { verify } from '@tombolbayar/protocol/node';
import { merchantClient, uniqueOrderNum } from './support/client.ts';
import { runCli, startGatewayProcess, type GatewayProcess } from './support/cli-process.ts';
import { DATABASE_URL, freshStore } from './support/engines.ts';
import { merchantKeys, platformKeys } from './support/keys.ts';
import { eventually } from './support/receiver.ts';

const MERCHANT = 'M-MULTI-01';

/** A receiver that is slow to answer, and counts how many deliveries of one order overlap. */
async function slowReceiver() {
  const received = new Map<string, number>();
  const inFlight = new Map<string, number>();
  let maxOverlap = 0;
  const server = createServer((req, res) => {
    let body = '';
    req.on('data', (chunk: Buffer) => (body += chunk.toString()));
    req.on('end', () => {
      const fields = Object.fromEntries(new URLSearchParams(body));
      const key = fields.platOrderNum!;
      const now = (inFlight.get(key) ?? 0) + 1;
      inFlight.set(key, now);
      maxOverlap = Math.max(maxOverlap, now);
      const { platSign, ...rest } = fields;
      const signed = verify(rest, platSign, platformKeys().publicKey);
      setTimeout(() => {
        inFlight.set(key, (inFlight.get(key) ?? 1) - 1);
        received.set(key, (received.get(key) ?? 0) + 1);
        res.writeHead(signed ? 200 : 400).end(signed ? 'SUCCESS' : 'bad signature');
      }, 40);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/notify`,
    received,
    maxOverlap: () => maxOverlap,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

test('two gateway processes on one PostgreSQL database', { skip: DATABASE_URL ? false : 'DATABASE_URL is not set' }, async () => {
  const store = freshStore('postgres');
  const keys = merchantKeys('multi');
  const merchantFile = join(store.dataDir, 'merchant-public.pem');
  const platformFile = join(store.dataDir, 'platform-private.pem');
  writeFileSync(merchantFile, keys.publicKey);
  writeFileSync(platformFile, platformKeys().privateKey, { mode: 0o600 });
  const args = [
    '--sandbox', '--time-scale', '0.001', '--platform-key', platformFile, '--merchant', `${MERCHANT}=${merchantFile}`,
    '--database-url', DATABASE_URL!, '--database-schema', (store.database as { schema: string }).schema,
  ];
  const receiver = await slowReceiver();
  const processes: GatewayProcess[] = [];
  try {
    // Both start (and migrate) at the same moment.
    processes.push(...(await Promise.all([
      startGatewayProcess([...args, '--data', join(store.dataDir, 'a')]),
      startGatewayProcess([...args, '--data', join(store.dataDir, 'b')]),
    ])));
    const clients = processes.map((p) => merchantClient(p.url, { merchantCode: MERCHANT, privateKey: keys.privateKey }));
    // Each order below ends paid or failed: the merchant asks for FAILED notifications too (a third
    // process, the CLI, while both servers run: they read the setting in each transaction).
    const updated = await runCli(['merchant', 'update', MERCHANT, '--notify', 'paid,failed,expired', '--database-url', DATABASE_URL!, '--database-schema', (store.database as { schema: string }).schema]);
    assert.equal(updated.code, 0, updated.stderr);

    const orderNum = uniqueOrderNum('MULTI');
    const answers = await Promise.all(Array.from({ length: 20 }, (_, i) => clients[i % 2]!.createVa({ orderNum })));
    assert.equal(answers.filter((a) => a.body.platRespCode === 'SUCCESS').length, 1);
    assert.equal(answers.filter((a) => a.body.platRespCode === 'FAIL').length, 19);

    const orders: Record<string, string>[] = [];
    for (let i = 0; i < 16; i++) orders.push((await clients[i % 2]!.createVa({ notifyUrl: receiver.url })).body);
    const sandbox = (p: GatewayProcess, path: string) => fetch(`${p.url}/sandbox${path}`, { method: 'POST' });
    for (const order of orders) {
      // The same order paid through one process and failed through the other, at once.
      const [paid, failed] = await Promise.all([sandbox(processes[0]!, `/orders/${order.platOrderNum}/pay`), sandbox(processes[1]!, `/orders/${order.platOrderNum}/fail`)]);
      assert.deepEqual([paid.status, failed.status].sort(), [200, 409]);
    }

    await eventually(async () => (orders.every((o) => receiver.received.get(o.platOrderNum!) === 1) ? true : undefined), 30_000, 'every notification');
    await eventually(async () => {
      const log = (await (await fetch(`${processes[1]!.url}/sandbox/deliveries?limit=100`)).json()) as { deliveries: { state: string }[] };
      return log.deliveries.length === 16 && log.deliveries.every((d) => d.state === 'delivered') ? true : undefined;
    }, 30_000, 'every delivery recorded as delivered');
    for (const order of orders) assert.equal(receiver.received.get(order.platOrderNum!), 1, 'delivered exactly once');
    assert.equal(receiver.maxOverlap(), 1, 'no notification was delivered by two processes at the same time');
  } finally {
    await Promise.all(processes.map((p) => p.stop()));
    await receiver.close();
    await store.cleanup();
  }
});
