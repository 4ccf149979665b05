/**
 * `@tombolbayar/server/express` (and `@tombolbayar/express`): the plug-in on Express.
 *
 *     app.use('/pay', payButton({ gatewayUrl, merchantCode, privateKey, platformPublicKey, publicUrl, quote, onPaid }))
 *
 * or, in the pattern of every framework (`createPayButton()` makes the plug-in, `payButtonX()` mounts it):
 *
 *     const pay = createPayButton<Request>({ ... });
 *     app.use('/pay', payButtonExpress(pay));
 *
 * A plain `(req, res, next)` handler that gives the core a view of `req` (`node-request.ts`), asks
 * the core with what only Express knows (`req.ip`, so `trust proxy` is the app's; `req.baseUrl`; a
 * body a global parser ate), and writes its answer back. A path that is not the plug-in's goes on
 * to `next()`. It imports Express's types only, so it works under Express 4 and 5 alike.
 */
import type { Request as ExpressRequest, RequestHandler } from 'express';
import { PayButtonError } from '../errors.ts';
import type * as Core from '../options.ts';
import { coreOf, createCore, type PayButtonApi, type PayButtonCore, type PayButtonHandler } from '../core.ts';
import { bodyConsumed, parsedBodyOf, toRequest, writeAnswer, type NodeRequest } from './node-request.ts';
import { nodeMetricsRoute } from './node-metrics.ts';
import type { MetricsRouteOptions } from '../observability/metrics-route.ts';
import type { Registry } from 'prom-client';

export type { MetricsRouteOptions } from '../observability/metrics-route.ts';

export { createPayButton, type PayButtonHandler, type PayButtonApi, type ReadyReport } from '../core.ts';
export * from '../public-types.ts';
/** The options of `payButton()`: `quote` and `rateLimit.key` receive Express's `req`. */
export type PayButtonOptions = Core.PayButtonOptions<ExpressRequest>;
export type QuoteFunction = Core.QuoteFunction<ExpressRequest>;
export type RateLimitOptions = Core.RateLimitOptions<ExpressRequest>;
export type RateLimitKey = Core.RateLimitKey<ExpressRequest>;

/** `payButton()`'s answer: the Express handler, carrying the server-side API. */
export interface PayButtonRouter extends RequestHandler, PayButtonApi<PayButtonRouter> {
  /** A readiness handler to mount for probes: `app.get('/readyz', pay.health())`. */
  health(): RequestHandler;
}

/** The Express handler of a core: the plug-in's paths answered, every other path passed to `next()`. */
function expressHandler(core: PayButtonCore<ExpressRequest>): RequestHandler {
  return (req, res, next) => {
    // A request that waited in the socket's queue until its client gave up is not worked on.
    if (req.socket.destroyed) {
      res.destroy();
      return;
    }
    const node = req as NodeRequest;
    const parsedBody = bodyConsumed(node) ? parsedBodyOf(node) : undefined;
    core.handle(toRequest(node), { clientAddress: req.ip, mountPath: req.baseUrl, native: req, ...(parsedBody ? { parsedBody } : {}) })
      .then((answer) => (answer === undefined ? next() : writeAnswer(answer, req, res)))
      .catch(next);
  };
}

/** Mounts what `createPayButton<Request>()` returned: `app.use('/pay', payButtonExpress(pay))`. */
export function payButtonExpress(pay: PayButtonHandler<ExpressRequest>): RequestHandler {
  const core = pay && typeof pay === 'object' ? coreOf(pay) : undefined;
  if (!core) {
    const message = 'must be what createPayButton({ ... }) returned';
    throw new PayButtonError('config_invalid', `payButtonExpress(): pay: ${message}`, { issues: [{ field: 'pay', message }] });
  }
  return expressHandler(core);
}

/** The one line: makes the plug-in and its Express handler, which carries the server-side API. */
export function payButton(options: PayButtonOptions): PayButtonRouter {
  const core = createCore<ExpressRequest>(options);
  const { handler, health } = core;
  const router = expressHandler(core) as PayButtonRouter;
  return Object.assign(router, {
    events: handler.events,
    on: ((name, listener) => {
      handler.on(name, listener);
      return router;
    }) as PayButtonRouter['on'],
    createPaymentLink: handler.createPaymentLink,
    createVaOrder: handler.createVaOrder,
    getOrder: handler.getOrder,
    reconcile: handler.reconcile,
    personalData: handler.personalData,
    ready: handler.ready,
    close: handler.close,
    health: (): RequestHandler => (req, res, next) => {
      health().then((answer) => writeAnswer(answer, req, res)).catch(next);
    },
  });
}

/**
 * The registry given to `payButton({ metrics: { registry } })` as Prometheus text:
 * `app.get('/metrics', metricsExpress(registry, { token: process.env.METRICS_TOKEN }))`. Open to
 * this machine when no proxy forwarded the request (the socket's peer, never `req.ip`), else to
 * `Authorization: Bearer <token>`.
 */
export function metricsExpress(registry: Registry, options?: MetricsRouteOptions): RequestHandler {
  const route = nodeMetricsRoute('metricsExpress', registry, options);
  return (req, res, next) => route(req, res).catch(next);
}
