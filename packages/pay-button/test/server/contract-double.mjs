/**
 * The element's own test double of the network: the plug-in's HTTP contract (issue 5), served by
 * @web/test-runner's dev server, in memory. The demo and e2e suites run the real plug-in.
 *
 * Contract routes, under /api:
 *   POST /api/links, POST /api/va, GET /api/orders/:orderNum (the status token in the
 *   `Tombolbayar-Status-Token` header only; a `?token=` is ignored and counted),
 *   GET /api/orders/:orderNum/qr (QRIS orders; the same header), GET /api/return?orderNum=
 * What the item name asks for:
 *   sold-out-*  -> 409 not_for_sale          down-*    -> 503 gateway_unavailable (retryable)
 *   refused-*   -> 409 quote_refused (an http-errors 4xx from quote())  busy-* -> 429 quote_refused (retryable)
 *   garbage-*   -> 201 outside the contract   hold-*    -> answers only after /api/__test/release
 *   foreign-*   -> 403 origin_not_allowed (the plug-in refused the page's origin)
 *   autopay-*   -> the fake hosted page pays the order at once and goes to the return route
 *   amount[<payMoney>][<payFee>]-* -> the order's amounts are these JSON values (outside the contract, say)
 *   autopay-liar-* -> the status route answers (paid) about another orderNum than the one asked about
 * Test controls (never part of the contract):
 *   POST /api/__test/orders/:orderNum {status, method?, confirmed?}   GET /api/__test/stats?item=
 *     (`method`: the one chosen on the hosted page; `confirmed: false`: the plug-in could not ask
 *     the gateway, so its pending answer is unconfirmed)
 *   POST /api/__test/release?item=               GET /api/__gateway?orderNum= (fake hosted page)
 *   GET /api/__foreign-return?orderNum=          (a return page that posts to any origin)
 *   GET /pages/plain.html?item=&endpoint=        (nothing but the script tag and the tag)
 *   GET /pages/csp.html?item=&probe=             (the same with a strict Content-Security-Policy, and
 *                                                 test/fixtures/csp-violations.js first; probe: an
 *                                                 inline script the policy blocks)
 */
import { randomBytes } from 'node:crypto';
import QRCode from 'qrcode';

const FIXTURES = '/packages/pay-button/test/fixtures';
const DIST = '/packages/pay-button/dist';

/** script-src 'self' with no unsafe-inline and no unsafe-eval; styles and everything else too. */
export const STRICT_CSP =
  "default-src 'self'; script-src 'self'; style-src 'self'; object-src 'none'; base-uri 'none'; frame-ancestors 'self'";

