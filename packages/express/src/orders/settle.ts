/**
 * How an order reaches its end once the gateway confirmed it (`confirm.ts`: only the gateway's own
 * answer to our query moves an order): a compare-and-set to the final state, then `onPaid` under a
 * lease until it returns.
 *
 * - Paid wins over expired/failed: if the gateway confirms that money arrived, the order is paid
 *   even if an earlier answer said otherwise. Nothing leaves `paid`.
 * - `onPaid` runs at most once at a time (lease), is retried until it returns (the gateway resends
 *   unacknowledged notifications; `reconcile()` picks up the rest), and never runs again after it
 *   returned: `fulfilled_at` is written before the notification is acknowledged.
 * - The lease is renewed while `onPaid` runs (a heartbeat every third of `fulfilmentLeaseMs`), so
 *   a slow `onPaid` keeps it; only a run whose process died lets it run out and be taken over.
 */
import type { Context } from '../context.ts';
import type { OrderTransitionEvent } from '../events.ts';
import { toPublicOrder } from '../public-order.ts';
import type { GatewayFacts, Order } from '../store/orders.ts';
import type { OrderStatus } from '../store/schema.ts';

export type FinalStatus = 'paid' | 'expired' | 'failed';

/** Which states may move to `to`. */
export function allowedFrom(to: FinalStatus): readonly OrderStatus[] {
  return to === 'paid' ? ['creating', 'pending', 'expired', 'failed'] : ['creating', 'pending'];
}

export async function settle(
  context: Context,
  orderNum: string,
  to: FinalStatus,
  facts: GatewayFacts,
  source: OrderTransitionEvent['source'],
): Promise<{ readonly changed: boolean; readonly order: Order }> {
  const now = context.now();
  const moved = await context.store.orders.transition(orderNum, allowedFrom(to), to, facts, now);
  if (moved) {
    context.events.emit('order.transition', { orderNum, kind: moved.order.kind, from: moved.left, to, source, at: now });
    return { changed: true, order: moved.order };
  }
  // Another writer got there first: the order as it is now.
  const order = await context.store.orders.get(orderNum);
  if (!order) throw new Error(`order ${orderNum} disappeared`);
  return { changed: false, order };
}

export type FulfilmentResult = 'fulfilled' | 'already_fulfilled' | 'busy' | 'failed' | 'not_paid';

/**
 * Keep renewing the fulfilment lease of run `attempt` until the returned `stop()` is called (and
 * any renewal in flight has finished). A renewal that finds the lease gone is reported once.
 */
export function leaseHeartbeat(context: Context, orderNum: string, attempt: number): () => Promise<void> {
  const leaseMs = context.options.fulfilmentLeaseMs;
  let stopped = false;
  let timer: NodeJS.Timeout | undefined;
  let inFlight: Promise<void> = Promise.resolve();
  const beat = (): void => {
    inFlight = (async () => {
      const now = context.now();
      try {
        if (!(await context.store.orders.renewFulfilment(orderNum, attempt, now, new Date(now.getTime() + leaseMs)))) {
          if (!stopped) context.events.emit('warning', { code: 'fulfilment_lease_lost', message: `onPaid for order ${orderNum} outlived its lease, which was taken over`, orderNum });
          stopped = true;
        }
      } catch (error) {
        context.events.emit('warning', { code: 'fulfilment_lease_renewal_failed', message: `could not renew the onPaid lease of order ${orderNum}`, orderNum, error });
      }
      if (!stopped) timer = setTimeout(beat, Math.max(100, Math.floor(leaseMs / 3)));
    })();
  };
  timer = setTimeout(beat, Math.max(100, Math.floor(leaseMs / 3)));
  return async () => {
    stopped = true;
    clearTimeout(timer);
    await inFlight;
  };
}

/**
 * Run `onPaid` for a paid order unless it already returned once. `busy` means another run holds
 * the lease right now; `failed` means `onPaid` threw (the lease is released for the next try).
 */
export async function fulfil(context: Context, orderNum: string, source: 'notification' | 'query' | 'reconcile'): Promise<FulfilmentResult> {
  const now = context.now();
  const claimed = await context.store.orders.claimFulfilment(orderNum, now, new Date(now.getTime() + context.options.fulfilmentLeaseMs));
  if (claimed === undefined) {
    const order = await context.store.orders.get(orderNum);
    if (!order || order.status !== 'paid') return 'not_paid';
    return order.fulfilledAt ? 'already_fulfilled' : 'busy';
  }
  const { attempt, order } = claimed;
  const started = performance.now();
  const stopHeartbeat = leaseHeartbeat(context, orderNum, attempt);
  try {
    await context.options.onPaid(toPublicOrder(order), { attempt, source });
  } catch (error) {
    await stopHeartbeat();
    const durationMs = performance.now() - started;
    const name = error instanceof Error ? `${error.name}: ${error.message}` : 'onPaid threw a non-Error value';
    // Only this run's lease is released: a run that lost it must not free a newer run's.
    await context.store.orders.failFulfilment(orderNum, attempt, context.now(), name);
    context.events.emit('fulfilment.failed', { orderNum, attempt, durationMs, error });
    return 'failed';
  }
  await stopHeartbeat();
  await context.store.orders.completeFulfilment(orderNum, context.now());
  context.events.emit('fulfilment.succeeded', { orderNum, attempt, durationMs: performance.now() - started });
  return 'fulfilled';
}
