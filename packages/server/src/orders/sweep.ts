/**
 * The notification sweep: lost notifications found early. A paid order whose notification never
 * came (dropped, refused while the store was down, every resend failed) would otherwise wait for
 * a status poll, or for `reconcile()` after it expires. So the router asks the gateway about its
 * pending orders that have a method chosen (the customer is at the payment step), on a backoff
 * schedule by the order's age: first after `firstCheckAfterMs`, then every quarter of its age,
 * at most every `maxCheckIntervalMs`. A round asks about every order due, oldest first, as many
 * as the gateway query budget allows (`queriesPerSecond`, less the status polls' questions since
 * the last round), a few at a time: the batch follows the backlog, not a fixed size. With the
 * defaults and a backlog within the budget (up to about 2,000 orders with a method at the 90 s
 * cap), a paid order reaches `onPaid` within 90 s + one 15 s round + that round's questions,
 * without anyone polling.
 *
 * A round also runs `onPaid` again for paid orders whose run did not complete and whose lease is
 * free (killed with its process, lost its lease, threw), on the same backoff: an order found paid
 * through the sweep has no notification to bring it back. No gateway question is needed for that.
 *
 * One process at a time sweeps (a lease row in the store, renewed each round); each order is claimed
 * first with the status poll's own claim (`lifecycle.claimRefresh`), so a poll and the sweep never
 * ask twice for one order within its interval, then asked about through the lifecycle's one
 * confirm-and-apply path, which starts `onPaid` for an order found paid (in the background:
 * `close()` waits for it, and a slow `onPaid` never slows a round's questions).
 * The same lease runs the personal-data retention pass after each round (`afterRound`), so one
 * process does it.
 */
import { randomBytes } from 'node:crypto';
import type { PayButtonEvents } from '../events.ts';
import type { Order, OrderStore } from '../store/orders.ts';
import type { SweepStore } from '../store/sweep.ts';
import type { OrderLifecycle } from './lifecycle.ts';
import { checkIntervalMs, pickBatch, rerunDue, roundBudget, scanLimit, SWEEP_CONCURRENCY, type SweepSchedule } from './sweep-schedule.ts';


/** What the sweep uses: its lease and candidates, the lifecycle that asks and applies, the events. */
export interface SweepDeps {
  readonly ready: () => Promise<void>;
  readonly sweep: SweepStore;
  readonly orders: Pick<OrderStore, 'listUnfulfilled'>;
  readonly lifecycle: Pick<OrderLifecycle, 'claimRefresh' | 'confirmAndApply' | 'fulfilInBackground'>;
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

  async function check(order: Order, now: Date, round: { foundPaid: number }): Promise<void> {
    // The status poll's claim: whoever asked within the interval (a poll, another round) already did.
    if (!(await deps.lifecycle.claimRefresh(order.orderNum, checkIntervalMs(now.getTime() - order.createdAt.getTime(), schedule)))) return;
    // onPaid in the background: a slow fulfilment never slows the questions of this round.
    const applied = await deps.lifecycle.confirmAndApply(order, 'reconcile', 'background', 'sweep');
    if (applied.changed && applied.order.status === 'paid') round.foundPaid += 1;
  }

  // The gateway query budget: questions this process sent (first tries), and how many were the sweep's.
  let queries = 0;
  const countQuery = (event: { operation: string; attempt: number }): void => {
    if (event.operation === 'query' && event.attempt === 1) queries += 1;
  };
  deps.events.on('gateway.call', countQuery);
  let lastRound: { started: number; queries: number; asked: number; foundPaid: number } | undefined;

  /** A paid order's onPaid again, claimed like a check so a poll or another round does not join it. */
  async function rerun(order: Order): Promise<void> {
    const age = deps.now().getTime() - (order.paidAt ?? order.createdAt).getTime();
    if (!(await deps.lifecycle.claimRefresh(order.orderNum, checkIntervalMs(age, schedule)))) return;
    deps.lifecycle.fulfilInBackground(order.orderNum, 'reconcile');
  }

  async function runRound(): Promise<number> {
    await deps.ready();
    const now = deps.now();
    const held = await sweep.claimLease(lease, owner, now, new Date(now.getTime() + 3 * schedule.intervalMs));
    if (!held) return 0;
    const started = performance.now();
    const othersSpent = lastRound ? Math.max(0, queries - lastRound.queries - lastRound.asked) : 0;
    const budget = roundBudget(schedule, lastRound && started - lastRound.started, othersSpent);
    const round = { started, queries, asked: 0, foundPaid: 0 };
    lastRound = round;
    const checkedBefore = new Date(now.getTime() - schedule.firstCheckAfterMs);
    const candidates = await sweep.listSweepCandidates(checkedBefore, checkedBefore, scanLimit(schedule));
    const batch = pickBatch(candidates, now, schedule, budget);
    const reruns = (await deps.orders.listUnfulfilled(now, scanLimit(schedule))).filter((order) => rerunDue(order, now, schedule));
    const tasks: Array<{ order: Order; run: () => Promise<void> }> = [
      ...reruns.map((order) => ({ order, run: () => rerun(order) })),
      ...batch.map((order) => ({ order, run: () => ((round.asked += 1), check(order, deps.now(), round)) })),
    ];
    let next = 0;
    const worker = async (): Promise<void> => {
      while (!stopped && next < tasks.length) {
        const { order, run } = tasks[next++]!;
        try {
          await run();
        } catch (error) {
          deps.events.emit('warning', { code: 'sweep_order_failed', message: `the sweep could not check order ${order.orderNum}; it is tried again later`, orderNum: order.orderNum, error });
        }
      }
    };
    await Promise.all(Array.from({ length: Math.min(SWEEP_CONCURRENCY, tasks.length) }, worker));
    if (!stopped && deps.afterRound) {
      try {
        await deps.afterRound();
      } catch (error) {
        deps.events.emit('warning', { code: 'retention_failed', message: 'the personal-data retention pass failed; the next round tries again', error });
      }
    }
    return round.asked;
  }

  /** `sweep.round` for a round this process ran (held the lease), or one that failed. */
  async function reported(): Promise<number> {
    const before = lastRound;
    const started = performance.now();
    try {
      const asked = await runRound();
      if (lastRound !== before) deps.events.emit('sweep.round', { outcome: 'ok', asked, foundPaid: lastRound!.foundPaid, durationMs: performance.now() - started });
      return asked;
    } catch (error) {
      const ran = lastRound !== before ? lastRound! : undefined;
      deps.events.emit('sweep.round', { outcome: 'failed', asked: ran?.asked ?? 0, foundPaid: ran?.foundPaid ?? 0, durationMs: performance.now() - started, error });
      throw error;
    }
  }

  function runOnce(): Promise<number> {
    round ??= reported().finally(() => (round = undefined));
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
      deps.events.off('gateway.call', countQuery);
      await round?.catch(() => {});
      await sweep.releaseLease(lease, owner).catch(() => {});
    },
  };
}
