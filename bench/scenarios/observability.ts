/**
 * What metrics and tracing cost (issue 34): four shop + gateway pairs, alike but for one thing.
 * The plain pair runs with `metrics: false` in the gateway, no `metrics` in the plug-in and no
 * OpenTelemetry SDK; the metrics pair with a prom-client registry in each process; the context
 * pair adds the SDK's context manager and propagator (what tracing costs an application before any
 * span: on Node 20, AsyncLocalStorage's hook on every promise); the traced pair adds a tracer
 * provider, so every span is recorded and exported (servers/observe.ts). Links, then notifications (verify,
 * confirm by query, settle, `onPaid`), are sent to each pair in turns, the order of the pairs
 * rotated every round, so the machine's drift falls on all alike; CPU per request is read from
 * /proc around each turn.
 *
 * The figures: CPU per request of both processes, each pair ÷ plain − 1 (goal ≤ 3 % for the
 * traced pair, which pays for all), and traced ÷ context − 1: what the recorded spans add.
 */
import type { ChildServer } from '../lib/children.ts';
import { gatewayDatabase, type BenchContext, type Engine } from '../lib/context.ts';
import { linkBodies, MERCHANT_CODE, SHOP_PUBLIC_URL } from '../lib/fixtures.ts';
import { selectRows } from '../lib/gateway-rows.ts';
import { load } from '../lib/load.ts';
import { startGateway, startShop } from './links.ts';
import { cpuPerRequest } from './throughput.ts';

const VARIANTS = ['plain', 'metrics', 'context', 'traced'] as const;
type Variant = (typeof VARIANTS)[number];

/** CPU ms per request of both processes together, by variant, over every round. */
export interface Costs {
  readonly cpuMs: Readonly<Record<Variant, number>>;
  /** Each variant's CPU ÷ the plain pair's − 1; `spans`: traced ÷ context − 1 (the recorded spans alone). */
  readonly overhead: Readonly<Record<Exclude<Variant, 'plain'> | 'spans', number>>;
  /** Requests measured per variant. */
  readonly requests: Readonly<Record<Variant, number>>;
}

export interface ObservabilityResult {
  readonly engine: Engine;
  readonly rounds: number;
  readonly link: Costs;
  readonly notify: Costs;
  /** Spans the traced pair exported, per link and notification measured (both processes). */
  readonly spansPerRequest: number;
  /** Bytes of one scrape of each traced process's registry at the end. */
  readonly scrapeBytes: Readonly<Record<'shop' | 'gateway', number>>;
  readonly problems: string[];
}

interface Pair {
  readonly variant: Variant;
  readonly gateway: ChildServer;
  readonly shop: ChildServer;
  readonly database: ReturnType<typeof gatewayDatabase>;
}

/** Accumulates CPU seconds × requests per variant, so each round weighs by what it measured. */
class Accumulator {
  readonly #cpuMs: Record<Variant, number> = { plain: 0, metrics: 0, context: 0, traced: 0 };
  readonly requests: Record<Variant, number> = { plain: 0, metrics: 0, context: 0, traced: 0 };
  add(variant: Variant, cpuMsPerRequest: Readonly<Record<string, number>>, requests: number): void {
    this.#cpuMs[variant] += Object.values(cpuMsPerRequest).reduce((sum, value) => sum + value, 0) * requests;
    this.requests[variant] += requests;
  }
  result(): Costs {
    const per = (variant: Variant) => this.#cpuMs[variant] / Math.max(1, this.requests[variant]);
    const cpuMs = { plain: per('plain'), metrics: per('metrics'), context: per('context'), traced: per('traced') };
    const over = (variant: Variant, base: Variant) => cpuMs[variant] / cpuMs[base] - 1;
    return {
      cpuMs,
      overhead: { metrics: over('metrics', 'plain'), context: over('context', 'plain'), traced: over('traced', 'plain'), spans: over('traced', 'context') },
      requests: { ...this.requests },
    };
  }
}

async function startPair(context: BenchContext, engine: Engine, variant: Variant): Promise<Pair> {
  const database = gatewayDatabase(context, engine, `obs_${variant}`);
  const observe = variant === 'plain' ? undefined : variant;
  // No worker: notifications are read from the outbox and sent by the load generator, as in notify.ts.
  const gateway = await startGateway(context, `gateway-obs-${variant}_${engine}`, {
    database,
    platformPrivateKey: context.keys.platformPrivateKey,
    merchantPublicKey: context.keys.merchantPublicKey,
    sandbox: false,
    worker: false,
    observe: observe ?? false,
  });
  try {
    const shop = await startShop(context, gateway, engine, `obs_${variant}`, observe);
    return { variant, gateway, shop, database };
  } catch (error) {
    await gateway.stop();
    throw error;
  }
}

/** The pairs in the order of round `round`: rotated every round, so none is always first. */
const inTurn = (pairs: readonly Pair[], round: number) => pairs.map((_, index) => pairs[(index + round) % pairs.length]!);

