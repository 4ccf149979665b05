/**
 * The sandbox JSON API (mounted only with `sandbox: true`): simulate what a customer or time
 * would do to an order, read and resend notifications, and set fault rules.
 *
 *   POST /sandbox/orders/:platOrderNum/pay      {method?}   pay (choosing the method first if given; OVO = EWALLET_OVO;
 *                                                           a method other than the order's own is refused)
 *   POST /sandbox/orders/:platOrderNum/expire                expire now, whatever its expiry time
 *   POST /sandbox/orders/:platOrderNum/fail                  fail it
 *   GET  /sandbox/orders/:platOrderNum                       the order
 *   GET  /sandbox/orders?number=                             orders a number names: platOrderNum, orderNum or VA number
 *   POST /sandbox/clock/advance                 {minutes}   move the gateway's clock forward
 *   GET  /sandbox/clock
 *   GET  /sandbox/deliveries?orderNum=&merchantCode=&platOrderNum=&limit=
 *   POST /sandbox/deliveries/:id/resend
 *   GET  /sandbox/faults
 *   PUT|DELETE /sandbox/faults/:merchantCode                     merchant-wide rule
 *   PUT|DELETE /sandbox/faults/:merchantCode/orders/:orderNum    one order's rule
 *
 * Answers: `{platRespCode: "SUCCESS", platRespMessage, ...data}`; refusals `{platRespCode,
 * platRespMessage}` with 400 (bad input), 404 (no such order/notification) or 409 (wrong state).
 * Any request a browser sends from another site or another host name (DNS rebinding), reads
 * included, is refused with 403 (`refuseCrossSite`).
 */
import express, { type NextFunction, type Request, type Response, type Router } from 'express';
import { DomainError } from '../domain/errors.ts';
import { readOrder, transition } from '../domain/transitions.ts';
import type { Order } from '../domain/types.ts';
import type { Deliveries } from '../notify/deliveries.ts';
import { deleteFaultRule, listFaultRules, putFaultRule } from './fault-store.ts';
import { paymentLinkUrl, type GatewayRuntime } from '../runtime.ts';
import { NUL_RULE } from '../http/authenticate.ts';
import { jsonBody, requireJson } from '../http/edges.ts';
import { isSameOriginPost } from '../page/csp.ts';
import { faultSettingsSchema } from './faults.ts';
import { advanceBodySchema, deliveriesQuerySchema, parseSandboxInput, payBodySchema } from './input.ts';
import { findOrdersByNumber, lookupQuerySchema } from './lookup.ts';
import { simulatePayment } from './simulate.ts';
import { deliveryJson, orderView } from './views.ts';

/** A route parameter as one string (Express types allow arrays for wildcard routes). */
function param(req: Request, name: string): string | null {
  const value = req.params[name];
  return typeof value === 'string' ? value : null;
}

export type SandboxRefusal = { readonly status: number; readonly code: 'FAIL' | 'NOTEXIST'; readonly message: string };

/**
 * The sandbox's own fixed refusals (the others are DomainError messages and field rules: both
 * enumerated by `test/gateway-texts.test.ts`). No `"`, nothing of the request echoed.
 */
export const SANDBOX_REFUSALS = {
  crossSite: { status: 403, code: 'FAIL', message: 'Origin: the sandbox API refuses requests from another site' },
  noSuchOrder: { status: 404, code: 'NOTEXIST', message: 'platOrderNum: no such order' },
  noSuchNotification: { status: 404, code: 'NOTEXIST', message: 'id: no such notification' },
  noSuchFaultRule: { status: 404, code: 'NOTEXIST', message: 'no such fault rule' },
} as const satisfies Record<string, SandboxRefusal>;

/** A refusal for a path segment holding U+0000 (PostgreSQL text cannot store it). */
export const nulInPath = (name: string): SandboxRefusal => ({ status: 400, code: 'FAIL', message: `${name}: ${NUL_RULE}` });

/** A DomainError as the sandbox answers it: 404 for a missing order, 400 for an amount, 409 for the rest. */
export function refusalOf(error: DomainError): SandboxRefusal {
  if (error.code === 'order-not-found') return { status: 404, code: 'NOTEXIST', message: error.message };
  if (error.code === 'amount-out-of-range') return { status: 400, code: 'FAIL', message: error.message };
  return { status: 409, code: 'FAIL', message: error.message };
}

function refuse(res: Response, refusal: SandboxRefusal): void {
  res.status(refusal.status).json({ platRespCode: refusal.code, platRespMessage: refusal.message });
}

const badInput = (message: string): SandboxRefusal => ({ status: 400, code: 'FAIL', message });

function ok(res: Response, message: string, data: Record<string, unknown>): void {
  res.set('Cache-Control', 'no-store').json({ platRespCode: 'SUCCESS', platRespMessage: message, ...data });
}

const CHANGING_METHODS = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);
const firstOf = (value: string | string[] | undefined) => (Array.isArray(value) ? value[0] : value);

/**
 * The sandbox API changes orders and takes no credentials, and its reads show every notification
 * (names, e-mails, `platSign`), orders (phone, `redirectUrl` with its token), faults and the
 * clock: so every request, on every method, GET included, must come from the gateway itself
 * (issue 22). A cross-site form (or a no-cors fetch) POSTs without a CORS preflight, and a
 * DNS-rebinding page reads with a `Host` and `Origin` that agree. Browsers say where a request
 * comes from (`Sec-Fetch-Site`, `Origin`), and the page's own same-origin rule judges it against
 * the gateway's configured origins, `Host` included; on a read, `Sec-Fetch-Site: none` (a person
 * typing the URL) counts as no header. Tools (curl, a merchant's server, tests) send neither
 * header and pass on `Host` alone.
 */
