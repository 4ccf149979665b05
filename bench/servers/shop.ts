/**
 * The merchant's server under test, in its own process: an Express 5 app that mounts
 * `payButton()` at `/pay`, as the README's one line does, pointing at the bench gateway.
 *
 * Bench settings (the only ones that differ from a shop's defaults): `rateLimit: false` (one
 * client IP sends every request; the per-IP limit of 20/min would refuse nearly all of them) and
 * `publicUrl` = SHOP_PUBLIC_URL, whose origin the load generator sends as `Origin` (an allowed
 * origin, so the CSRF check runs and passes). `quote()` answers a fixed price at once; `onPaid` only counts.
 *
 * Config: JSON in BENCH_SHOP (see ShopServerConfig). Commands: stats, reset, gc.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { payButton, type DatabaseOption, type GatewayCallOutcome } from '@tombolbayar/express';
import express from 'express';
import { CUSTOMER, MERCHANT_CODE, SHOP_PUBLIC_URL } from '../lib/fixtures.ts';
import { failed, loopDelayMonitor, memoryAfterGc, serve, type Command } from './ipc.ts';
import { observe } from './observe.ts';

export interface ShopServerConfig {
  readonly gatewayUrl: string;
  readonly merchantPrivateKey: string;
  readonly platformPublicKey: string;
  readonly database: DatabaseOption;
  /** 'metrics': a registry for the plug-in's metrics; 'context': and the SDK's context manager; 'traced': and a tracer provider (servers/observe.ts). */
  readonly observe?: 'metrics' | 'context' | 'traced' | undefined;
}

/** p50 and p99 of each status's times, in whole ms. */
function percentiles(times: Record<string, number[]>): Record<string, { count: number; p50: number; p99: number }> {
  return Object.fromEntries(
    Object.entries(times).map(([status, list]) => {
      const sorted = [...list].sort((a, b) => a - b);
      const at = (fraction: number) => Math.round(sorted[Math.min(sorted.length - 1, Math.ceil(fraction * sorted.length) - 1)] ?? 0);
      return [status, { count: sorted.length, p50: at(0.5), p99: at(0.99) }];
    }),
  );
}

async function main(): Promise<void> {
  const config = JSON.parse(process.env.BENCH_SHOP ?? '') as ShopServerConfig;
  let paid = 0;
  const observation = config.observe ? observe(config.observe) : undefined;
  const payments = payButton({
    ...(observation && { metrics: { registry: observation.registry } }),
    // Measured without log lines: the bench reads this process's standard output.
    logger: false,
    gatewayUrl: config.gatewayUrl,
    merchantCode: MERCHANT_CODE,
    privateKey: config.merchantPrivateKey,
    platformPublicKey: config.platformPublicKey,
    publicUrl: SHOP_PUBLIC_URL,
    mountPath: '/pay',
    database: config.database,
    rateLimit: false,
    quote: () => CUSTOMER,
    onPaid: () => {
      paid++;
    },
  });
  let calls: Record<string, number> = {};
  const loop = loopDelayMonitor();
  let warnings: Record<string, number> = {};
  payments.on('gateway.call', (event: { operation: string; outcome: GatewayCallOutcome }) => {
    const key = `${event.operation}:${event.outcome}`;
    calls[key] = (calls[key] ?? 0) + 1;
  });
  payments.on('warning', (event: { code: string }) => {
    warnings[event.code] = (warnings[event.code] ?? 0) + 1;
  });
  await payments.ready();

  const app = express();
  app.disable('x-powered-by');
  app.use('/pay', payments);
  const server = createServer(app);
  // Time in this process, from the request's headers to its answer, by status: what the load
  // generator times besides it is connecting, queueing in sockets and its own lateness.
  let inShop: Record<string, number[]> = {};
  server.on('request', (req, res) => {
    const started = performance.now();
    // How long after the load generator sent it the request reached this process (same clock).
    const sentAt = Number(req.headers['x-bench-sent-at']);
    if (sentAt > 0) (inShop.arrival ??= []).push(performance.timeOrigin + started - sentAt);
    res.once('finish', () => (inShop[res.statusCode] ??= []).push(performance.now() - started));
  });
  server.keepAliveTimeout = 65_000;
  await new Promise<void>((resolve) => server.listen({ port: 0, host: '127.0.0.1', backlog: 4_096 }, resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

  const handle = async (command: Command) => {
    switch (command.cmd) {
      case 'stats':
        return { calls, warnings, paid, inShopMs: percentiles(inShop) };
      case 'reset':
        inShop = {};
        calls = {};
        warnings = {};
        paid = 0;
        loop.reset();
        return null;
      case 'loop':
        return loop.read();
      case 'gc':
        return memoryAfterGc();
      case 'observed':
        return observation ? { spans: await observation.spans(), scrapeBytes: await observation.scrapeBytes() } : null;
      default:
        throw new Error(`unknown command ${command.cmd}`);
    }
  };
  serve(url, handle, async () => {
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
    await payments.close();
  });
}

main().catch(failed);