export async function runObservability(context: BenchContext, engine: Engine, options: { rounds: number; notifications: number }): Promise<ObservabilityResult> {
  const problems: string[] = [];
  const pairs: Pair[] = [];
  try {
    for (const variant of VARIANTS) pairs.push(await startPair(context, engine, variant));
    const linkTarget = (pair: Pair) => ({ url: `${pair.shop.url}/pay/links`, headers: { origin: SHOP_PUBLIC_URL }, connections: context.connections });
    const taken: Record<Variant, number> = { plain: 0, metrics: 0, context: 0, traced: 0 };
    const bodies = (pair: Pair, count: number) => {
      const made = linkBodies(count, `${context.tag}O${pair.variant[0]}${engine[0]}`, taken[pair.variant]);
      taken[pair.variant] += count;
      return made;
    };
    // Enough bodies for any rate this machine reaches in a turn.
    const perTurn = context.seconds.max * 1_000;

    for (const pair of pairs) await load({ ...linkTarget(pair), bodies: bodies(pair, context.seconds.warmUp * 1_000), durationSeconds: context.seconds.warmUp });
    const links = new Accumulator();
    for (let round = 0; round < options.rounds; round++) {
      for (const pair of inTurn(pairs, round)) {
        const { result, cpuMsPerRequest } = await cpuPerRequest({ shop: pair.shop, gateway: pair.gateway }, () =>
          load({ ...linkTarget(pair), bodies: bodies(pair, perTurn), durationSeconds: context.seconds.max }),
        );
        if (result.failed > 0) problems.push(`links, ${pair.variant}, round ${round + 1}: ${result.failed} failed`);
        links.add(pair.variant, cpuMsPerRequest, result.ok);
      }
    }
    context.log(`  observability ${engine}: links measured ${VARIANTS.map((variant) => `${links.requests[variant]} ${variant}`).join(', ')}`);

    // Notifications: orders made and paid in each pair, then their queued notifications sent in slices, in turns.
    const queued = new Map<Variant, string[]>();
    for (const pair of pairs) {
      const made = await load({ ...linkTarget(pair), bodies: bodies(pair, options.notifications), durationSeconds: 120 });
      if (made.ok !== options.notifications) problems.push(`${pair.variant}: ${made.ok} of ${options.notifications} links made for notifications`);
      const all = await selectRows<{ plat_order_num: string }>(pair.database, 'select plat_order_num from {orders} where merchant_code = $1', [MERCHANT_CODE]);
      const pending = await selectRows<{ plat_order_num: string }>(pair.database, "select plat_order_num from {orders} where merchant_code = $1 and status = 'PENDING'", [MERCHANT_CODE]);
      if (pending.length !== all.length) problems.push(`${pair.variant}: ${all.length - pending.length} orders not pending`);
      await pair.gateway.command({ cmd: 'pay', platOrderNums: pending.map((row) => row.plat_order_num), concurrency: 8, method: 'VA_BCA' }, 300_000);
      const rows = await selectRows<{ fields: string }>(pair.database, "select fields from {notifications} where state = 'pending' order by created_at");
      queued.set(pair.variant, rows.map((row) => new URLSearchParams(JSON.parse(row.fields) as Record<string, string>).toString()));
    }
    const notify = new Accumulator();
    const slices = options.rounds + 1;
    for (let slice = 0; slice < slices; slice++) {
      for (const pair of inTurn(pairs, slice)) {
        const all = queued.get(pair.variant)!;
        const size = Math.ceil(all.length / slices);
        const part = all.slice(slice * size, (slice + 1) * size);
        const target = { url: `${pair.shop.url}/pay/notify`, headers: { 'content-type': 'application/x-www-form-urlencoded' }, connections: context.connections, durationSeconds: 120 };
        // The first slice warms the notification path up and is not counted.
        if (slice === 0) {
          await load({ ...target, bodies: part });
          continue;
        }
        const { result, cpuMsPerRequest } = await cpuPerRequest({ shop: pair.shop, gateway: pair.gateway }, () => load({ ...target, bodies: part }));
        if (result.ok !== part.length) problems.push(`notifications, ${pair.variant}, slice ${slice}: ${result.ok} of ${part.length} acknowledged`);
        notify.add(pair.variant, cpuMsPerRequest, result.ok);
      }
    }

    const tracedPair = pairs.find((pair) => pair.variant === 'traced')!;
    const shopSeen = await tracedPair.shop.command<{ spans: number; scrapeBytes: number } | null>({ cmd: 'observed' });
    const gatewaySeen = await tracedPair.gateway.command<{ spans: number; scrapeBytes: number } | null>({ cmd: 'observed' });
    const measured = taken.traced + (queued.get('traced')?.length ?? 0);
    const spans = (shopSeen?.spans ?? 0) + (gatewaySeen?.spans ?? 0);
    if (spans === 0) problems.push('the traced pair exported no span: the SDK was not in use');
    return {
      engine,
      rounds: options.rounds,
      link: links.result(),
      notify: notify.result(),
      spansPerRequest: spans / Math.max(1, measured),
      scrapeBytes: { shop: shopSeen?.scrapeBytes ?? 0, gateway: gatewaySeen?.scrapeBytes ?? 0 },
      problems,
    };
  } finally {
    for (const pair of pairs) {
      await pair.shop.stop();
      await pair.gateway.stop();
    }
  }
}
