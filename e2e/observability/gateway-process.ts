/**
 * The gateway of the observability test, in a process of its own: a sandbox `createGateway` with
 * its metrics served at `/metrics` (bearer token from the config) and the SDK of tracing.ts.
 * Prints one JSON line `{ url, spansUrl }` once it listens.
 */
import { installTracing } from './tracing.ts';

const tracing = installTracing();
const { createGateway } = await import('@tombolbayar/gateway');
const config = JSON.parse(process.env.E2E_GATEWAY ?? '{}') as { dataDir: string; platformPrivateKey: string; merchantPublicKey: string; merchantCode: string; metricsToken: string };
const gateway = createGateway({
  dataDir: config.dataDir,
  platformPrivateKey: config.platformPrivateKey,
  merchants: [{ merchantCode: config.merchantCode, publicKey: config.merchantPublicKey, name: 'Toko Observasi' }],
  sandbox: true,
  logger: false,
  metrics: { token: config.metricsToken },
});
const { url } = await gateway.listen(0, '127.0.0.1');
const spansUrl = await tracing.serve(() => null);
process.stdout.write(`${JSON.stringify({ url, spansUrl })}\n`);
process.once('SIGTERM', () => void gateway.close().finally(() => process.exit(0)));
