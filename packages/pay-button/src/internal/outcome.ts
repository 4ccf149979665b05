/**
 * Pure decisions of `<pay-button>`'s state machine, table-tested.
 */
import type { OrderState } from './api.ts';

/** Reflected `state` of `<pay-button>`. */
export type PayButtonState =
  | 'idle' | 'loading' | 'open' | 'checking'
  | 'paid' | 'pending' | 'expired' | 'failed' | 'cancelled' | 'error';

/** States in which an attempt is in flight: clicks are ignored and the button is busy. */
export function isBusy(state: string): boolean {
  return state === 'loading' || state === 'open' || state === 'checking';
}

/**
 * How the element learned that the customer left the payment page:
 * - `return`: the plug-in's return page (popup message, or the `paybutton_order` redirect back);
 * - `closed`: the popup was closed, or the page came back (Back button, bfcache) without a return.
 */
export type Via = 'return' | 'closed';

export type Terminal = 'pay-success' | 'pay-pending' | 'pay-failure' | 'pay-cancel';

/**
 * The state and event for the order's last known status. Once the payment page has opened, a
 * pending order may still be paid (a VA number at the ATM, a QR code, a retail code, the page
 * opened again), whether the customer came back through the return page, closed the window or went
 * Back: it is `pending`, never `cancelled`, and the element keeps watching it. Only a window closed
 * before the payment page opened is a cancellation (see `<pay-button>`).
 */
export function outcome(status: OrderState): [PayButtonState, Terminal] {
  return status === 'paid' ? ['paid', 'pay-success'] : status === 'pending' ? ['pending', 'pay-pending'] : [status, 'pay-failure'];
}

/** Name of the query parameter the plug-in's return route adds when it redirects back. */
export const RETURN_PARAM = 'paybutton_order';

/**
 * `href` without a `#paybutton_token=` fragment (an older plug-in put the status token there; a
 * secret is never read from, nor left in, the address bar) and, when `dropParam`, without our
 * `paybutton_order` parameter: the `returnTo` of a redirect flow, and the address bar
 * after a return.
 */
export function withoutReturnParam(href: string, dropParam: boolean): string {
  const url = new URL(href);
  if (dropParam) url.searchParams.delete(RETURN_PARAM);
  return url.href.replace(/#paybutton_token=.*/, '');
}

/**
 * Whether a page load picks a stored attempt up, and how: `return` when the URL's
 * `paybutton_order` names the stored order, `closed` when the customer came back with the Back
 * button (no return), nothing otherwise (a fresh visit must not replay an old outcome).
 */
export function pickUp(returned: string | null, navigationType: string | undefined, storedOrder: string): Via | undefined {
  if (returned) return returned === storedOrder ? 'return' : undefined;
  return navigationType === 'back_forward' ? 'closed' : undefined;
}
