/**
 * Notification drain: N paid orders, each with its notification in the outbox, delivered by the
 * gateway's worker to a receiver on 127.0.0.1 (this process) that verifies every `platSign` and
 * answers `SUCCESS`.
 *
 * 1. The orders are created through the gateway's domain `createOrder` (bulk, see
 *    lib/gateway-domain.ts) with the receiver as `notifyUrl`.
 * 2. A gateway process without a worker pays them all through `gateway.pay()` (the domain API:
 *    compare-and-set, signed notification, outbox row, one transaction each).
 * 3. A gateway process with its worker (default settings, sandbox mode so that a loopback
 *    receiver is allowed) starts: the drain is timed from the first delivery received to the last.
 * 4. The receiver's counts per platOrderNum and the outbox's states say whether any was lost,
 *    duplicated or dead.
 */
import { gatewayDatabase, type BenchContext, type Engine } from '../lib/context.ts';
import { seedOrders } from '../lib/gateway-domain.ts';
import { outboxStates } from '../lib/gateway-rows.ts';
import { startReceiver } from '../lib/receiver.ts';
import { startGateway } from './links.ts';

export interface DrainResult {
  readonly engine: Engine;
  readonly orders: number;
  readonly seedSeconds: number;
  readonly paySeconds: number;
  /** RSA private operations each payment made (blocks of its notification's platSign). */
  readonly payPrivateOps: number;
  /** Notifications per second, first delivery to last. */
  readonly perSecond: number;
  readonly drainSeconds: number;
  /** CPU time of the delivering gateway per notification (its start-up excluded), ms. */
  readonly cpuMsPerNotification: number;
  readonly received: number;
  readonly distinct: number;
  readonly lost: number;
  readonly duplicated: number;
  readonly badSignatures: number;
  /** Outbox rows per state after the drain. */
  readonly outbox: Record<string, number>;
  readonly problems: string[];
}

export async function runDrain(context: BenchContext, engine: Engine, orders: number): Promise<DrainResult> {
  const database = gatewayDatabase(context, engine, 'drain');
  const problems: string[] = [];
  // The platform key is the bench's, so the receiver can verify before any gateway runs.
  const receiver = await startReceiver(context.keys.platformPublicKey);
  try {
    const seeded = await seedOrders({
      database,
      platformPrivateKey: context.keys.platformPrivateKey,
      merchantPublicKey: context.keys.merchantPublicKey,
      count: orders,
      orderNumPrefix: `D${context.tag}`,
      notifyUrl: receiver.url,
      method: 'VA_BCA',
      sandbox: true,
    });
    context.log(`  drain ${engine}: created ${orders} orders in ${seeded.seconds.toFixed(1)} s (domain createOrder)`);

    const config = {
      database,
      platformPrivateKey: context.keys.platformPrivateKey,
      merchantPublicKey: context.keys.merchantPublicKey,
      sandbox: true,
    };
    const payer = await startGateway(context, `gateway-pay_${engine}`, { ...config, worker: false });
    let paid: { paid: number; seconds: number };
    try {
      paid = await payer.command<{ paid: number; seconds: number }>({ cmd: 'pay', platOrderNums: seeded.platOrderNums, concurrency: 8 }, 300_000);
    } finally {
      await payer.stop();
    }
    context.log(`  drain ${engine}: paid ${paid.paid} orders in ${paid.seconds.toFixed(1)} s (gateway.pay, no worker running)`);

    const deliverer = await startGateway(context, `gateway-drain_${engine}`, { ...config, worker: true });
    let done: boolean;
    let cpuMsPerNotification = Number.NaN;
    try {
      const cpuBefore = await deliverer.cpuSeconds();
      done = await receiver.waitFor(orders, 120_000);
      cpuMsPerNotification = ((await deliverer.cpuSeconds()) - cpuBefore) * 1000 / Math.max(1, receiver.counts.size);
      // Give a duplicate (a second delivery of one notification) the chance to show up.
      await new Promise((resolve) => setTimeout(resolve, 1_000));
    } finally {
      await deliverer.stop();
    }
    if (!done) problems.push(`only ${receiver.counts.size} of ${orders} notifications arrived within 120 s`);
    const outbox = await outboxStates(database);
    const drainSeconds = (receiver.stats.lastAt - receiver.stats.firstAt) / 1000;
    let duplicated = 0;
    for (const count of receiver.counts.values()) if (count > 1) duplicated += count - 1;
    const lost = seeded.platOrderNums.filter((platOrderNum) => !receiver.counts.has(platOrderNum)).length;
    if ((outbox.delivered ?? 0) !== orders) problems.push(`outbox: ${JSON.stringify(outbox)}`);
    context.log(
      `  drain ${engine}: ${receiver.stats.received} received, ${receiver.counts.size} distinct in ${drainSeconds.toFixed(2)} s ` +
        `(${(receiver.counts.size / drainSeconds).toFixed(0)}/s, gateway CPU ${cpuMsPerNotification.toFixed(2)} ms each); outbox ${JSON.stringify(outbox)}`,
    );
    return {
      engine,
      orders,
      seedSeconds: seeded.seconds,
      paySeconds: paid.seconds,
      payPrivateOps: receiver.stats.signBlocks / Math.max(1, receiver.stats.received),
      perSecond: receiver.counts.size / Math.max(drainSeconds, 1e-3),
      drainSeconds,
      cpuMsPerNotification,
      received: receiver.stats.received,
      distinct: receiver.counts.size,
      lost,
      duplicated,
      badSignatures: receiver.stats.badSignature,
      outbox,
      problems,
    };
  } finally {
    await receiver.close();
  }
}
