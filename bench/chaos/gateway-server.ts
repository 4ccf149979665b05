/**
 * The chaos run's gateway, in its own process (so it can be killed with SIGKILL): a sandbox
 * gateway on a fixed port, its database from CHAOS_GATEWAY (JSON), quiet logs. It tells the
 * runner it listens over IPC.
 */
import { createGateway } from '@tombolbayar/gateway';

interface Config {
  readonly port: number;
  readonly database: Parameters<typeof createGateway>[0]['database'];
  readonly platformPrivateKey: string;
  readonly merchantCode: string;
  readonly merchantPublicKey: string;
}

const config = JSON.parse(process.env.CHAOS_GATEWAY ?? '') as Config;
const gateway = createGateway({
  database: config.database,
  platformPrivateKey: config.platformPrivateKey,
  merchants: [{ merchantCode: config.merchantCode, publicKey: config.merchantPublicKey }],
  sandbox: true,
  // Notification retries 100x faster: a dropped one is sent again within seconds.
  timeScale: 0.01,
  logger: false,
  // 32 deliveries at once: the shop's onPaid takes 50-500 ms, and a notification waits for it.
  notifications: { pollIntervalMs: 100, timeoutMs: 3_000, leaseMs: 13_100, roundDeadlineMs: 5_000, concurrency: 32 },
});
const { url } = await gateway.listen(config.port);
process.send?.({ type: 'listening', url });
