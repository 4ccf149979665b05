/**
 * Pure decisions of `<pay-button>`'s state machine, table-tested.
 */
import type { Order } from './api.ts';

/** Reflected `state` of `<pay-button>`. */
export type PayButtonState =
  | 'idle' | 'loading' | 'open' | 'checking'
  | 'paid' | 'pending' | 'expired' | 'failed' | 'cancelled' | 'error';

/** States in which an attempt is in flight: clicks are ignored and the button is busy. */
export function isBusy(state: string): boolean {
  return /^(loading|open|checking)$/.test(state);
}

/**
 * How the element learned that the customer left the payment page:
 * - `return`: the plug-in's return page (popup message, or the `tombolbayar_order` redirect back);
 * - `closed`: the popup was closed;
 * - `found`: the page came back without a return (Back, a bfcache restore, a reload, the shop
 *   opened again in the tab) and found an attempt that had not ended.
 */
export type Via = 'return' | 'closed' | 'found';

export type Terminal = 'pay-success' | 'pay-pending' | 'pay-failure' | 'pay-cancel';

/**
 * The state and event for the order's last known status. A pending order is `pending` only when
 * it may still be paid without the payment page: a method was chosen there (or by `method`), so a
 * VA number, a retail code, a QR code or an e-wallet request exists and money can still arrive.
 * A pending order with no method has nothing to pay once its page is gone: `cancelled`, unless the
 * element saw a method chosen while the page was open (`chosen`) or the plug-in could not confirm
 * it with the gateway (`confirmed: false`): then it is `pending`, "not confirmed yet". (The
 * element keeps its idempotency key, so the next click reopens that same order, never a second.)
 */
export function outcome(order: Pick<Order, 'status' | 'method' | 'confirmed'>, chosen?: boolean): [PayButtonState, Terminal] {
  const { status } = order;
  return status === 'paid'
    ? ['paid', 'pay-success']
    : status !== 'pending'
      ? [status, 'pay-failure']
      : order.method || chosen || order.confirmed === false
        ? ['pending', 'pay-pending']
        : ['cancelled', 'pay-cancel'];
}

/**
 * The words for an outcome: a pending order nobody could confirm (the plug-in could not ask the
 * gateway, see `Order.confirmed`, or a method seen chosen is not known to it yet) is "not
 * confirmed yet", never "cancelled": the customer may have a live payment number.
 */
export function outcomeWords(order: Pick<Order, 'status' | 'method' | 'confirmed'>, chosen?: boolean): PayButtonState | 'unconfirmed' {
  const [state] = outcome(order, chosen);
  return state === 'pending' && !order.method ? 'unconfirmed' : state;
}

/** Name of the query parameter the plug-in's return route adds when it redirects back. */
export const RETURN_PARAM = 'tombolbayar_order';

/**
 * `href` without a `#paybutton_token=` fragment: an older plug-in put the status token there; a
 * secret is never read from, nor left in, the address bar.
 */
export function withoutToken(href: string): string {
  return href.replace(/#paybutton_token=.*/, '');
}

/**
 * `href` without our `tombolbayar_order` parameter (nor the token): the `returnTo` of a redirect
 * flow, and the address bar after a return.
 */
export function withoutReturnParam(href: string): string {
  const url = new URL(href);
  url.searchParams.delete(RETURN_PARAM);
  return withoutToken(url.href);
}

/**
 * How a page load picks a stored attempt up: `return` when the URL's `tombolbayar_order` names the
 * stored order, `found` on a load without a return (Back, a reload: the attempt, popup or full
 * page, is still this cart's), and not at all when the URL returns another order (that return is
 * another element's).
 */
export function pickUp(returned: string | null, storedOrder: string): Via | undefined {
  return !returned ? 'found' : returned === storedOrder ? 'return' : undefined;
}
