/**
 * Which orders may be erased now (pure, table-tested). An order that can still change keeps its
 * data: a `creating` or `pending` one may yet be paid (the gateway's notification and the customer's
 * page need it), and a paid one whose `onPaid` has not returned is still being fulfilled with it.
 * Such an order is refused with its reason; ask again once it is final (our choice, documented in
 * the README: refusing is visible, erasing later silently would not be).
 */
import type { OrderStatus } from '../store/schema.ts';

export type ErasureRefusal = 'order_pending' | 'fulfilment_pending';

export const REFUSAL_TEXT: Record<ErasureRefusal, string> = {
  order_pending: 'the order can still be paid; ask again once it is paid, expired or failed',
  fulfilment_pending: 'the order is paid but onPaid has not completed; ask again once it has',
};

export function erasureRefusal(order: { readonly status: OrderStatus; readonly fulfilledAt: Date | null }): ErasureRefusal | undefined {
  if (order.status === 'creating' || order.status === 'pending') return 'order_pending';
  if (order.status === 'paid' && order.fulfilledAt === null) return 'fulfilment_pending';
  return undefined;
}
