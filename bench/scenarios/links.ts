/**
 * Link creation through the plug-in and the gateway: `POST /pay/links` of an Express app that
 * mounts `payButton()` (one child process), which signs a `/gateway/prepaidOrder` request to the
 * gateway (another child process), verifies the signed answer and stores the order. Every body
 * has its own idempotency key, so every request makes a new order.
 *
 * The gateway counts the RSA blocks of the `sign` it receives (made by the plug-in) and of the
 * `platSign` it answers: their sum per link is the private operations one link really costs.
 */
import { startChild, type ChildServer } from '../lib/children.ts';
import { childFlags, gatewayDatabase, shopDatabase, type BenchContext, type Engine } from '../lib/context.ts';
import { linkBodies, SHOP_PUBLIC_URL } from '../lib/fixtures.ts';
import type { LoadResult } from '../lib/load.ts';
import type { GatewayServerConfig } from '../servers/gateway.ts';
import type { ShopServerConfig } from '../servers/shop.ts';
import { maxAndHalf, type Throughput } from './throughput.ts';

const SERVERS = new URL('../servers/', import.meta.url);

export interface PathStats {
  readonly requests: number;
  readonly success: number;
  readonly requestSignBlocks: number;
  readonly responseSignBlocks: number;
}

export interface CryptoCount {
  /** RSA private operations per request served (signature blocks made by the measured servers). */
  readonly privateOps: number;
  /** RSA public operations per request (signature blocks verified by the measured servers). */
  readonly publicOps: number;
  /** What they are, in words. */
  readonly detail: string;
}

export interface LinkResult {
  readonly engine: Engine;
  readonly throughput: Throughput;
  readonly crypto: CryptoCount;
  /** Gateway requests per link created (1 unless the plug-in retried or queried). */
  readonly gatewayCallsPerLink: number;
  /** Problems seen (answers that were not a created link). */
  readonly problems: string[];
}

export async function startGateway(
  context: BenchContext,
  label: string,
  config: GatewayServerConfig,
  extraFlags: readonly string[] = [],
  script = new URL('gateway.ts', SERVERS).pathname,
): Promise<ChildServer> {
  return startChild(script, {
    env: { BENCH_GATEWAY: JSON.stringify(config) },
    nodeFlags: childFlags(context, label, extraFlags),
  });
}

/** The bench shop (Express + `payButton()`) in its own process, pointed at `gateway`; `observe`: metrics and an SDK (servers/observe.ts). */
export async function startShop(context: BenchContext, gateway: ChildServer, engine: Engine, name: string, observe?: 'metrics' | 'context' | 'traced'): Promise<ChildServer> {
  const shopConfig: ShopServerConfig = {
    gatewayUrl: gateway.url,
    merchantPrivateKey: context.keys.merchantPrivateKey,
    platformPublicKey: String(gateway.info.platformPublicKey),
    database: shopDatabase(context, engine, name),
    ...(observe && { observe }),
  };
  return startChild(new URL('shop.ts', SERVERS).pathname, {
    env: { BENCH_SHOP: JSON.stringify(shopConfig) },
    nodeFlags: childFlags(context, `shop-${name}_${engine}`),
  });
}

export async function runLinks(context: BenchContext, engine: Engine): Promise<LinkResult> {
  const name = `links_${engine}`;
  const gateway = await startGateway(context, `gateway-${name}`, {
    database: gatewayDatabase(context, engine, 'links'),
    platformPrivateKey: context.keys.platformPrivateKey,
    merchantPublicKey: context.keys.merchantPublicKey,
    sandbox: false,
    worker: true,
  });
  let shop: ChildServer | undefined;
  try {
    shop = await startShop(context, gateway, engine, 'links');
    let taken = 0;
    const source = {
      costly: false,
      take: async (count: number) => {
        const bodies = linkBodies(count, `${context.tag}${engine[0]}`, taken);
        taken += count;
        return bodies;
      },
    };
    const problems: string[] = [];
    let pathStats: PathStats | undefined;
    const check = async (run: string, result: LoadResult) => {
      const stats = (await shop!.command<{ calls: Record<string, number>; warnings: Record<string, number> }>({ cmd: 'stats' }));
      const created = stats.calls['prepaidOrder:success'] ?? 0;
      if (result.failed > 0) problems.push(`${run}: ${result.failed} requests failed`);
      const others = Object.entries(stats.calls).filter(([key]) => key !== 'prepaidOrder:success');
      if (others.length) problems.push(`${run}: gateway calls ${others.map(([key, count]) => `${key}=${count}`).join(', ')}`);
      if (Object.keys(stats.warnings).length) problems.push(`${run}: warnings ${JSON.stringify(stats.warnings)}`);
      // Answers counted by autocannon that the shop did not create would be replays: none expected.
      if (created < result.ok) problems.push(`${run}: ${result.ok} answers but ${created} links created`);
    };
    const reset = async () => {
      await shop!.command({ cmd: 'reset' });
      await gateway.command({ cmd: 'reset' });
    };
    const throughput = await maxAndHalf(context, `links ${engine}`, { url: `${shop.url}/pay/links`, headers: { origin: SHOP_PUBLIC_URL } }, source, { shop, gateway }, {
      beforeMax: reset,
      afterMax: async (result) => {
        await check('max', result);
        const stats = await gateway.command<Record<string, PathStats>>({ cmd: 'stats' });
        pathStats = stats['/gateway/prepaidOrder'];
        await reset();
      },
      afterHalf: (result) => check('half rate', result),
    });
    const links = Math.max(1, pathStats?.success ?? 0);
    const requestBlocks = (pathStats?.requestSignBlocks ?? 0) / links;
    const responseBlocks = (pathStats?.responseSignBlocks ?? 0) / links;
    return {
      engine,
      throughput,
      crypto: {
        privateOps: requestBlocks + responseBlocks,
        // The gateway verifies the plug-in's sign, the plug-in verifies the gateway's platSign.
        publicOps: requestBlocks + responseBlocks,
        detail: `${requestBlocks.toFixed(2)} blocks of the plug-in's request sign + ${responseBlocks.toFixed(2)} of the gateway's platSign`,
      },
      gatewayCallsPerLink: (pathStats?.requests ?? 0) / links,
      problems,
    };
  } finally {
    await shop?.stop();
    await gateway.stop();
  }
}
