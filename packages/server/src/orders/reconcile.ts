/**
 * `reconcile()`: the safety net behind notifications. Run it from a timer or a cron job.
 *
 * - Pending orders past their expiry: the gateway is asked (`confirm.ts`) and its answer applied:
 *   paid (a notification was lost), expired or failed. An answer that disagrees with the stored
 *   order (amount, platOrderNum) changes nothing and is reported as a `gateway_mismatch` warning.
 * - Orders left in `creating` (gateway down, an answer not trusted, process killed mid-call) older
 *   than a create can take: adopted when the gateway has them, marked failed when it says it never
 *   did (`settleStuckCreates`, which every sweep round runs too). They are never re-sent: the
 *   customer who asked for them has long been told it failed.
 * - Paid orders whose `onPaid` has not returned yet: it runs again.
 *
 * One order that throws (a row the database refuses to update, a bug) never stops the run: it is
 * reported as a `warning` naming the order, counted in `errors`, and the next order is handled.
 */
import type { PayButtonEvents } from '../events.ts';
import type { Order, OrderStore } from '../store/orders.ts';
import type { GatewayConfirmer } from './confirm.ts';
import type { OrderLifecycle } from './lifecycle.ts';

export interface ReconcileOptions {
  /** Most orders looked at per category in one run (default 100). */
  readonly limit?: number;
}

export interface ReconcileReport {
  /** Orders the gateway was asked about. */
  readonly checked: number;
  readonly paid: number;
  readonly expired: number;
  readonly failed: number;
  /** `onPaid` runs that returned. */
  readonly fulfilled: number;
  /** `onPaid` runs that threw (retried next time). */
  readonly fulfilmentFailed: number;
  /** Orders the gateway could not be asked about this time (kept for the next run). */
  readonly unreachable: number;
  /** Orders whose handling threw (each also emitted as a `warning` with its orderNum). */
  readonly errors: number;
}

interface Counts {
  checked: number;
  paid: number;
  expired: number;
  failed: number;
  fulfilled: number;
  fulfilmentFailed: number;
  unreachable: number;
  errors: number;
}

export interface ReconcileDeps {
  readonly ready: () => Promise<void>;
  /** For the lists; every write goes through `lifecycle`. */
  readonly orders: OrderStore;
  readonly lifecycle: OrderLifecycle;
  readonly confirmer: GatewayConfirmer;
  readonly events: PayButtonEvents;
  /** How long a create may take: older `creating` orders are stuck. */
  readonly totalTimeoutMs: number;
  readonly now: () => Date;
}

/** Run one order's step; a throw is reported and counted, and the run goes on. */
async function guarded(deps: ReconcileDeps, orderNum: string, counts: Counts, step: () => Promise<void>): Promise<void> {
  try {
    await step();
  } catch (error) {
    counts.errors += 1;
    deps.events.emit('warning', { code: 'reconcile_order_failed', message: `reconcile (or the sweep) could not handle order ${orderNum}; it is left for the next run`, orderNum, error });
  }
}

/** Ask the gateway about one order and tell the lifecycle what it said. */
async function askGateway(deps: ReconcileDeps, order: Order, counts: Counts): Promise<void> {
  counts.checked += 1;
  const confirmation = await deps.confirmer.confirm(order, { source: 'reconcile' });
  if (confirmation.kind === 'not_found') {
    if (order.status !== 'creating') return;
    const refused = await deps.lifecycle.refused(order, {
      code: 'gateway_unknown_outcome',
      message: 'The order never reached the gateway (found by reconcile).',
      gatewayCode: 'NOTEXIST',
    }, 'reconcile');
    if (refused) counts.failed += 1;
    return;
  }
  if (confirmation.kind === 'undetermined') {
    // A mismatch was reported as a warning by the confirmer; either way the order is left as it is.
    if (confirmation.reason === 'unreachable') counts.unreachable += 1;
    return;
  }
  const current = order.status === 'creating' ? await deps.lifecycle.registered(order, confirmation.facts, 'reconcile') : order;
  // onPaid is run by the last pass below (awaited and counted there).
  const { changed, order: after } = await deps.lifecycle.apply(current, confirmation, 'reconcile', 'deferred');
  if (changed && after.status === 'paid') counts.paid += 1;
  if (changed && after.status === 'expired') counts.expired += 1;
  if (changed && after.status === 'failed') counts.failed += 1;
}

const noCounts = (): Counts => ({ checked: 0, paid: 0, expired: 0, failed: 0, fulfilled: 0, fulfilmentFailed: 0, unreachable: 0, errors: 0 });

/**
 * Orders left in `creating` (the gateway down or its answer not trusted, the process killed
 * mid-call) older than a create can take: each claimed with the create lease, then adopted when
 * the gateway has it, failed when it says it never did, left as it is when it cannot tell. Run by
 * `reconcile()`, which frees each claim at once, and by every sweep round with `holdMs`: the claim
 * is kept that long after a question (at least as long as a create may take), so an order the
 * gateway cannot settle yet is asked about on the sweep's backoff, not every round.
 */
export async function settleStuckCreates(deps: ReconcileDeps, limit: number, holdMs?: (order: Order) => number, counts: Counts = noCounts()): Promise<Counts> {
  const now = deps.now();
  const { orders, lifecycle } = deps;
  const stuckBefore = new Date(now.getTime() - deps.totalTimeoutMs - 60_000);
  const leaseMs = deps.totalTimeoutMs + 5_000;
  for (const order of await orders.listStuckCreating(now, stuckBefore, limit)) {
    await guarded(deps, order.orderNum, counts, async () => {
      const hold = holdMs && Math.max(leaseMs, holdMs(order));
      const claimed = await lifecycle.claimCreate(order.orderNum, new Date(now.getTime() + (hold ?? leaseMs)));
      if (!claimed) return;
      if (hold !== undefined) return askGateway(deps, order, counts);
      try {
        await askGateway(deps, order, counts);
      } finally {
        await lifecycle.releaseCreate(order.orderNum, { code: order.errorCode ?? 'gateway_unknown_outcome', message: order.errorMessage ?? 'outcome unknown' });
      }
    });
  }
  return counts;
}

export async function reconcile(deps: ReconcileDeps, options: ReconcileOptions = {}): Promise<ReconcileReport> {
  await deps.ready();
  const limit = options.limit ?? 100;
  const { orders, lifecycle } = deps;
  const now = deps.now();
  const counts = await settleStuckCreates(deps, limit);
  for (const order of await orders.listPendingPastExpiry(now, limit)) {
    await guarded(deps, order.orderNum, counts, () => askGateway(deps, order, counts));
  }
  for (const order of await orders.listUnfulfilled(deps.now(), limit)) {
    await guarded(deps, order.orderNum, counts, async () => {
      const result = await lifecycle.fulfil(order.orderNum, 'reconcile');
      if (result === 'fulfilled') counts.fulfilled += 1;
      if (result === 'failed') counts.fulfilmentFailed += 1;
    });
  }
  return { ...counts };
}
