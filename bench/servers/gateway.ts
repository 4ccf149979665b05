/**
 * The gateway under test, in its own process: `createGateway` with the bench merchant, its
 * default logger (pino at info to stdout, which the bench sends to /dev/null), served by a plain
 * `http.Server` around `gateway.app` that also counts, per request, the RSA blocks of the `sign`
 * it received and of the `platSign` it answered (read off the bytes as they pass, however the
 * gateway reads and writes them): how the crypto ceiling learns what a request
 * really costs.
 *
 * Config: JSON in BENCH_GATEWAY (see GatewayServerConfig). Commands: stats, reset, gc, pay
 * (pays the given orders through the sandbox's `pay`, the domain API, from the internal entry).
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createGateway } from '@tombolbayar/gateway';
import type { MethodCode } from '@tombolbayar/protocol';
import { simulationsFor, type DatabaseConfig } from '@tombolbayar/gateway/internal';
import { MERCHANT_CODE, MERCHANT_NAME } from '../lib/fixtures.ts';
import { failed, loopDelayMonitor, memoryAfterGc, serve, type Command } from './ipc.ts';
import { observe } from './observe.ts';

export interface GatewayServerConfig {
  readonly database: DatabaseConfig;
  readonly platformPrivateKey: string;
  readonly merchantPublicKey: string;
  readonly sandbox: boolean;
  /** false: no notification worker in this process (orders are paid before the drain starts). */
  readonly worker: boolean;
  /** 'metrics': a registry given; 'context': and the SDK's context manager; 'traced': and a tracer provider (servers/observe.ts); false: `metrics: false`; unset: the defaults. */
  readonly observe?: 'metrics' | 'context' | 'traced' | false;
}

/** Per path: requests, SUCCESS answers, and RSA blocks (128 bytes each) of sign and platSign. */
interface PathStats {
  requests: number;
  success: number;
  requestSignBlocks: number;
  responseSignBlocks: number;
}

const KEY_BYTES = 128;
const SIGN = /"sign"\s*:\s*"([^"]*)"/;
const PLAT_SIGN = /"platSign"\s*:\s*"([^"]*)"/;
const SUCCESS = /"platRespCode"\s*:\s*"SUCCESS"/;
const blocksOf = (signature: unknown): number => (typeof signature === 'string' ? Math.floor((signature.length * 3) / 4 / KEY_BYTES) : 0);

async function main(): Promise<void> {
  const config = JSON.parse(process.env.BENCH_GATEWAY ?? '') as GatewayServerConfig;
  const observation = config.observe ? observe(config.observe) : undefined;
  const gateway = createGateway({
    // Unset: the gateway's defaults (its own registry, no SDK); false: no metrics at all.
    ...(config.observe === false && { metrics: false as const }),
    ...(observation && { metrics: { registry: observation.registry } }),
    database: config.database,
    platformPrivateKey: config.platformPrivateKey,
    merchants: [{ merchantCode: MERCHANT_CODE, publicKey: config.merchantPublicKey, name: MERCHANT_NAME }],
    sandbox: config.sandbox,
    timeScale: 0.001,
    notifications: { worker: config.worker },
  });
  await gateway.ready;
  // Paying is the sandbox's simulation; on a production-mode gateway the bench composes it (simulationsFor).
  const simulate = simulationsFor(gateway);

  let stats = new Map<string, PathStats>();
  const loop = loopDelayMonitor();
  const record = (path: string, requestText: string, answerText: string) => {
    let entry = stats.get(path);
    if (!entry) stats.set(path, (entry = { requests: 0, success: 0, requestSignBlocks: 0, responseSignBlocks: 0 }));
    entry.requests++;
    if (SUCCESS.test(answerText)) entry.success++;
    entry.responseSignBlocks += blocksOf(PLAT_SIGN.exec(answerText)?.[1]);
    entry.requestSignBlocks += blocksOf(SIGN.exec(requestText)?.[1]);
  };
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const path = (req.url ?? '').split('?')[0]!;
    // The bytes are watched as they pass (whichever way the gateway reads and writes them), and the
    // signatures found by a pattern: no second JSON parse on the measured CPU.
    const received: Buffer[] = [];
    const sent: Buffer[] = [];
    const emit = req.emit;
    req.emit = function (this: IncomingMessage, event: string | symbol, ...args: unknown[]) {
      if (event === 'data') received.push(Buffer.from(args[0] as Buffer));
      return emit.call(this, event, ...args);
    } as typeof req.emit;
    const write = res.write;
    const end = res.end;
    const keep = (chunk: unknown, encoding: unknown) => {
      if (typeof chunk === 'string') sent.push(Buffer.from(chunk, typeof encoding === 'string' ? (encoding as BufferEncoding) : 'utf8'));
      else if (chunk instanceof Uint8Array) sent.push(Buffer.from(chunk));
    };
    res.write = function (this: ServerResponse, chunk: unknown, ...rest: unknown[]) {
      keep(chunk, rest[0]);
      return (write as (...args: unknown[]) => boolean).call(this, chunk, ...rest);
    } as typeof res.write;
    res.end = function (this: ServerResponse, chunk?: unknown, ...rest: unknown[]) {
      if (typeof chunk !== 'function') keep(chunk, rest[0]);
      return (end as (...args: unknown[]) => ServerResponse).call(this, chunk, ...rest);
    } as typeof res.end;
    res.once('finish', () => record(path, Buffer.concat(received).toString('latin1'), Buffer.concat(sent).toString('latin1')));
    gateway.app(req as never, res as never);
  });
  server.keepAliveTimeout = 65_000;
  await new Promise<void>((resolve) => server.listen({ port: 0, host: '127.0.0.1', backlog: 4_096 }, resolve));
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
      case 'observed':
        return observation ? { spans: await observation.spans(), scrapeBytes: await observation.scrapeBytes() } : null;
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
