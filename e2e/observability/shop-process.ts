/**
 * The merchant's shop of the observability test, in a process of its own: Express with
 * `payButton()` at `/pay`, its metrics in the shop's own prom-client registry served by
 * `metricsExpress` at `/metrics`, and the SDK of tracing.ts. Prints one JSON line
 * `{ url, spansUrl }` once it listens; its spans server also lists the orders `onPaid` was given.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { installTracing } from './tracing.ts';

const tracing = installTracing();
const [{ payButton, metricsExpress }, { default: express }, { Registry }] = await Promise.all([
  import('@tombolbayar/server/express'),
  import('express'),
  import('prom-client'),
]);
const config = JSON.parse(process.env.E2E_SHOP ?? '{}') as { gatewayUrl: string; file: string; privateKey: string; platformPublicKey: string; merchantCode: string };

const server = createServer();
await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
const registry = new Registry();
const paid: string[] = [];
const payments = payButton({
  gatewayUrl: config.gatewayUrl,
  merchantCode: config.merchantCode,
  privateKey: config.privateKey,
  platformPublicKey: config.platformPublicKey,
  publicUrl: url,
  database: { kind: 'sqlite', file: config.file },
  logger: false,
  rateLimit: false,
  quote: (_req, body) => ({ payMoney: body.item === 'teh' ? 30_000 : 85_000, productDetail: `Kopi ${String(body.item)}`, name: 'Budi Santoso', email: 'budi.observasi@example.com', phone: '081298765432' }),
  onPaid: (order) => {
    paid.push(order.orderNum);
  },
  metrics: { registry },
});
const app = express();
app.get('/metrics', metricsExpress(registry));
app.use('/pay', payments);
server.on('request', app);
await payments.ready();
const spansUrl = await tracing.serve(() => ({ paid }));
process.stdout.write(`${JSON.stringify({ url, spansUrl })}\n`);
process.once('SIGTERM', () => {
  server.closeAllConnections();
  server.close();
  void payments.close().finally(() => process.exit(0));
});
