/**
 * The sandbox JSON API (mounted only with `sandbox: true`): simulate what a customer or time
 * would do to an order, read and resend notifications, and set fault rules.
 *
 *   POST /sandbox/orders/:platOrderNum/pay      {method?}   pay (choosing the method first if given; OVO = EWALLET_OVO)
 *   POST /sandbox/orders/:platOrderNum/expire                expire now, whatever its expiry time
 *   POST /sandbox/orders/:platOrderNum/fail                  fail it
 *   GET  /sandbox/orders/:platOrderNum                       the order
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
 * A POST, PUT or DELETE a browser sends from another site is refused with 403 (`refuseCrossSite`).
 */
import { merchantCodeField, optionalMethodField, orderNumField, parseWith, platOrderNumField } from '@paybutton/protocol';
import express, { type NextFunction, type Request, type Response, type Router } from 'express';
import { z } from 'zod';
import { chooseMethod } from '../domain/create-order.ts';
import { DomainError } from '../domain/errors.ts';
import { readOrder, transition } from '../domain/transitions.ts';
import type { Order } from '../domain/types.ts';
import type { Deliveries } from '../notify/deliveries.ts';
import { deleteFaultRule, listFaultRules, putFaultRule } from '../store/faults.ts';
import { paymentLinkUrl, type GatewayRuntime } from '../runtime.ts';
import { NUL_RULE } from '../http/authenticate.ts';
import { jsonBody, requireJson } from '../http/edges.ts';
import { isSameOriginPost } from '../page/csp.ts';
import { faultSettingsSchema } from './faults.ts';
import { deliveryView, orderView } from './views.ts';

/** A route parameter as one string (Express types allow arrays for wildcard routes). */
function param(req: Request, name: string): string | null {
  const value = req.params[name];
  return typeof value === 'string' ? value : null;
}

type Refusal = { status: number; code: 'FAIL' | 'NOTEXIST'; message: string };

function refusalOf(error: DomainError): Refusal {
  if (error.code === 'order-not-found') return { status: 404, code: 'NOTEXIST', message: error.message };
  if (error.code === 'amount-out-of-range') return { status: 400, code: 'FAIL', message: error.message };
  return { status: 409, code: 'FAIL', message: error.message };
}

function refuse(res: Response, refusal: Refusal): void {
  res.status(refusal.status).json({ platRespCode: refusal.code, platRespMessage: refusal.message });
}

function ok(res: Response, message: string, data: Record<string, unknown>): void {
  res.set('Cache-Control', 'no-store').json({ platRespCode: 'SUCCESS', platRespMessage: message, ...data });
}

/** `method` spelled as `prepaidOrder` takes it: a code, its alias (`OVO`, `BCA`), or null, `""` or absent. */
const payBodySchema = z.object({ method: optionalMethodField }, { error: 'must be a JSON object' }).strict();
const advanceBodySchema = z
  .object({
    minutes: z
      .number({ error: 'must be a number of minutes' })
      .positive({ error: 'must be more than 0' })
      .max(10 * 365 * 24 * 60, { error: 'must be at most ten years' }),
  })
  .strict();
const withoutNul = /^[^\u0000]*$/;
const deliveriesQuerySchema = z.object({
  // The protocol's field rules (orderNum's printable ASCII already excludes U+0000).
  orderNum: orderNumField.optional(),
  merchantCode: merchantCodeField.regex(withoutNul, { error: NUL_RULE }).optional(),
  platOrderNum: platOrderNumField.regex(withoutNul, { error: NUL_RULE }).optional(),
  limit: z.coerce.number().int().min(1).max(500).optional(),
});

const CHANGING_METHODS = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);
const firstOf = (value: string | string[] | undefined) => (Array.isArray(value) ? value[0] : value);

/**
 * The sandbox API changes orders and takes no credentials, so a page on another site must not
 * drive it: a cross-site form (or a no-cors fetch) POSTs without a CORS preflight, and a body-less
 * one passes the JSON content-type check. Browsers say where a request comes from
 * (`Sec-Fetch-Site`, `Origin`), and the page's own same-origin rule judges it; tools (curl, a
 * merchant's server, tests) send neither header and pass.
 */
const refuseCrossSite = (runtime: GatewayRuntime) => (req: Request, res: Response, next: NextFunction): void => {
  if (!CHANGING_METHODS.has(req.method)) return next();
  const sameOrigin = isSameOriginPost({
    secFetchSite: firstOf(req.headers['sec-fetch-site']),
    origin: firstOf(req.headers.origin),
    host: req.headers.host,
    ownOrigins: runtime.ownOrigins(),
  });
  if (sameOrigin) return next();
  refuse(res, { status: 403, code: 'FAIL', message: 'Origin: the sandbox API refuses requests from another site' });
};

