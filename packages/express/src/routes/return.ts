/**
 * `GET /return`: where the gateway sends the customer after paying (the order's `redirectUrl`).
 *
 * The server cannot know whether it is a popup, so it serves a tiny page whose external script
 * (`GET /return.js`; the page allows no inline script) decides:
 * - a popup (`window.opener`): post `{ type: 'paybutton:return', orderNum }` to the opener with the
 *   merchant page's own origin as targetOrigin (never `*`), then close;
 * - a full page: go to `GET /return/continue`, which 303-redirects to the page that started the
 *   payment (only when the return link's secret `rt` checks out; the site's root otherwise) with
 *   `?paybutton_order=<orderNum>`. The status token is never put in a URL (it would stay in the
 *   address bar and the history): the element kept it in sessionStorage when it sent the
 *   customer away. It trusts none of this: it asks `GET /orders/:orderNum?token=`.
 *
 * Every value written into the HTML goes through `escapeHtml`; the only script is `/return.js`.
 */
import { orderNumField } from '@paybutton/protocol';
import type { Request, RequestHandler, Response } from 'express';
import type { Context } from '../context.ts';
import { tokensEqual } from '../ids.ts';
import { mountUrl, returnToken } from '../orders/create.ts';
import type { Order } from '../store/orders.ts';

/** No inline script, no styles from anywhere, no framing, no forms, no base-URL tricks. */
const RETURN_CSP = "default-src 'none'; script-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'";

/** For text and double-quoted attribute values: the five characters that could end either. */
function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (char) => `&#${char.charCodeAt(0)};`);
}

function securityHeaders(res: Response): void {
  res.set({
    'Content-Security-Policy': RETURN_CSP,
    'Cache-Control': 'no-store',
    'Referrer-Policy': 'no-referrer',
    'X-Content-Type-Options': 'nosniff',
    'Cross-Origin-Opener-Policy': 'unsafe-none',
  });
}

/** The page that started the payment, or the site's root when none was recorded. */
function startPage(context: Context, order: Order): URL {
  return new URL(order.returnTo ?? siteRoot(context));
}

const siteRoot = (context: Context): string => `${context.options.publicUrl.origin}/`;

function returnSecretValid(order: Order, rt: unknown): boolean {
  return typeof rt === 'string' && rt.length > 0 && rt.length <= 64 && tokensEqual(rt, returnToken(order.statusToken));
}

async function findOrder(context: Context, req: Request): Promise<Order | undefined> {
  const orderNum = orderNumField.safeParse(req.query.order);
  if (!orderNum.success) return undefined;
  await context.ready();
  return context.store.orders.get(orderNum.data);
}

function page(title: string, body: string, data: Record<string, string> = {}, scriptSrc?: string): string {
  const attributes = Object.entries(data)
    .map(([key, value]) => ` data-${key}="${escapeHtml(value)}"`)
    .join('');
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="robots" content="noindex">
<title>${escapeHtml(title)}</title>
</head>
<body>
<main id="paybutton-return"${attributes}>
${body}
</main>
${scriptSrc ? `<script src="${escapeHtml(scriptSrc)}"></script>` : ''}
</body>
</html>
`;
}

export function returnPageHandler(context: Context): RequestHandler {
  return async (req, res) => {
    securityHeaders(res);
    const order = await findOrder(context, req);
    if (!order) {
      res.status(404).type('html').send(page('Payment not found', '<h1>Payment not found</h1>\n<p>This return link does not belong to a payment of this shop.</p>'));
      return;
    }
    const base = mountUrl(context);
    const rt = typeof req.query.rt === 'string' ? req.query.rt : '';
    const continueUrl = `${base}/return/continue?order=${encodeURIComponent(order.orderNum)}${rt ? `&rt=${encodeURIComponent(rt)}` : ''}`;
    const body = `<h1>Payment finished</h1>
<p>You can close this window and return to the shop.</p>
<p><a id="paybutton-continue" href="${escapeHtml(continueUrl)}">Back to the shop</a></p>`;
    res.status(200).type('html').send(
      page('Payment finished', body, { order: order.orderNum, origin: startPage(context, order).origin, continue: continueUrl }, `${base}/return.js`),
    );
  };
}

export function returnContinueHandler(context: Context): RequestHandler {
  return async (req, res) => {
    securityHeaders(res);
    const order = await findOrder(context, req);
    if (!order) {
      res.status(404).type('html').send(page('Payment not found', '<h1>Payment not found</h1>'));
      return;
    }
    // Where the customer came from is only told to whoever holds the order's own return link.
    const target = returnSecretValid(order, req.query.rt) ? startPage(context, order) : new URL(siteRoot(context));
    target.searchParams.set('paybutton_order', order.orderNum);
    target.hash = '';
    res.redirect(303, target.href);
  };
}

/**
 * The return page's script: a popup tells its opener and closes; a full page continues to the
 * shop. Served as a file so the page's CSP can forbid inline script.
 */
export const RETURN_SCRIPT = `(function () {
  'use strict';
  var root = document.getElementById('paybutton-return');
  if (!root) return;
  var orderNum = root.getAttribute('data-order');
  var origin = root.getAttribute('data-origin');
  var next = root.getAttribute('data-continue');
  var opener = null;
  try { opener = window.opener; } catch (error) { opener = null; }
  if (opener && !opener.closed && orderNum && origin) {
    try {
      opener.postMessage({ type: 'paybutton:return', orderNum: orderNum }, origin);
      window.close();
      return;
    } catch (error) {
      // The opener is gone or unreachable: continue as a full page.
    }
  }
  if (next) window.location.replace(next);
})();
`;

export function returnScriptHandler(): RequestHandler {
  return (_req, res) => {
    res.set({ 'Cache-Control': 'public, max-age=3600', 'X-Content-Type-Options': 'nosniff' });
    res.type('text/javascript; charset=utf-8').send(RETURN_SCRIPT);
  };
}
