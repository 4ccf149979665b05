/**
 * Order state changes: PENDING -> PAID | EXPIRED | FAILED, each a compare-and-set committed
 * together with its outbox notification, and expiry applied whenever an order is read.
 */
import { findOrderByPlatOrderNum, findOverdueOrders, transitionOrder } from '../store/orders.ts';
import { enqueueNotification } from '../notify/enqueue.ts';
import type { DomainContext } from './context.ts';
import { inTransactionSpan } from '../observability/tracing.ts';
import { kindOf } from './notify-kinds.ts';
import { DOMAIN_MESSAGES, DomainError, OrderNotFoundError, OrderNotPendingError } from './errors.ts';
import type { FinalStatus, Order } from './types.ts';

/** Try the compare-and-set once; undefined when it did not apply. */
async function applyTransition(
  context: DomainContext,
  platOrderNum: string,
  to: FinalStatus,
  options: { force?: boolean },
): Promise<Order | undefined> {
  const now = context.clock.now();
  let queued = 0;
  const changed = await inTransactionSpan('order.transition', context.database.engine, () =>
    context.database.db.transaction().execute(async (trx) => {
      const updated = await transitionOrder(trx, platOrderNum, to, now, options);
      if (updated) queued = await enqueueNotification(trx, updated, to, now, context);
      return updated;
    }),
  );
  if (changed) {
    const kind = kindOf(to);
    context.metrics?.orderTransition(kind);
    context.metrics?.notificationsEnqueued(kind, queued);
    context.logger.info({ platOrderNum, orderNum: changed.orderNum, merchantCode: changed.merchantCode, status: to }, 'order transition');
    context.onNotificationQueued();
  }
  return changed;
}

/** The order with its expiry applied for the gateway's clock, or undefined. */
export async function readOrder(context: DomainContext, platOrderNum: string): Promise<Order | undefined> {
  const order = await findOrderByPlatOrderNum(context.database.db, platOrderNum);
  return order ? withExpiryApplied(context, order) : undefined;
}

/** If the order is PENDING past its expiry, expire it now (once, whoever gets there first). */
export async function withExpiryApplied(context: DomainContext, order: Order): Promise<Order> {
  if (order.status !== 'PENDING' || order.expiresAt > context.clock.now()) return order;
  const expired = await applyTransition(context, order.platOrderNum, 'EXPIRED', {});
  return expired ?? (await findOrderByPlatOrderNum(context.database.db, order.platOrderNum)) ?? order;
}

/**
 * Move a PENDING order to a final state. `force` lets the sandbox expire an order before its time.
 * Throws OrderNotFoundError, OrderNotPendingError (with the state it is in, expiry applied), or
 * DomainError('method-required') when paying an order whose method was never chosen.
 */
export async function transition(context: DomainContext, platOrderNum: string, to: FinalStatus, options: { force?: boolean } = {}): Promise<Order> {
  // Two rounds: a concurrent method choice or expiry between the CAS and the re-read is re-judged.
  for (let round = 0; round < 2; round++) {
    const changed = await applyTransition(context, platOrderNum, to, options);
    if (changed) return changed;
    const current = await readOrder(context, platOrderNum);
    if (!current) throw new OrderNotFoundError();
    if (current.status !== 'PENDING') throw new OrderNotPendingError(current.status);
    if (to === 'PAID' && current.method === null) {
      throw new DomainError('method-required', DOMAIN_MESSAGES.methodRequired(), 'method');
    }
  }
  throw new DomainError('order-not-pending', DOMAIN_MESSAGES.orderChanged());
}

/** Expire every overdue PENDING order, in batches; returns how many this call expired. */
export async function sweepExpiredOrders(context: DomainContext, batchSize = 100): Promise<number> {
  let expired = 0;
  for (;;) {
    const due = await findOverdueOrders(context.database.db, context.clock.now(), batchSize);
    for (const platOrderNum of due) {
      if (await applyTransition(context, platOrderNum, 'EXPIRED', {})) expired++;
    }
    if (due.length < batchSize) return expired;
  }
}
