/**
 * `reconcile()`: the safety net behind notifications. Run it from a timer or a cron job.
 *
 * - Pending orders past their expiry: the gateway is asked (`confirm.ts`) and its answer applied:
 *   paid (a notification was lost), expired or failed. An answer that disagrees with the stored
 *   order (amount, platOrderNum) changes nothing and is reported as a `gateway_mismatch` warning.
 * - Orders left in `creating` (gateway down, process killed mid-call) older than a create can
 *   take: adopted when the gateway has them, marked failed when it says it never did. They are
 *   never re-sent: the customer who asked for them has long been told it failed.
 * - Paid orders whose `onPaid` has not returned yet: it runs again.
 *
 * One order that throws (a row the database refuses to update, a bug) never stops the run: it is
 * reported as a `warning` naming the order, counted in `errors`, and the next order is handled.
 */
import type { Context } from '../context.ts';
import type { Order } from '../store/orders.ts';
import { applyConfirmation, confirmOrder } from './confirm.ts';
import { fulfil } from './settle.ts';

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

/** Run one order's step; a throw is reported and counted, and the run goes on. */
async function guarded(context: Context, orderNum: string, counts: Counts, step: () => Promise<void>): Promise<void> {
  try {
    await step();
  } catch (error) {
    counts.errors += 1;
    context.events.emit('warning', { code: 'reconcile_order_failed', message: `reconcile() could not handle order ${orderNum}; it is left for the next run`, orderNum, error });
  }
}

async function askGateway(context: Context, order: Order, counts: Counts): Promise<void> {
  counts.checked += 1;
  const confirmation = await confirmOrder(context, order);
  const { orders } = context.store;
  if (confirmation.kind === 'not_found') {
    if (order.status !== 'creating') return;
    const now = context.now();
    const marked = await orders.markCreateFailed(order.orderNum, now, {
      code: 'gateway_unknown_outcome',
      message: 'The order never reached the gateway (found by reconcile).',
      gatewayCode: 'NOTEXIST',
    });
    if (marked) {
      counts.failed += 1;
      context.events.emit('order.transition', { orderNum: order.orderNum, kind: order.kind, from: 'creating', to: 'failed', source: 'reconcile', at: now });
    }
    return;
  }
  if (confirmation.kind === 'undetermined') {
    // A mismatch was reported as a warning by confirmOrder; either way the order is left as it is.
    if (confirmation.reason === 'unreachable') counts.unreachable += 1;
    return;
  }
  let current = order;
  if (order.status === 'creating') {
    const now = context.now();
    const created = await orders.markCreated(order.orderNum, confirmation.facts, now);
    if (created) {
      context.events.emit('order.transition', { orderNum: order.orderNum, kind: order.kind, from: 'creating', to: 'pending', source: 'reconcile', at: now });
    }
    current = created ?? (await orders.get(order.orderNum)) ?? order;
  }
  const { changed, order: after } = await applyConfirmation(context, current, confirmation, 'reconcile');
  if (changed && after.status === 'paid') counts.paid += 1;
  if (changed && after.status === 'expired') counts.expired += 1;
  if (changed && after.status === 'failed') counts.failed += 1;
}

export async function reconcile(context: Context, options: ReconcileOptions = {}): Promise<ReconcileReport> {
  await context.ready();
  const limit = options.limit ?? 100;
  const counts: Counts = { checked: 0, paid: 0, expired: 0, failed: 0, fulfilled: 0, fulfilmentFailed: 0, unreachable: 0, errors: 0 };
  const now = context.now();
  const { orders } = context.store;

  const stuckBefore = new Date(now.getTime() - context.options.totalTimeoutMs - 60_000);
  for (const order of await orders.listStuckCreating(now, stuckBefore, limit)) {
    await guarded(context, order.orderNum, counts, async () => {
      const claimed = await orders.claimCreateLease(order.orderNum, now, new Date(now.getTime() + context.options.totalTimeoutMs + 5_000));
      if (!claimed) return;
      try {
        await askGateway(context, order, counts);
      } finally {
        await orders.releaseCreateLease(order.orderNum, context.now(), { code: order.errorCode ?? 'gateway_unknown_outcome', message: order.errorMessage ?? 'outcome unknown' });
      }
    });
  }
  for (const order of await orders.listPendingPastExpiry(now, limit)) {
    await guarded(context, order.orderNum, counts, () => askGateway(context, order, counts));
  }
  for (const order of await orders.listUnfulfilled(context.now(), limit)) {
    await guarded(context, order.orderNum, counts, async () => {
      const result = await fulfil(context, order.orderNum, 'reconcile');
      if (result === 'fulfilled') counts.fulfilled += 1;
      if (result === 'failed') counts.fulfilmentFailed += 1;
    });
  }
  return { ...counts };
}
