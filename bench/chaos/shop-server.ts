/**
 * The chaos run's shop, in its own process: Express with `payButton()` at `/pay` on a fixed port,
 * its store from CHAOS_SHOP (JSON), the sweep on short intervals. `onPaid` takes 50-500 ms under a
 * 1 s lease (so heartbeats and take-overs happen) and appends the order number and the time to a
 * file as its one side effect (a write per run, so a kill -9 loses none already made): the runner
 * counts them for the exactly-once tally.
 */
import { appendFileSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';
import express from 'express';
import { payButton, type PayButtonOptions } from '@tombolbayar/express';

interface Config {
  readonly port: number;
  readonly publicUrl: string;
  readonly gatewayUrl: string;
  readonly database: PayButtonOptions['database'];
  readonly merchantCode: string;
  readonly merchantPrivateKey: string;
  readonly platformPublicKey: string;
  readonly onPaidLog: string;
  /** Where `fulfilment.unrecorded` and `fulfilment.lease_lost` are written, one line each. */
  readonly eventLog: string;
}

const config = JSON.parse(process.env.CHAOS_SHOP ?? '') as Config;
const pay = payButton({
  gatewayUrl: config.gatewayUrl,
  merchantCode: config.merchantCode,
  privateKey: config.merchantPrivateKey,
  platformPublicKey: config.platformPublicKey,
  publicUrl: config.publicUrl,
  database: config.database!,
  rateLimit: false,
  timeoutMs: 3_000,
  totalTimeoutMs: 8_000,
  sweep: { intervalMs: 500, firstCheckAfterMs: 1_000, maxCheckIntervalMs: 3_000, queriesPerSecond: 200 },
  // A lease a slow onPaid outlives unless its heartbeat renews it: leases are exercised.
  fulfilmentLeaseMs: 1_000,
  quote: () => ({ payMoney: 150_000, productDetail: 'Kopi Gayo 250 g', name: 'Budi Santoso', email: 'budi@example.co.id', phone: '081234567890' }),
  onPaid: async (order, context) => {
    // A fulfilment backend that takes 50-500 ms, committing only while the run holds its lease.
    await sleep(50 + Math.random() * 450);
    if (context.signal.aborted) throw new Error(`onPaid for ${order.orderNum} lost its lease: not committed`);
    appendFileSync(config.onPaidLog, `${order.orderNum} ${context.attempt} ${context.source} ${process.pid} ${Date.now()}\n`);
  },
});
for (const name of ['fulfilment.unrecorded', 'fulfilment.lease_lost'] as const) {
  pay.on(name, (event) => appendFileSync(config.eventLog, `${name} ${event.orderNum} ${event.attempt} ${process.pid}\n`));
}
const app = express();
app.get('/healthz', (_req, res) => void res.json({ status: 'ok' }));
app.get('/readyz', pay.health());
app.use('/pay', pay);
const server = app.listen(config.port, '127.0.0.1', () => process.send?.({ type: 'listening', url: `http://127.0.0.1:${config.port}` }));
server.keepAliveTimeout = 5_000;
