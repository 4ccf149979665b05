/**
 * Pure decisions of `<pay-button>`'s state machine, table-tested: the ones the element needs at
 * once (its states, the return's address). What an order's status means is in `order-outcome.ts`,
 * with the asking, in the attempt's chunk.
 */

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
