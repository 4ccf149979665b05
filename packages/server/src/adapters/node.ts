/**
 * `@tombolbayar/server/node`: the plug-in on plain `node:http` (no framework).
 *
 *     import { createServer } from 'node:http';
 *     import { createPayButton } from '@tombolbayar/server';
 *     import { payButtonNode } from '@tombolbayar/server/node';
 *
 *     const pay = createPayButton<IncomingMessage>({ gatewayUrl, merchantCode, privateKey, platformPublicKey, publicUrl, quote, onPaid });
 *     const payRoutes = payButtonNode(pay);
 *     createServer((req, res) => payRoutes(req, res, () => { res.statusCode = 404; res.end(); })).listen(3000);
 *
 * The same view of the request as the Express adapter (`node-request.ts`: the body read straight
 * from the socket, within each route's limit), so a body the client abandons half-way costs a
 * closed stream, never a crash. The client's address is the socket's peer unless `clientAddress`
 * says otherwise (behind a proxy of yours).
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { PayButtonError } from '../errors.ts';
import { coreOf, type PayButtonHandler } from '../core.ts';
import { toRequest, writeAnswer, type NodeRequest } from './node-request.ts';
import { nodeMetricsRoute } from './node-metrics.ts';
import type { MetricsRouteOptions } from '../observability/metrics-route.ts';
import type { Registry } from 'prom-client';

export type { MetricsRouteOptions } from '../observability/metrics-route.ts';

export interface PayButtonNodeOptions {
  /** The client's address for the per-client limit. Default: the socket's peer address. */
  readonly clientAddress?: (req: IncomingMessage) => string | undefined;
}

/**
 * `(req, res, next)`: answers the plug-in's paths under the `mountPath` given to `createPayButton()`
 * (`/pay` by default); any other path goes to `next`
 * (answered 404 when there is none). Failures the core did not answer become a 500 without detail.
 */
export type PayButtonNodeHandler = (req: IncomingMessage, res: ServerResponse, next?: (error?: unknown) => void) => void;

/** Mounts what `createPayButton<IncomingMessage>()` returned on a `node:http` server. */
export function payButtonNode(pay: PayButtonHandler<IncomingMessage>, options: PayButtonNodeOptions = {}): PayButtonNodeHandler {
  const core = pay && typeof pay === 'object' ? coreOf(pay) : undefined;
  if (!core) {
    const message = 'must be what createPayButton({ ... }) returned';
    throw new PayButtonError('config_invalid', `payButtonNode(): pay: ${message}`, { issues: [{ field: 'pay', message }] });
  }
  const clientAddress = options.clientAddress ?? ((req: IncomingMessage) => req.socket.remoteAddress);
  const fallThrough = (res: ServerResponse, next: ((error?: unknown) => void) | undefined): void => {
    if (next) return next();
    res.statusCode = 404;
    res.setHeader('Cache-Control', 'no-store');
    res.end();
  };
  return (req, res, next) => {
    if (req.socket.destroyed) {
      res.destroy();
      return;
    }
    core.handle(toRequest(req as NodeRequest), { clientAddress: clientAddress(req), native: req })
      .then((answer) => (answer === undefined ? fallThrough(res, next) : writeAnswer(answer, req, res)))
      .catch((error: unknown) => {
        if (next) return next(error);
        if (!res.headersSent) {
          res.statusCode = 500;
          res.setHeader('Cache-Control', 'no-store');
        }
        res.end();
      });
  };
}

/**
 * The registry given to `createPayButton({ metrics: { registry } })` as Prometheus text, for a
 * `node:http` server: `if (req.url === '/metrics') return metricsRoute(req, res);` with
 * `const metricsRoute = metricsNode(registry, { token })`. Open to this machine when no proxy
 * forwarded the request (the socket's peer), else to `Authorization: Bearer <token>`.
 */
export function metricsNode(registry: Registry, options?: MetricsRouteOptions): (req: IncomingMessage, res: ServerResponse) => void {
  const route = nodeMetricsRoute('metricsNode', registry, options);
  return (req, res) => {
    route(req, res).catch(() => {
      if (!res.headersSent) res.statusCode = 500;
      res.end();
    });
  };
}
