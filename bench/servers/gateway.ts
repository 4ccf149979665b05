/**
 * The gateway under test, in its own process: `createGateway` with the bench merchant, its
 * default logger (pino at info to stdout, which the bench sends to /dev/null), served by a plain
 * `http.Server` around `gateway.app` that also counts, per request, the RSA blocks of the `sign`
 * it received and of the `platSign` it answered: how the crypto ceiling learns what a request
 * really costs.
 *
 * Config: JSON in BENCH_GATEWAY (see GatewayServerConfig). Commands: stats, reset, gc, pay
 * (pays the given orders through the sandbox's `pay`, the domain API, from the internal entry).
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createGateway } from '@tombolbayar/gateway';
import type { MethodCode } from '@tombolbayar/protocol';
import { gatewayInternals, type DatabaseConfig } from '@tombolbayar/gateway/internal';
import { MERCHANT_CODE, MERCHANT_NAME } from '../lib/fixtures.ts';
import { failed, loopDelayMonitor, memoryAfterGc, serve, type Command } from './ipc.ts';

export interface GatewayServerConfig {
  readonly database: DatabaseConfig;
  readonly platformPrivateKey: string;
  readonly merchantPublicKey: string;
  readonly sandbox: boolean;
  /** false: no notification worker in this process (orders are paid before the drain starts). */
  readonly worker: boolean;
}

/** Per path: requests, SUCCESS answers, and RSA blocks (128 bytes each) of sign and platSign. */
interface PathStats {
  requests: number;
  success: number;
  requestSignBlocks: number;
  responseSignBlocks: number;
}

const KEY_BYTES = 128;
const blocksOf = (signature: unknown): number => (typeof signature === 'string' ? Math.floor((signature.length * 3) / 4 / KEY_BYTES) : 0);

async function main(): Promise<void> {
  const config = JSON.parse(process.env.BENCH_GATEWAY ?? '') as GatewayServerConfig;
  const gateway = createGateway({
    database: config.database,
    platformPrivateKey: config.platformPrivateKey,
    merchants: [{ merchantCode: MERCHANT_CODE, publicKey: config.merchantPublicKey, name: MERCHANT_NAME }],
    sandbox: config.sandbox,
    timeScale: 0.001,
    notifications: { worker: config.worker },
  });
  await gateway.ready;
  // Paying is the sandbox's simulation; the bench also pays on a production-mode gateway.
  const { simulate } = gatewayInternals(gateway);

  let stats = new Map<string, PathStats>();
  const loop = loopDelayMonitor();
  const record = (req: IncomingMessage & { body?: unknown }, path: string, answer: unknown) => {
    let entry = stats.get(path);
    if (!entry) stats.set(path, (entry = { requests: 0, success: 0, requestSignBlocks: 0, responseSignBlocks: 0 }));
    entry.requests++;
    const body = answer as { platRespCode?: unknown; platSign?: unknown } | undefined;
    if (body?.platRespCode === 'SUCCESS') entry.success++;
    entry.responseSignBlocks += blocksOf(body?.platSign);
    entry.requestSignBlocks += blocksOf((req.body as { sign?: unknown } | undefined)?.sign);
  };
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const path = (req.url ?? '').split('?')[0]!;
    const response = res as ServerResponse & { json?: (body: unknown) => unknown };
    // An own property survives Express switching the prototype of `res` to its own.
    response.json = function json(this: ServerResponse, body: unknown) {
      record(req, path, body);
      return (Object.getPrototypeOf(this) as { json: (body: unknown) => unknown }).json.call(this, body);
    };
    gateway.app(req as never, res as never);
  });
  server.keepAliveTimeout = 65_000;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

  const handle = async (command: Command) => {
    switch (command.cmd) {
      case 'stats':
        return Object.fromEntries(stats);
      case 'reset':
        stats = new Map();
        loop.reset();
        return null;
      case 'loop':
        return loop.read();
      case 'gc':
        return memoryAfterGc();
      case 'pay': {
        const orders = command.platOrderNums;
        const started = performance.now();
        let next = 0;
        await Promise.all(
          Array.from({ length: command.concurrency }, async () => {
            while (next < orders.length) await simulate.pay(orders[next++]!, command.method ? { method: command.method as MethodCode } : undefined);
          }),
        );
        return { paid: orders.length, seconds: (performance.now() - started) / 1000 };
      }
      default:
        throw new Error(`unknown command ${(command as { cmd: string }).cmd}`);
    }
  };
  serve(url, handle, async () => {
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
    await gateway.close();
  }, { platformPublicKey: gateway.platformPublicKey });
}

main().catch(failed);