export function isFromGatewayItself(runtime: GatewayRuntime, req: Request): boolean {
  const secFetchSite = firstOf(req.headers['sec-fetch-site']);
  const typed = !CHANGING_METHODS.has(req.method) && secFetchSite === 'none';
  return isSameOriginPost({
    secFetchSite: typed ? undefined : secFetchSite,
    origin: firstOf(req.headers.origin),
    host: req.headers.host,
    ownOrigins: runtime.ownOrigins(req),
  });
}

const refuseCrossSite = (runtime: GatewayRuntime) => (req: Request, res: Response, next: NextFunction): void => {
  if (isFromGatewayItself(runtime, req)) return next();
  refuse(res, SANDBOX_REFUSALS.crossSite);
};

export function sandboxRouter(runtime: GatewayRuntime, deliveries: Deliveries): Router {
  const router = express.Router();
  router.use(refuseCrossSite(runtime), requireJson(runtime.sign, { bodyRequired: false }), ...jsonBody(runtime.sign));
  // Path segments go to the store as they are: U+0000, which PostgreSQL text cannot hold, is refused.
  for (const name of ['platOrderNum', 'id', 'merchantCode', 'orderNum']) {
    router.param(name, (_req, res, next, value: unknown) => {
      if (typeof value === 'string' && value.includes('\u0000')) return refuse(res, nulInPath(name));
      next();
    });
  }
  const view = (req: Request, order: Order) =>
    orderView(order, order.kind === 'link' ? paymentLinkUrl(runtime.publicBaseUrl(req), order.platOrderNum) : null);

  async function act(req: Request, res: Response, message: string, action: () => Promise<Order>) {
    try {
      ok(res, message, { order: view(req, await action()) });
    } catch (error) {
      if (error instanceof DomainError) return refuse(res, refusalOf(error));
      throw error;
    }
  }

  router.post('/orders/:platOrderNum/pay', async (req, res) => {
    const body = parseSandboxInput(payBodySchema, req.body ?? {});
    if (!body.ok) return refuse(res, badInput(body.message));
    await act(req, res, 'paid', () => simulatePayment(runtime.domain, req.params.platOrderNum!, body.value.method));
  });
  router.post('/orders/:platOrderNum/expire', (req, res) =>
    act(req, res, 'expired', () => transition(runtime.domain, req.params.platOrderNum!, 'EXPIRED', { force: true })),
  );
  router.post('/orders/:platOrderNum/fail', (req, res) =>
    act(req, res, 'failed', () => transition(runtime.domain, req.params.platOrderNum!, 'FAILED')),
  );
  router.get('/orders', async (req, res) => {
    const query = parseSandboxInput(lookupQuerySchema, req.query);
    if (!query.ok) return refuse(res, badInput(query.message));
    const orders = await findOrdersByNumber(runtime.domain, query.value.number);
    ok(res, 'orders', { orders: orders.map((order) => view(req, order)) });
  });
  router.get('/orders/:platOrderNum', async (req, res) => {
    const order = await readOrder(runtime.domain, req.params.platOrderNum!);
    if (!order) return refuse(res, SANDBOX_REFUSALS.noSuchOrder);
    ok(res, 'order', { order: view(req, order) });
  });

  const clockView = () => ({ now: new Date(runtime.domain.clock.now()).toISOString(), offsetMinutes: runtime.domain.clock.offsetMs / 60_000 });
  router.get('/clock', (_req, res) => ok(res, 'clock', { clock: clockView() }));
  router.post('/clock/advance', async (req, res) => {
    const body = parseSandboxInput(advanceBodySchema, req.body ?? {});
    if (!body.ok) return refuse(res, badInput(body.message));
    runtime.domain.clock.advance(Math.round(body.value.minutes * 60_000));
    const expired = await runtime.sweepNow();
    ok(res, 'clock advanced', { clock: clockView(), expiredOrders: expired });
  });

  router.get('/deliveries', async (req, res) => {
    const query = parseSandboxInput(deliveriesQuerySchema, req.query);
    if (!query.ok) return refuse(res, badInput(query.message));
    const list = await deliveries.list(query.value);
    ok(res, 'deliveries', { deliveries: list.map(deliveryJson) });
  });
  router.post('/deliveries/:id/resend', async (req, res) => {
    const delivery = await deliveries.resend(req.params.id!);
    if (!delivery) return refuse(res, SANDBOX_REFUSALS.noSuchNotification);
    ok(res, 'queued again', { delivery: deliveryJson(delivery) });
  });

  const db = runtime.domain.database.db;
  router.get('/faults', async (_req, res) => ok(res, 'fault rules', { faults: await listFaultRules(db) }));
  const putRule = async (req: Request, res: Response) => {
    const settings = parseSandboxInput(faultSettingsSchema, req.body ?? {});
    if (!settings.ok) return refuse(res, badInput(settings.message));
    const rule = { merchantCode: param(req, 'merchantCode') ?? '', orderNum: param(req, 'orderNum'), settings: settings.value };
    await putFaultRule(db, rule, runtime.domain.clock.now());
    ok(res, 'fault rule set', { fault: rule });
  };
  const deleteRule = async (req: Request, res: Response) => {
    const removed = await deleteFaultRule(db, param(req, 'merchantCode') ?? '', param(req, 'orderNum'));
    if (!removed) return refuse(res, SANDBOX_REFUSALS.noSuchFaultRule);
    ok(res, 'fault rule removed', {});
  };
  router.put('/faults/:merchantCode', putRule);
  router.delete('/faults/:merchantCode', deleteRule);
  router.put('/faults/:merchantCode/orders/:orderNum', putRule);
  router.delete('/faults/:merchantCode/orders/:orderNum', deleteRule);
  return router;
}