export function contractDouble() {
  const orders = new Map(); // orderNum -> order
  const byKey = new Map(); // idempotencyKey -> orderNum
  const stats = new Map(); // item -> { links, va, gets, bodies }
  const held = new Map(); // item -> [release functions]
  let counter = 0;

  const statsOf = (item = '') => {
    if (!stats.has(item)) stats.set(item, { links: 0, va: 0, gets: 0, tokensInUrl: 0, bodies: [], traceparents: [] });
    return stats.get(item);
  };

  const json = (ctx, status, body) => {
    ctx.status = status;
    ctx.set('Cache-Control', 'no-store');
    ctx.type = 'application/json';
    ctx.body = JSON.stringify(body);
  };
  const fail = (ctx, status, code, retryable, message = code) => json(ctx, status, { error: { code, message, retryable } });
  const page = (ctx, html, headers = {}) => {
    for (const [k, v] of Object.entries(headers)) ctx.set(k, v);
    ctx.type = 'text/html';
    ctx.body = `<!doctype html>${html}`;
  };

  async function readJson(ctx) {
    const chunks = [];
    for await (const chunk of ctx.req) chunks.push(chunk);
    try {
      return JSON.parse(Buffer.concat(chunks).toString('utf8'));
    } catch {
      return undefined;
    }
  }

  /** Answers for the scenario items; undefined means "behave normally". */
  async function scenario(ctx, item) {
    if (item.startsWith('hold-')) await new Promise((resolve) => held.set(item, [...(held.get(item) ?? []), resolve]));
    if (item.startsWith('sold-out')) return fail(ctx, 409, 'not_for_sale', false, 'This item is not for sale.'), true;
    if (item.startsWith('refused')) return fail(ctx, 409, 'quote_refused', false, 'Only 2 left in stock.'), true;
    if (item.startsWith('busy')) return fail(ctx, 429, 'quote_refused', true, 'Too Many Requests'), true;
    if (item.startsWith('down')) return fail(ctx, 503, 'gateway_unavailable', true, 'The gateway is unavailable.'), true;
    if (item.startsWith('garbage')) return json(ctx, 201, { hello: 'world' }), true;
    if (item.startsWith('foreign')) return fail(ctx, 403, 'origin_not_allowed', false, "This shop's payments are not allowed from this origin."), true;
    return false;
  }

  function createOrder(ctx, body, kind) {
    const existing = byKey.get(body.idempotencyKey);
    if (existing) return orders.get(existing);
    const orderNum = `T${Date.now().toString(36)}${++counter}`;
    const method = body.method ?? null;
    const amounts = /^amount\[(.*?)\]\[(.*?)\]-/.exec(body.item ?? '');
    const order = {
      orderNum,
      token: randomBytes(12).toString('hex'),
      status: 'pending',
      item: body.item ?? '',
      method,
      payMoney: amounts ? JSON.parse(amounts[1]) : '150000',
      payFee: amounts ? JSON.parse(amounts[2]) : '4000',
      vaNumber: method === 'QRIS' ? '00020101021226610016ID.CO.QRIS.WWW0118936000000000000000' : `8808${String(counter).padStart(8, '0')}`,
      expiresAt: new Date(Date.now() + 3600_000).toISOString(),
      returnTo: body.returnTo,
      kind,
    };
    orders.set(orderNum, order);
    byKey.set(body.idempotencyKey, orderNum);
    return order;
  }

  const publicOrder = (o) => ({
    orderNum: o.orderNum,
    status: o.status,
    payMoney: o.payMoney,
    method: o.method,
    // The plug-in says the fee once a method fixed it: the customer transfers payMoney + payFee.
    ...(o.method ? { payFee: o.payFee, vaNumber: o.vaNumber } : {}),
    ...(o.paidAt ? { paidAt: o.paidAt } : {}),
    ...(o.status === 'pending' ? { expiresAt: o.expiresAt } : {}),
    ...(o.unconfirmed && o.status === 'pending' ? { confirmed: false } : {}),
    // Checked with the gateway for this answer: "no method" is the gateway's word.
    ...(o.checked && o.status === 'pending' && !o.method ? { confirmed: true } : {}),
    // Another order of the purchase (the merchant's reference) paid it, or had paid it first.
    ...(o.paidWith && o.status === 'pending' ? { paidWith: o.paidWith } : {}),
    ...(o.duplicateOf && o.status === 'paid' ? { duplicateOf: o.duplicateOf } : {}),
  });

  return async function contract(ctx, next) {
    const { path, method } = ctx;
    const origin = `${ctx.protocol}://${ctx.host}`;

    if (method === 'POST' && (path === '/api/links' || path === '/api/va')) {
      const body = await readJson(ctx);
      if (!body || typeof body.idempotencyKey !== 'string' || body.idempotencyKey.length < 16) {
        return fail(ctx, 400, 'invalid_request', false, 'idempotencyKey: required');
      }
      const item = body.item ?? '';
      const s = statsOf(item);
      path === '/api/links' ? s.links++ : s.va++;
      s.bodies.push(body);
      s.traceparents.push(ctx.get('traceparent') || null);
      if (await scenario(ctx, item)) return;
      if (path === '/api/va') {
        if (!body.method) return fail(ctx, 400, 'invalid_request', false, 'method: required');
        const o = createOrder(ctx, body, 'va');
        return json(ctx, 201, {
          orderNum: o.orderNum, method: o.method, vaNumber: o.vaNumber, payMoney: o.payMoney,
          payFee: o.payFee, expiresAt: o.expiresAt, statusToken: o.token,
        });
      }
      const o = createOrder(ctx, body, 'link');
      const auto = item.startsWith('autopay') ? '&auto=paid' : '';
      return json(ctx, 201, {
        orderNum: o.orderNum,
        url: `${origin}/api/__gateway?orderNum=${o.orderNum}${auto}`,
        expiresAt: o.expiresAt,
        statusToken: o.token,
      });
    }

    const status = /^\/api\/orders\/([^/]+)$/.exec(path);
    if (method === 'GET' && status) {
      const o = orders.get(decodeURIComponent(status[1]));
      if (o && ctx.query.token !== undefined) statsOf(o.item).tokensInUrl++;
      if (!o || ctx.get('Tombolbayar-Status-Token') !== o.token) return fail(ctx, 404, 'not_found', false, 'No such order.');
      statsOf(o.item).gets++;
      // A plug-in shedding load (see POST /api/__test/orders/:orderNum { shed }).
      if (o.shed) return fail(ctx, 503, 'overloaded', true, 'The server is busy.');
      if (o.item.includes('-liar-')) return json(ctx, 200, { ...publicOrder(o), orderNum: `${o.orderNum}X`, status: 'paid' });
      return json(ctx, 200, publicOrder(o));
    }

    const qr = /^\/api\/orders\/([^/]+)\/qr$/.exec(path);
    if (method === 'GET' && qr) {
      const o = orders.get(decodeURIComponent(qr[1]));
      if (!o || o.method !== 'QRIS' || ctx.get('Tombolbayar-Status-Token') !== o.token) return fail(ctx, 404, 'not_found', false, 'No such order.');
      // The plug-in's drawing: one rectangle per run of dark modules, a 4-module quiet zone.
      const { modules } = QRCode.create(o.vaNumber, { errorCorrectionLevel: 'M' });
      let d = '';
      for (let y = 0; y < modules.size; y++) {
        for (let x = 0; x < modules.size; x++) {
          if (!modules.get(y, x)) continue;
          const start = x;
          while (x + 1 < modules.size && modules.get(y, x + 1)) x++;
          d += `M${start + 4} ${y + 4}h${x - start + 1}v1h-${x - start + 1}z`;
        }
      }
      return json(ctx, 200, { orderNum: o.orderNum, size: modules.size + 8, path: d });
    }

    if (method === 'GET' && path === '/api/return') {
      const o = orders.get(String(ctx.query.orderNum));
      if (o?.returnTo) {
        // Full-page flow: back to the page that started the payment (303, as the contract says).
        const back = new URL(o.returnTo);
        back.searchParams.set('tombolbayar_order', o.orderNum);
        ctx.status = 303;
        ctx.redirect(back.href);
        return;
      }
      return page(ctx, `<title>Returning</title><script type="module" src="${FIXTURES}/return.js"></script>`);
    }

    if (method === 'GET' && path === '/api/__gateway') {
      return page(ctx, `<title>Hosted payment page (test double)</title><h1>Pay</h1><script type="module" src="${FIXTURES}/gateway.js"></script>`);
    }
    if (method === 'GET' && path === '/api/__foreign-return') {
      return page(ctx, `<title>Foreign</title><script type="module" src="${FIXTURES}/foreign.js"></script>`);
    }

    const control = /^\/api\/__test\/orders\/([^/]+)$/.exec(path);
    if (method === 'POST' && control) {
      const o = orders.get(decodeURIComponent(control[1]));
      const body = await readJson(ctx);
      if (!o || !['pending', 'paid', 'expired', 'failed'].includes(body?.status)) return fail(ctx, 404, 'not_found', false);
      o.status = body.status;
      if (body.method !== undefined) o.method = body.method;
      o.unconfirmed = body.confirmed === false;
      o.checked = body.confirmed === true;
      o.shed = body.shed === true;
      o.paidWith = body.paidWith;
      o.duplicateOf = body.duplicateOf;
      if (o.status === 'paid') o.paidAt = new Date().toISOString();
      return json(ctx, 200, publicOrder(o));
    }
    if (method === 'GET' && path === '/api/__test/stats') {
      const s = statsOf(String(ctx.query.item ?? ''));
      const list = [...orders.values()].filter((o) => o.item === String(ctx.query.item ?? '')).map(publicOrder);
      return json(ctx, 200, { ...s, orders: list });
    }
    if (method === 'POST' && path === '/api/__test/release') {
      const item = String(ctx.query.item);
      (held.get(item) ?? []).forEach((release) => release());
      held.delete(item);
      return json(ctx, 200, { released: item });
    }

    if (method === 'GET' && (path === '/pages/plain.html' || path === '/pages/csp.html')) {
      const item = String(ctx.query.item ?? 'autopay');
      const tag = String(ctx.query.tag ?? 'pay-button');
      const script = tag === 'pay-va' ? 'pay-va.js' : 'pay-button.js';
      const attrs = tag === 'pay-va' ? ` method="VA_BCA" poll-interval="50"` : ` poll-interval="50"`;
      const csp = path === '/pages/csp.html';
      // Under the policy, a recorder of violations loads before everything else; `probe` adds an
      // inline script the policy must block (the recorder's own check).
      const before = csp ? `<script src="${FIXTURES}/csp-violations.js"></script>${ctx.query.probe ? '<script>window.inlineRan = true</script>' : ''}` : '';
      // Nothing but the script tag and the element.
      return page(
        ctx,
        `${before}<script type="module" src="${DIST}/${script}"></script><${tag} endpoint="/api" item="${item}"${attrs}>Pay</${tag}>`,
        csp ? { 'Content-Security-Policy': STRICT_CSP } : {},
      );
    }

    return next();
  };
}
