/**
 * The plug-in's notification path: genuine notifications POSTed to the shop's `/pay/notify`, each
 * verified, confirmed with the gateway (`/gateway/query`, signed, answered by the gateway child),
 * settled (compare-and-set to paid) and handed to `onPaid`, then acknowledged with `SUCCESS`.
 *
 * 1. N payment links are created through the shop (`POST /pay/links`), so both stores hold them.
 * 2. The gateway (production mode, no worker: nothing is ever delivered by it) pays them all
 *    through the sandbox's `pay` (the domain API); each payment queues its signed notification.
 * 3. The queued notifications are read from the gateway's outbox exactly as the worker would send
 *    them (form-urlencoded), and the load generator sends each once to the shop: a warm-up slice
 *    first, then the rest as fast as the shop acknowledges.
 *
 * What counts: notifications acknowledged per second, CPU per notification in the shop and in
 * the gateway (its confirmation queries), and that every order was paid and `onPaid` ran once.
 */
import { gatewayDatabase, type BenchContext, type Engine } from '../lib/context.ts';
import { linkBodies, MERCHANT_CODE, SHOP_PUBLIC_URL } from '../lib/fixtures.ts';
import { selectRows } from '../lib/gateway-rows.ts';
import { formatLoad, load, type LoadResult } from '../lib/load.ts';
import { startGateway, startShop, type CryptoCount, type PathStats } from './links.ts';
import { cpuPerRequest } from './throughput.ts';

export interface NotifyResult {
  readonly engine: Engine;
  readonly orders: number;
  readonly max: LoadResult;
  /** CPU per acknowledged notification, by process (ms). */
  readonly cpuMsPerRequest: Readonly<Record<string, number>>;
  /** `/gateway/query` calls the gateway answered per notification (1: every one confirmed once). */
  readonly queriesPerNotification: number;
  /** RSA per notification: the notification's platSign verified; the query signed, verified, answered and its answer verified. */
  readonly crypto: CryptoCount;
  readonly onPaidCalls: number;
  readonly problems: string[];
}

interface ShopStats {
  readonly calls: Record<string, number>;
  readonly warnings: Record<string, number>;
  readonly paid: number;
}

const WARM_UP_SHARE = 0.1;

/** RSA-1024 blocks of a base64 signature (128 bytes each). */
const blocksOf = (signature: string | undefined): number => (signature ? Math.floor((signature.length * 3) / 4 / 128) : 0);

export async function runNotify(context: BenchContext, engine: Engine, orders: number): Promise<NotifyResult> {
  const database = gatewayDatabase(context, engine, 'notify');
  const gateway = await startGateway(context, `gateway-notify_${engine}`, {
    database,
    platformPrivateKey: context.keys.platformPrivateKey,
    merchantPublicKey: context.keys.merchantPublicKey,
    sandbox: false,
    worker: false,
  });
  const problems: string[] = [];
  try {
    const shop = await startShop(context, gateway, engine, 'notify');
    try {
      const created = await load({
        url: `${shop.url}/pay/links`,
        headers: { origin: SHOP_PUBLIC_URL },
        bodies: linkBodies(orders, `${context.tag}N${engine[0]}`),
        durationSeconds: 120,
        connections: context.connections,
      });
      if (created.ok !== orders) problems.push(`${created.ok} of ${orders} links created`);
      const platOrderNums = (
        await selectRows<{ plat_order_num: string }>(database, 'select plat_order_num from {orders} where merchant_code = $1', [MERCHANT_CODE])
      ).map((row) => row.plat_order_num);
      const paid = await gateway.command<{ paid: number; seconds: number }>({ cmd: 'pay', platOrderNums, concurrency: 8, method: 'VA_BCA' }, 300_000);
      const queued = await selectRows<{ fields: string }>(database, "select fields from {notifications} where state = 'pending' order by created_at");
      const fields = queued.map((row) => JSON.parse(row.fields) as Record<string, string>);
      const bodies = fields.map((row) => new URLSearchParams(row).toString());
      context.log(`  notify ${engine}: ${created.ok} links created, ${paid.paid} paid at the gateway, ${bodies.length} notifications queued`);

      const target = { url: `${shop.url}/pay/notify`, headers: { 'content-type': 'application/x-www-form-urlencoded' }, connections: context.connections };
      const warm = Math.floor(bodies.length * WARM_UP_SHARE);
      await load({ ...target, bodies: bodies.slice(0, warm), durationSeconds: 60 });
      await shop.command({ cmd: 'reset' });
      await gateway.command({ cmd: 'reset' });
      const { result: max, cpuMsPerRequest } = await cpuPerRequest({ shop, gateway }, () =>
        load({ ...target, bodies: bodies.slice(warm), durationSeconds: 120 }),
      );
      const stats = await shop.command<ShopStats>({ cmd: 'stats' });
      const queries = (await gateway.command<Record<string, PathStats>>({ cmd: 'stats' }))['/gateway/query'];
      const expected = bodies.length - warm;
      if (max.ok !== expected) problems.push(`${max.ok} of ${expected} notifications acknowledged (${max.failed} failed)`);
      if (stats.paid !== expected) problems.push(`onPaid ran ${stats.paid} times for ${expected} paid orders`);
      if (Object.keys(stats.warnings).length) problems.push(`warnings ${JSON.stringify(stats.warnings)}`);
      const queryCalls = queries?.requests ?? 0;
      const cpu = Object.entries(cpuMsPerRequest).map(([name, value]) => `${name} ${value.toFixed(2)}`).join(', ');
      context.log(`  notify ${engine}: ${formatLoad(max)}; CPU ms per notification: ${cpu}; ${queryCalls} confirmation queries`);
      const acknowledged = Math.max(1, max.ok);
      const queryRequestBlocks = (queries?.requestSignBlocks ?? 0) / acknowledged;
      const queryAnswerBlocks = (queries?.responseSignBlocks ?? 0) / acknowledged;
      const notificationBlocks = fields.slice(warm).reduce((sum, row) => sum + blocksOf(row.platSign), 0) / Math.max(1, expected);
      const crypto: CryptoCount = {
        // The shop signs the query and the gateway its answer; each side verifies the other's, and the shop the notification's platSign.
        privateOps: queryRequestBlocks + queryAnswerBlocks,
        publicOps: queryRequestBlocks + queryAnswerBlocks + notificationBlocks,
        detail: `${queryRequestBlocks.toFixed(2)} blocks of the plug-in's query sign + ${queryAnswerBlocks.toFixed(2)} of the gateway's answer platSign; ${notificationBlocks.toFixed(2)} of the notification's platSign verified`,
      };
      return { engine, orders: expected, max, cpuMsPerRequest, queriesPerNotification: queryCalls / acknowledged, crypto, onPaidCalls: stats.paid, problems };
    } finally {
      await shop.stop();
    }
  } finally {
    await gateway.stop();
  }
}
