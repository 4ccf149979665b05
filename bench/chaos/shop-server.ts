/**
 * The chaos run's shop, in its own process: Express with `payButton()` at `/pay` on a fixed port,
 * its store from CHAOS_SHOP (JSON), the sweep on short intervals. Every `onPaid` run appends the
 * order number to a file (a write per run, so a kill -9 loses none already made): the runner
 * counts them for the exactly-once tally.
 */
import { appendFileSync } from 'node:fs';
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
  sweep: { intervalMs: 500, firstCheckAfterMs: 1_000, maxCheckIntervalMs: 3_000 },
  quote: () => ({ payMoney: 150_000, productDetail: 'Kopi Gayo 250 g', name: 'Budi Santoso', email: 'budi@example.co.id', phone: '081234567890' }),
  onPaid: (order, context) => {
    appendFileSync(config.onPaidLog, `${order.orderNum} ${context.attempt} ${context.source} ${process.pid}\n`);
  },
});
const app = express();
app.get('/healthz', (_req, res) => void res.json({ status: 'ok' }));
app.get('/readyz', pay.health());
app.use('/pay', pay);
const server = app.listen(config.port, '127.0.0.1', () => process.send?.({ type: 'listening', url: `http://127.0.0.1:${config.port}` }));
server.keepAliveTimeout = 5_000;
