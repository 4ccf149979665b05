/**
 * `GET /return`: where the gateway sends the customer after paying (the order's `redirectUrl`).
 *
 * The server cannot know whether it is a popup, so it serves a tiny page whose external script
 * (`GET /return.js`; the page allows no inline script) decides:
 * - a popup whose opener is the shop's page that started the payment: post
 *   `{ type: 'tombolbayar:return', orderNum }` to the opener with that page's origin as targetOrigin
 *   (never `*`; the origin of `returnTo`, a configured origin: `publicUrl` or `allowedOrigins`),
 *   and close once the element there echoes it back from that origin;
 * - anything else (a full page, a window another site opened, no acknowledgement): go to
 *   `GET /return/continue`, which 303-redirects to the page that started the payment (the shop's
 *   root when none was recorded) with
 *   `?tombolbayar_order=<orderNum>`. The status token is never put in a URL (it would stay in the
 *   address bar and the history): the element kept it in sessionStorage when it sent the
 *   customer away. It trusts none of this: it asks `GET /orders/:orderNum` with the token in a header.
 *
 * Both routes need the return link's secret `rt`: an unknown order and someone else's order get
 * the same 404 page, so they cannot be used to learn which order numbers exist.
 *
 * The page states the order's outcome as the plug-in knows it, in the customer's language (see
 * `return-page.ts`). Every value written into the HTML goes through `escapeHtml`; the only script
 * is `/return.js`.
 */
import { orderNumField } from '@tombolbayar/protocol';
import { queryValue, type RouteHandler, type CoreRequest } from '../http/context.ts';
import { orderWithSecret, type OrderReader } from '../http/order-access.ts';
import { htmlAnswer, textAnswer } from '../http/respond.ts';
import { tokensEqual } from '../ids.ts';
import { returnToken } from '../orders/callback-urls.ts';
import type { OrderLifecycle } from '../orders/lifecycle.ts';
import type { Order } from '../store/orders.ts';
import { RETURN_CSP, returnLocale, returnPage, type ReturnOutcome } from './return-page.ts';
import { answer, type Answer } from '../http/answer.ts';

/**
 * What the return pages use: they read an order by its return secret; the page asks the gateway
 * about a pending order with no method (through the lifecycle, as a status poll does).
 */
export interface ReturnDeps extends OrderReader {
  readonly lifecycle: Pick<OrderLifecycle, 'confirmAndApply'>;
  /** `publicUrl`'s origin: where a return without a recorded page goes. */
  readonly siteOrigin: string;
  /** `publicUrl + mountPath`. */
  readonly callbackBase: string;
}

const SECURITY_HEADERS = Object.freeze({
  'Content-Security-Policy': RETURN_CSP,
  'Cache-Control': 'no-store',
  'Referrer-Policy': 'no-referrer',
  'X-Content-Type-Options': 'nosniff',
  'Cross-Origin-Opener-Policy': 'unsafe-none',
});

/** The page that started the payment, or the site's root when none was recorded. */
function startPage(deps: ReturnDeps, order: Order): URL {
  return new URL(order.returnTo ?? `${deps.siteOrigin}/`);
}

function returnSecretValid(statusToken: string, rt: unknown): boolean {
  const given = typeof rt === 'string' && rt.length > 0 && rt.length <= 64 ? rt : '';
  return tokensEqual(given, returnToken(statusToken)) && given !== '';
}

/**
 * The order this return link belongs to, or `undefined`: an unknown order and a known one without
 * its own secret `rt` are answered the same, so the return routes tell nothing about which order
 * numbers exist. Both sides do the same work (a lookup and a constant-time comparison).
 */
async function findOrder(deps: ReturnDeps, url: URL): Promise<Order | undefined> {
  const orderNum = orderNumField.safeParse(queryValue(url, 'order'));
  if (!orderNum.success) return undefined;
  return orderWithSecret(deps, orderNum.data, (statusToken) => returnSecretValid(statusToken, queryValue(url, 'rt')));
}

/**
 * What the page says for a status: an order still being created is awaiting payment too; a
 * pending order the gateway confirmed has no method was not started (`confirmed`).
 */
export function outcomeOf(order: Pick<Order, 'status' | 'method'>, confirmed: boolean): ReturnOutcome {
  if (order.status === 'pending' && order.method === null && confirmed) return 'not_started';
  return order.status === 'creating' ? 'pending' : order.status;
}

/**
 * A pending order with no method known may have had one chosen on the hosted page a moment ago
 * (the store learns it from the gateway): ask once, so the page (and the element, which asks the
 * store right after) says "not started" only when the gateway says so. `confirmed` is false
 * when it could not say. The return link is secret and opened once per visit: no rate limit.
 */
