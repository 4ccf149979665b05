/**
 * Helpers of the plug-in's hostile suites (`hostile-*.test.ts`). The generic ones (a raw HTTP client
 * over keep-alive sockets, a watch on the process for unhandled rejections, store probes, hostile
 * value generators for fast-check, a case counter and the secret-leak scan) come from
 * `@tombolbayar/test-support/hostile`, shared with the gateway's suites.
 *
 * `startShop()` is the system under attack: the real gateway in-process (sandbox, its pino log
 * captured) and an Express app with `payButton()` mounted, each on its own SQLite file (or the
 * plug-in on PostgreSQL), with every plug-in event recorded.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { appendFileSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { createGateway, type SandboxGateway } from '@tombolbayar/gateway';
import express from 'express';
import { pino } from 'pino';
import { NotForSaleError, payButton, type PayButtonOptions, type PayButtonRouter } from '../src/adapters/express.ts';
import type { PayButtonEventName } from '../src/events.ts';
import { withTuning } from '../src/internal/tuning.ts';
import { dropSchema, newSchemaName } from './support/engines.ts';
import { MERCHANT_CODE, merchantKeys, platformKeys } from './support/keys.ts';
import { type StoreProbe, postgresProbe, runs, sqliteProbe } from '@tombolbayar/test-support/hostile';
import { testGateway } from './support/sandbox-gateway.ts';

export * from '@tombolbayar/test-support/hostile';

// ---------------------------------------------------------------------------------------------
// The shop under attack

/** What the shop sells; `quote()` prices from here only. */
export const CATALOGUE: Readonly<Record<string, number>> = { kopi: 150_000, teh: 50_000 };

export interface HostileShop {
  readonly gateway: SandboxGateway;
  readonly gatewayUrl: string;
  readonly merchantUrl: string;
  readonly mountUrl: string;
  readonly router: PayButtonRouter;
  /** The gateway's pino lines (debug level, no redaction of our own: the strictest reading). */
  readonly gatewayLog: string[];
  /** Every plug-in event, in order. */
  readonly events: Array<{ readonly name: PayButtonEventName; readonly payload: unknown }>;
  /** orderNum of every onPaid call. */
  readonly onPaidCalls: string[];
  readonly shopProbe: StoreProbe;
  readonly gatewayProbe: StoreProbe;
  close(): Promise<void>;
}

const EVENT_NAMES: readonly PayButtonEventName[] = ['order.transition', 'gateway.call', 'notification.accepted', 'notification.rejected', 'fulfilment.succeeded', 'fulfilment.failed', 'warning'];

export interface ShopSetup {
  readonly engine?: 'sqlite' | 'postgres';
  readonly options?: Partial<PayButtonOptions>;
  /** Something between the plug-in and the gateway (a tampering proxy); the payment page stays on the gateway's origin. */
  readonly proxy?: (gatewayUrl: string) => Promise<{ readonly url: string; close(): Promise<void> }>;
}