export function sandboxRouter(runtime: GatewayRuntime, deliveries: Deliveries): Router {
  const router = express.Router();
  router.use(refuseCrossSite(runtime), requireJson(runtime.sign, { bodyRequired: false }), ...jsonBody(runtime.sign));
  // Path segments go to the store as they are: U+0000, which PostgreSQL text cannot hold, is refused.
  for (const name of ['platOrderNum', 'id', 'merchantCode', 'orderNum']) {
    router.param(name, (_req, res, next, value: unknown) => {
      if (typeof value === 'string' && value.includes('\u0000')) return refuse(res, { status: 400, code: 'FAIL', message: `${name}: ${NUL_RULE}` });
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
    const body = parseWith(payBodySchema, req.body ?? {});
    if (!body.ok) return refuse(res, { status: 400, code: 'FAIL', message: body.message });
    const platOrderNum = req.params.platOrderNum!;
    await act(req, res, 'paid', async () => {
      if (body.value.method) {
        const current = await readOrder(runtime.domain, platOrderNum);
        if (current?.status === 'PENDING' && current.method === null) await chooseMethod(runtime.domain, platOrderNum, body.value.method);
      }
      return transition(runtime.domain, platOrderNum, 'PAID');
    });
  });
  router.post('/orders/:platOrderNum/expire', (req, res) =>
    act(req, res, 'expired', () => transition(runtime.domain, req.params.platOrderNum!, 'EXPIRED', { force: true })),
  );
  router.post('/orders/:platOrderNum/fail', (req, res) =>
    act(req, res, 'failed', () => transition(runtime.domain, req.params.platOrderNum!, 'FAILED')),
  );
  router.get('/orders/:platOrderNum', async (req, res) => {
    const order = await readOrder(runtime.domain, req.params.platOrderNum!);
    if (!order) return refuse(res, { status: 404, code: 'NOTEXIST', message: 'no such order' });
    ok(res, 'order', { order: view(req, order) });
  });

  const clockView = () => ({ now: new Date(runtime.domain.clock.now()).toISOString(), offsetMinutes: runtime.domain.clock.offsetMs / 60_000 });
  router.get('/clock', (_req, res) => ok(res, 'clock', { clock: clockView() }));
  router.post('/clock/advance', async (req, res) => {
    const body = parseWith(advanceBodySchema, req.body ?? {});
    if (!body.ok) return refuse(res, { status: 400, code: 'FAIL', message: body.message });
    runtime.domain.clock.advance(Math.round(body.value.minutes * 60_000));
    const expired = await runtime.sweepNow();
    ok(res, 'clock advanced', { clock: clockView(), expiredOrders: expired });
  });

  router.get('/deliveries', async (req, res) => {
    const query = parseWith(deliveriesQuerySchema, req.query);
    if (!query.ok) return refuse(res, { status: 400, code: 'FAIL', message: query.message });
    const list = await deliveries.list(query.value);
    ok(res, 'deliveries', { deliveries: list.map(deliveryView) });
  });
  router.post('/deliveries/:id/resend', async (req, res) => {
    const delivery = await deliveries.resend(req.params.id!);
    if (!delivery) return refuse(res, { status: 404, code: 'NOTEXIST', message: 'no such notification' });
    ok(res, 'queued again', { delivery: deliveryView(delivery) });
  });

  const db = runtime.domain.database.db;
  router.get('/faults', async (_req, res) => ok(res, 'fault rules', { faults: await listFaultRules(db) }));
  const putRule = async (req: Request, res: Response) => {
    const settings = parseWith(faultSettingsSchema, req.body ?? {});
    if (!settings.ok) return refuse(res, { status: 400, code: 'FAIL', message: settings.message });
    const rule = { merchantCode: param(req, 'merchantCode') ?? '', orderNum: param(req, 'orderNum'), settings: settings.value };
    await putFaultRule(db, rule, runtime.domain.clock.now());
    ok(res, 'fault rule set', { fault: rule });
  };
  const deleteRule = async (req: Request, res: Response) => {
    const removed = await deleteFaultRule(db, param(req, 'merchantCode') ?? '', param(req, 'orderNum'));
    if (!removed) return refuse(res, { status: 404, code: 'NOTEXIST', message: 'no such fault rule' });
    ok(res, 'fault rule removed', {});
  };
  router.put('/faults/:merchantCode', putRule);
  router.delete('/faults/:merchantCode', deleteRule);
  router.put('/faults/:merchantCode/orders/:orderNum', putRule);
  router.delete('/faults/:merchantCode/orders/:orderNum', deleteRule);
  return router;
}
