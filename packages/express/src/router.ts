/**
 * `payButton(options)`: the one line a merchant adds,
 *
 *     app.use('/pay', payButton({ gatewayUrl, merchantCode, privateKey, platformPublicKey, publicUrl, quote, onPaid }))
 *
 * The Express adapter of the fetch core (`pay-button.ts`, `fetch/`): a plain `(req, res, next)`
 * handler that gives the core a view of `req` (`express/convert.ts`), asks the core with what
 * only Express knows (`req.ip`, so `trust proxy` is the app's; `req.baseUrl`; a body a global
 * parser ate), and writes its answer back. A path that is not the plug-in's goes on to
 * `next()`. It imports Express's types only, so it works under Express 4 and 5 alike, and carries
 * the server-side API: `createPaymentLink()`, `createVaOrder()`, `getOrder()`, `reconcile()`,
 * `events`, `ready()`, `health()` and `close()`.
 */
import type { Request as ExpressRequest, RequestHandler } from 'express';
import { bodyConsumed, parsedBodyOf, toRequest, writeAnswer, type NodeRequest } from './express/convert.ts';
import type { PayButtonOptions } from './options.ts';
import { createCore, type PayButtonApi } from './pay-button.ts';

export type { ReadyReport } from './pay-button.ts';

export interface PayButtonRouter extends RequestHandler, PayButtonApi<PayButtonRouter> {
  /** A readiness handler to mount for probes: `app.get('/readyz', pay.health())`. */
  health(): RequestHandler;
}

export function payButton(options: PayButtonOptions<ExpressRequest>): PayButtonRouter {
  const { handler, handle, health } = createCore<ExpressRequest>(options);
  const router = ((req, res, next) => {
    // A request that waited in the socket's queue until its client gave up is not worked on.
    if (req.socket.destroyed) {
      res.destroy();
      return;
    }
    const node = req as NodeRequest;
    const parsedBody = bodyConsumed(node) ? parsedBodyOf(node) : undefined;
    handle(toRequest(node), { clientAddress: req.ip, mountPath: req.baseUrl, native: req, ...(parsedBody ? { parsedBody } : {}) })
      .then((answer) => (answer === undefined ? next() : writeAnswer(answer, req, res)))
      .catch(next);
  }) as PayButtonRouter;
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