export async function startShop(setup: ShopSetup = {}): Promise<HostileShop> {
  const dir = mkdtempSync(join(tmpdir(), 'pb-hostile-'));
  const gatewayLog: string[] = [];
  const destination = new Writable({
    write(chunk: Buffer, _encoding, done) {
      gatewayLog.push(chunk.toString('utf8'));
      done();
    },
  });
  const gatewayFile = join(dir, 'gateway.sqlite');
  const gateway = testGateway(dir, {
    merchants: [{ merchantCode: MERCHANT_CODE, publicKey: merchantKeys().publicKey, name: 'Toko Hostile' }],
    logger: pino({ level: 'debug' }, destination),
  });
  const { url: gatewayUrl } = await gateway.listen();
  const proxy = setup.proxy ? await setup.proxy(gatewayUrl) : undefined;

  const server = http.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const merchantUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const postgres = setup.engine === 'postgres' ? { url: process.env.DATABASE_URL!, schema: newSchemaName() } : undefined;
  const shopFile = join(dir, 'orders.sqlite');
  const onPaidCalls: string[] = [];
  const router = payButton(withTuning({
    logger: false,
    selfCheck: false,
    gatewayUrl: proxy?.url ?? gatewayUrl,
    paymentPageOrigins: [new URL(gatewayUrl).origin],
    merchantCode: MERCHANT_CODE,
    privateKey: merchantKeys().privateKey,
    platformPublicKey: platformKeys().publicKey,
    publicUrl: merchantUrl,
    database: postgres ? { kind: 'postgres', url: postgres.url, schema: postgres.schema, maxConnections: 5 } : { kind: 'sqlite', file: shopFile },
    quote: (_req, body) => {
      // An own-property lookup: `CATALOGUE["constructor"]` would be Object's constructor.
      const price = Object.hasOwn(CATALOGUE, String(body.item)) ? CATALOGUE[String(body.item)] : undefined;
      if (price === undefined) throw new NotForSaleError(`${String(body.item)} is not for sale.`);
      return { payMoney: price, productDetail: `Item ${String(body.item)}`, name: 'Budi Santoso', email: 'budi@example.com', phone: '081234567890' };
    },
    onPaid: (order) => {
      onPaidCalls.push(order.orderNum);
    },
    rateLimit: false,
    statusRefreshMs: false,
    // Nothing runs in the background (its first round comes 15 s in, which a loaded machine
    // reaches mid-run): a store's version changes only through the request a test sends.
    sweep: false,
    ...setup.options,
  }, { retryBaseDelayMs: 10, retryMaxDelayMs: 50 }));
  const events: Array<{ name: PayButtonEventName; payload: unknown }> = [];
  for (const name of EVENT_NAMES) router.events.on(name, ((payload: unknown) => events.push({ name, payload })) as never);
  const app = express();
  app.use('/pay', router);
  server.on('request', app);
  await router.ready();
  const shopProbe = postgres ? await postgresProbe(postgres.url, postgres.schema, ['tombolbayar_orders']) : sqliteProbe(shopFile);
  const gatewayProbe = sqliteProbe(gatewayFile);
  return {
    gateway,
    gatewayUrl,
    merchantUrl,
    mountUrl: `${merchantUrl}/pay`,
    router,
    gatewayLog,
    events,
    onPaidCalls,
    shopProbe,
    gatewayProbe,
    async close() {
      await shopProbe.close();
      await gatewayProbe.close();
      await router.close();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await proxy?.close();
      await gateway.close();
      if (postgres) await dropSchema(postgres.url, postgres.schema);
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

// ---------------------------------------------------------------------------------------------
// Child processes for the crash tests: a merchant server, and a gateway with short leases

export interface MerchantServerConfig {
  /** 0 the first time; the same port after a restart (the gateway stored notifyUrl with it). */
  readonly port: number;
  readonly gatewayUrl: string;
  readonly merchantCode: string;
  readonly privateKeyFile: string;
  readonly platformPublicKeyFile: string;
  readonly databaseFile: string;
  /** onPaid appends `enter <orderNum> <attempt>` before, and `effect <orderNum>` after, its work. */
  readonly effectsFile: string;
  /** onPaid never returns after writing `enter` (the process is killed there). */
  readonly hang: boolean;
  readonly fulfilmentLeaseMs: number;
}

/**
 * A merchant's server with the plug-in, run in a child process (`startChild('runMerchantServer')`):
 * its config comes from TOMBOLBAYAR_HOSTILE_CONFIG, it prints `listening on URL` when ready.
 */
export async function runMerchantServer(): Promise<void> {
  const config = JSON.parse(process.env.TOMBOLBAYAR_HOSTILE_CONFIG!) as MerchantServerConfig;
  const server = http.createServer();
  await new Promise<void>((resolve) => server.listen(config.port, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const router = payButton({
    logger: false,
    selfCheck: false,
    gatewayUrl: config.gatewayUrl,
    merchantCode: config.merchantCode,
    privateKey: readFileSync(config.privateKeyFile, 'utf8'),
    platformPublicKey: readFileSync(config.platformPublicKeyFile, 'utf8'),
    publicUrl: url,
    database: { kind: 'sqlite', file: config.databaseFile },
    rateLimit: false,
    statusRefreshMs: false,
    quote: () => ({ payMoney: 150_000, productDetail: 'Kopi Gayo 250g', name: 'Budi Santoso', email: 'budi@example.com', phone: '081234567890' }),
    onPaid: async (order, { attempt }) => {
      appendFileSync(config.effectsFile, `enter ${order.orderNum} ${attempt}\n`);
      if (config.hang) await new Promise(() => {});
      appendFileSync(config.effectsFile, `effect ${order.orderNum}\n`);
    },
    fulfilmentLeaseMs: config.fulfilmentLeaseMs,
  });
  const app = express();
  app.use('/pay', router);
  server.on('request', app);
  await router.ready();
  process.stdout.write(`listening on ${url}\n`);
}

export interface GatewayServerConfig {
  readonly port: number;
  readonly dataDir: string;
  readonly merchantCode: string;
  readonly merchantPublicKeyFile: string;
}

/**
 * A sandbox gateway on the CLI's files (`DATA/gateway.sqlite`, `DATA/platform-private.pem`) with
 * the shortest lease its attempt timeout allows, so that rows it held when killed come free within
 * seconds; the restart is the real CLI on the same files.
 */
export async function runGatewayServer(): Promise<void> {
  const config = JSON.parse(process.env.TOMBOLBAYAR_HOSTILE_CONFIG!) as GatewayServerConfig;
  const gateway = createGateway({
    database: { kind: 'sqlite', file: join(config.dataDir, 'gateway.sqlite') },
    dataDir: config.dataDir,
    platformPrivateKey: readFileSync(join(config.dataDir, 'platform-private.pem'), 'utf8'),
    merchants: [{ merchantCode: config.merchantCode, publicKey: readFileSync(config.merchantPublicKeyFile, 'utf8') }],
    sandbox: true,
    timeScale: 0.01,
    logger: false,
    notifications: { pollIntervalMs: 50, timeoutMs: 3_000, leaseMs: 13_000 },
  });
  const { url } = await gateway.listen(config.port);
  process.stdout.write(`listening on ${url}\n`);
}

export interface ChildServer {
  readonly url: string;
  readonly child: ChildProcess;
  output(): string;
  /** SIGKILL, and wait until it is gone. */
  kill9(): Promise<void>;
  /** SIGTERM, and wait for the exit code. */
  stop(): Promise<number | null>;
}

function exited(child: ChildProcess): Promise<number | null> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve(child.exitCode);
  return new Promise((resolve) => child.once('exit', (code) => resolve(code)));
}

/** Spawn `node [args]` and wait (60 s at most) for its `listening on URL` line. */
export function spawnServer(args: readonly string[], env: NodeJS.ProcessEnv): Promise<ChildServer> {
  const child = spawn(process.execPath, args, { cwd: PACKAGE_DIR, env: { ...process.env, DATABASE_URL: '', ...env }, stdio: 'pipe' });
  let output = '';
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`the child did not start:\n${output}`));
    }, 60_000);
    let started = false;
    const onData = (chunk: Buffer) => {
      output += chunk.toString();
      const match = /listening on (http:\/\/\S+)/.exec(output);
      if (!match || started) return;
      started = true;
      clearTimeout(timer);
      resolve({
        url: match[1]!,
        child,
        output: () => output,
        async kill9() {
          child.kill('SIGKILL');
          await exited(child);
        },
        async stop() {
          child.kill('SIGTERM');
          return exited(child);
        },
      });
    };
    child.stdout.on('data', onData);
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.once('exit', (code) => {
      clearTimeout(timer);
      if (!started) reject(new Error(`the child exited with ${code} before listening:\n${output}`));
    });
  });
}

/** Run one of this module's `run…Server` functions in a child process, with `config`. */
export function startChild(entry: 'runMerchantServer' | 'runGatewayServer', config: MerchantServerConfig | GatewayServerConfig): Promise<ChildServer> {
  const code = `import { ${entry} } from ${JSON.stringify(pathToFileURL(SUPPORT_FILE).href)}; await ${entry}();`;
  return spawnServer(['--import', 'tsx', '--input-type=module', '-e', code], { TOMBOLBAYAR_HOSTILE_CONFIG: JSON.stringify(config) });
}

/** The gateway's CLI, the way an operator runs it. */
export function startGatewayCli(args: readonly string[]): Promise<ChildServer> {
  return spawnServer([GATEWAY_BIN, '--log-level', 'warn', ...args], {});
}

const SUPPORT_FILE = fileURLToPath(import.meta.url);
const PACKAGE_DIR = fileURLToPath(new URL('..', import.meta.url));
const GATEWAY_BIN = fileURLToPath(new URL('../bin/tombolbayar-gateway.js', import.meta.resolve('@tombolbayar/gateway')));
