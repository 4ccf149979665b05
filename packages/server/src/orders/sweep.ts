/**
 * The notification sweep: lost notifications found early. A paid order whose notification never
 * came (dropped, refused while the store was down, every resend failed) would otherwise wait for
 * a status poll, or for `reconcile()` after it expires. So the router asks the gateway about its
 * pending orders that have a method chosen (the customer is at the payment step), on a backoff
 * schedule by the order's age: first after `firstCheckAfterMs`, then every quarter of its age,
 * at most every `maxCheckIntervalMs`. With the defaults a paid order reaches `onPaid` within
 * 105 s of the payment (90 s between checks + one 15 s round), without anyone polling.
 *
 * One process at a time sweeps (a lease row in the store, renewed each round); each order is claimed
 * first with the status poll's own claim (`lifecycle.claimRefresh`), so a poll and the sweep never
 * ask twice for one order within its interval, then asked about through the lifecycle's one
 * confirm-and-apply path, which runs `onPaid` for an order found paid. The same lease runs the
 * personal-data retention pass after each round (`afterRound`), so one process does it.
 */
import { randomBytes } from 'node:crypto';
import type { PayButtonEvents } from '../events.ts';
import type { Order } from '../store/orders.ts';
import type { SweepStore } from '../store/sweep.ts';
import type { OrderLifecycle } from './lifecycle.ts';
import { checkIntervalMs, sweepDue, type SweepSchedule } from './sweep-schedule.ts';


/** What the sweep uses: its lease and candidates, the lifecycle that asks and applies, the events. */
export interface SweepDeps {
  readonly ready: () => Promise<void>;
  readonly sweep: SweepStore;
  readonly lifecycle: Pick<OrderLifecycle, 'claimRefresh' | 'confirmAndApply'>;
  readonly events: PayButtonEvents;
  readonly merchantCode: string;
  readonly now: () => Date;
  /** Run after each round this process holds the lease for: the personal-data retention pass. */
  readonly afterRound?: () => Promise<unknown>;
}

export interface Sweeper {
  /** Run one round now (if this process holds the lease); returns how many orders were asked about. */
  runOnce(): Promise<number>;
  /** Stop the timer, wait for the round in progress, give the lease up. */
  stop(): Promise<void>;
}

export function startSweeper(deps: SweepDeps, schedule: SweepSchedule): Sweeper {
  const owner = `sweep-${process.pid}-${randomBytes(4).toString('hex')}`;
  const lease = `sweep:${deps.merchantCode}`;
  const { sweep } = deps;
  let stopped = false;
  let timer: NodeJS.Timeout | undefined;
  let round: Promise<number> | undefined;

  async function check(order: Order, now: Date): Promise<void> {
    // The status poll's claim: whoever asked within the interval (a poll, another round) already did.
    if (!(await deps.lifecycle.claimRefresh(order.orderNum, checkIntervalMs(now.getTime() - order.createdAt.getTime(), schedule)))) return;
    await deps.lifecycle.confirmAndApply(order, 'reconcile', 'await');
  }

  async function runRound(): Promise<number> {
    await deps.ready();
    const now = deps.now();
    const held = await sweep.claimLease(lease, owner, now, new Date(now.getTime() + 3 * schedule.intervalMs));
    if (!held) return 0;
    const candidates = await sweep.listSweepCandidates(
      new Date(now.getTime() - schedule.firstCheckAfterMs),
      new Date(now.getTime() - schedule.firstCheckAfterMs),
      schedule.limit,
    );
    let asked = 0;
    for (const order of candidates) {
      if (stopped) break;
      if (!sweepDue(order, now, schedule)) continue;
      asked += 1;
      try {
        await check(order, deps.now());
      } catch (error) {
        deps.events.emit('warning', { code: 'sweep_order_failed', message: `the sweep could not check order ${order.orderNum}; it is tried again later`, orderNum: order.orderNum, error });
      }
    }
    if (!stopped && deps.afterRound) {
      try {
        await deps.afterRound();
      } catch (error) {
        deps.events.emit('warning', { code: 'retention_failed', message: 'the personal-data retention pass failed; the next round tries again', error });
      }
    }
    return asked;
  }

  function runOnce(): Promise<number> {
    round ??= runRound().finally(() => (round = undefined));
    return round;
  }

  function schedule_(): void {
    if (stopped) return;
    timer = setTimeout(() => {
      runOnce()
        .catch((error: unknown) => deps.events.emit('warning', { code: 'sweep_failed', message: 'a notification sweep round failed; the next one tries again', error }))
        .finally(schedule_);
    }, schedule.intervalMs);
    timer.unref();
  }

  schedule_();
  return {
    runOnce,
    async stop() {
      stopped = true;
      clearTimeout(timer);
      await round?.catch(() => {});
      await sweep.releaseLease(lease, owner).catch(() => {});
    },
  };
}
