/**
 * What an order's last known status means for `<pay-button>` (pure decisions, table-tested). Used
 * by the asking about the order (`order-check.ts`), in the attempt's chunk.
 */
import type { Order } from './api.ts';
import type { PayButtonState } from './outcome.ts';

export type Terminal = 'pay-success' | 'pay-pending' | 'pay-failure' | 'pay-cancel';

/**
 * The state and event for the order's last known status. A pending order is `pending` only when
 * it may still be paid without the payment page: a method was chosen there (or by `method`), so a
 * VA number, a retail code, a QR code or an e-wallet request exists and money can still arrive.
 * A pending order with no method has nothing to pay once its page is gone: `cancelled`, unless the
 * element saw a method chosen while the page was open (`chosen`) or the plug-in could not confirm
 * it with the gateway (`confirmed: false`): then it is `pending`, "not confirmed yet". (The
 * element keeps its idempotency key, so the next click reopens that same order, never a second.)
 * A pending order whose purchase another order paid (`paidWith`) is `cancelled`: nothing to pay.
 */
export function outcome(order: Pick<Order, 'status' | 'method' | 'confirmed' | 'paidWith'>, chosen?: boolean): [PayButtonState, Terminal] {
  const { status } = order;
  return status === 'paid'
    ? ['paid', 'pay-success']
    : status !== 'pending'
      ? [status, 'pay-failure']
      : order.paidWith
        ? ['cancelled', 'pay-cancel']
        : order.method || chosen || order.confirmed === false
        ? ['pending', 'pay-pending']
        : ['cancelled', 'pay-cancel'];
}

/**
 * The words for an outcome: a pending order nobody could confirm (the plug-in could not ask the
 * gateway, see `Order.confirmed`, or a method seen chosen is not known to it yet) is "not
 * confirmed yet", never "cancelled": the customer may have a live payment number.
 */
export function outcomeWords(order: Pick<Order, 'status' | 'method' | 'confirmed' | 'paidWith'>, chosen?: boolean): PayButtonState | 'unconfirmed' | 'paidWith' {
  const [state] = outcome(order, chosen);
  return order.paidWith && state === 'cancelled' ? 'paidWith' : state === 'pending' && !order.method ? 'unconfirmed' : state;
}