async function current(deps: ReturnDeps, order: Order): Promise<{ order: Order; confirmed: boolean }> {
  if (order.status !== 'pending' || order.method !== null) return { order, confirmed: true };
  let timer: ReturnType<typeof setTimeout> | undefined;
  // The customer waits on this page: a slow gateway gets `RETURN_CHECK_MS`, then the page says
  // "not confirmed yet" (the answer, when it comes, is still applied for the next status poll).
  const late = new Promise<undefined>((resolve) => (timer = setTimeout(() => resolve(undefined), RETURN_CHECK_MS)));
  const asked = deps.lifecycle.confirmAndApply(order, 'query', 'background', 'return');
  try {
    const applied = await Promise.race([asked, late]);
    return applied ? { order: applied.order, confirmed: applied.confirmation.kind === 'confirmed' } : { order, confirmed: false };
  } catch {
    return { order, confirmed: false };
  } finally {
    clearTimeout(timer);
    asked.catch(() => undefined);
  }
}

/** How long the return page waits for the gateway's word on a pending order with no method. */
export const RETURN_CHECK_MS = 2_000;

function notFound(request: CoreRequest, url: URL): Answer {
  return htmlAnswer(404, returnPage({ locale: returnLocale(request, url), outcome: 'not_found' }), SECURITY_HEADERS);
}

export function returnPageHandler(deps: ReturnDeps): RouteHandler {
  return async (request, { url }) => {
    const found = await findOrder(deps, url);
    if (!found) return notFound(request, url);
    const { order, confirmed } = await current(deps, found);
    const base = deps.callbackBase;
    const continueUrl = `${base}/return/continue?order=${encodeURIComponent(order.orderNum)}&rt=${encodeURIComponent(String(queryValue(url, 'rt')))}`;
    return htmlAnswer(
      200,
      returnPage({
        locale: returnLocale(request, url),
        outcome: outcomeOf(order, confirmed),
        orderNum: order.orderNum,
        payMoney: order.payMoney,
        payFee: order.payFee,
        continueUrl,
        data: { order: order.orderNum, origin: startPage(deps, order).origin, continue: continueUrl },
        scriptSrc: `${base}/return.js`,
      }),
      SECURITY_HEADERS,
    );
  };
}

export function returnContinueHandler(deps: ReturnDeps): RouteHandler {
  return async (request, { url }) => {
    const order = await findOrder(deps, url);
    if (!order) return notFound(request, url);
    // Only whoever holds the order's own return link gets here: back to the page that started it.
    const target = startPage(deps, order);
    target.searchParams.set('tombolbayar_order', order.orderNum);
    target.hash = '';
    // The body Express's `res.redirect` wrote, for a client that shows it.
    return textAnswer(303, `See Other. Redirecting to ${target.href}`, { ...SECURITY_HEADERS, Location: target.href });
  };
}

/** How long the return page waits for the shop page's acknowledgement before continuing as a full page. */
export const RETURN_ACK_TIMEOUT_MS = 3000;

/**
 * The return page's script. It closes its window only when the opener is the shop's page that
 * started the payment and that page's element acknowledged the message; otherwise (a window
 * opened by another site, an opener that did not answer in time) it continues as the full-page
 * flow, so the customer always sees the outcome and no other site learns when the payment finished.
 *
 * It never reads `opener.location`: for an opener on another origin than this page (a shop page on
 * one of `allowedOrigins`, while this page is on `publicUrl`'s) that throws, and the popup would
 * never close. Instead the message is posted with the expected origin as targetOrigin, so the
 * browser delivers it only to an opener on that origin (and drops it for any other, which so
 * learns nothing), and only an echo from that opener (`event.source`) and that origin
 * (`event.origin`) counts as delivered. `<pay-button>` echoes the message to `event.origin` when it
 * comes from its own popup and its endpoint's origin. Served as a file so the page's CSP can forbid
 * inline script.
 */
export const RETURN_SCRIPT = `(function () {
  'use strict';
  var root = document.getElementById('tombolbayar-return');
  if (!root) return;
  var orderNum = root.getAttribute('data-order');
  var origin = root.getAttribute('data-origin');
  var next = root.getAttribute('data-continue');
  var done = false;
  function proceed() {
    if (done) return;
    done = true;
    if (next) window.location.replace(next);
  }
  // closed and postMessage are the two things any origin may use on another's window.
  var opener = window.opener;
  if (!opener || opener.closed || !orderNum || !origin) return proceed();
  window.addEventListener('message', function (event) {
    if (done || event.source !== opener || event.origin !== origin) return;
    var data = event.data;
    if (data && (data.type === 'tombolbayar:return' || data.type === 'paybutton:return') && data.orderNum === orderNum) {
      done = true;
      window.close();
    }
  });
  try {
    opener.postMessage({ type: 'tombolbayar:return', orderNum: orderNum }, origin);
    // For one version, also in the earlier name: an element a tab loaded before the upgrade.
    opener.postMessage({ type: 'paybutton:return', orderNum: orderNum }, origin);
  } catch (error) {
    return proceed();
  }
  setTimeout(proceed, ${RETURN_ACK_TIMEOUT_MS});
})();
`;

export function returnScriptHandler(): RouteHandler {
  return async () =>
    answer(200, RETURN_SCRIPT, { 'Content-Type': 'text/javascript; charset=utf-8', 'Cache-Control': 'public, max-age=3600', 'X-Content-Type-Options': 'nosniff' });
}
