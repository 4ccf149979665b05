/**
 * `@tombolbayar/server/hono`: the plug-in as a Hono sub-app, mounted where the merchant likes.
 *
 *     import { Hono, type Context } from 'hono';
 *     import { createPayButton } from '@tombolbayar/server';
 *     import { payButtonHono } from '@tombolbayar/server/hono';
 *
 *     const pay = createPayButton<Context>({ gatewayUrl, merchantCode, privateKey, platformPublicKey, publicUrl, quote, onPaid });
 *     app.route('/pay', payButtonHono(pay));
 *
 * Hono already speaks fetch: the sub-app hands `c.req.raw` (the full URL, the body unread) to the
 * core with what only the framework knows: where it was mounted (`basePath`, so the core's
 * `mount_path_mismatch` warning works), Hono's `Context` for `quote(c, body)` and
 * `rateLimit.key(c)`, and the client's address for rate limiting.
 */
import type { Context, Env } from 'hono';
import { Hono } from 'hono';
import { basePath } from 'hono/route';
import type { PayButtonHandler } from '../core.ts';
import type { Registry } from 'prom-client';
import { metricsHandler, type MetricsRouteOptions } from '../observability/metrics-route.ts';

export type { MetricsRouteOptions } from '../observability/metrics-route.ts';

export interface PayButtonHonoOptions<E extends Env = Env> {
  /**
   * The client's address, for the per-client rate limit of order creation. Default: the socket's
   * peer on `@hono/node-server` (what its `getConnInfo` reads), never `X-Forwarded-For`. On another
   * runtime, or behind a proxy you trust, say where it is, e.g. Bun's
   * `(c) => getConnInfo(c).remote.address` from `hono/bun`. `undefined` puts every client in one
   * bucket, so give it wherever you can.
   */
  readonly clientAddress?: (c: Context<E>) => string | undefined;
}

/** What `@hono/node-server` puts in `c.env` (directly, or under `server` when Hono runs inside another server). */
interface NodeBindings {
  readonly incoming?: { readonly socket?: { readonly remoteAddress?: string } };
}

/** The peer address of the socket on `@hono/node-server`; `undefined` on other runtimes. */
export function nodeClientAddress(c: Context): string | undefined {
  const env = c.env as { server?: NodeBindings } & NodeBindings | undefined;
  return (env?.server ?? env)?.incoming?.socket?.remoteAddress;
}

/**
 * The body a middleware before the plug-in already read (`await c.req.json()`): Hono keeps what it
 * read, and gives it again as bytes (JSON as Hono re-serialises it). `undefined` when nothing was
 * kept (the raw stream was read directly): the core then says which middleware to move.
 */
async function earlierBody(c: Context): Promise<Buffer | undefined> {
  try {
    return Buffer.from(await c.req.arrayBuffer());
  } catch {
    return undefined;
  }
}

/**
 * The core's `Response.error()`: the client left before its request was worked on. Hono's servers
 * cannot send a network error (`@hono/node-server` would log a 500 for its status 0), so the
 * connection is ended where it can be, and an empty answer nobody reads stands in.
 */
function clientGone(c: Context): Response {
  const env = c.env as { server?: { incoming?: { destroy?: () => void } }; incoming?: { destroy?: () => void } } | undefined;
  (env?.server ?? env)?.incoming?.destroy?.();
  return new Response(null, { status: 503, headers: { 'Cache-Control': 'no-store' } });
}

/**
 * A Hono app that serves every route of the plug-in; mount it with `app.route(prefix, ...)` at
 * the `mountPath` given to `createPayButton()` (`/pay` by default). `quote` and `rateLimit.key`
 * receive Hono's `Context`: `createPayButton<Context>(...)` types them so.
 */
export function payButtonHono<E extends Env = Env>(pay: PayButtonHandler<Context<E>>, options: PayButtonHonoOptions<E> = {}): Hono<E> {
  if (typeof pay?.fetch !== 'function') throw new TypeError('payButtonHono: pass what createPayButton({ ... }) from @tombolbayar/server returned');
  const clientAddress = options.clientAddress ?? (nodeClientAddress as (c: Context<E>) => string | undefined);
  const app = new Hono<E>();
  app.all('/*', async (c) => {
    const parsedBody = c.req.raw.bodyUsed ? { value: await earlierBody(c) } : undefined;
    const response = await pay.fetch(c.req.raw, { clientAddress: clientAddress(c), mountPath: basePath(c), native: c, ...(parsedBody ? { parsedBody } : {}) });
    return response.type === 'error' ? clientGone(c) : response;
  });
  return app;
}

export interface MetricsHonoOptions<E extends Env = Env> extends MetricsRouteOptions {
  /**
   * The socket's peer address (never a forwarding header). Default: the peer on
   * `@hono/node-server`; elsewhere say where it is (Bun: `(c) => getConnInfo(c).remote.address`),
   * or only the token opens the route.
   */
  readonly peerAddress?: (c: Context<E>) => string | undefined;
}

/**
 * The registry given to `createPayButton({ metrics: { registry } })` as Prometheus text:
 * `app.get('/metrics', metricsHono(registry, { token }))`. Open to this machine when no proxy
 * forwarded the request, else to `Authorization: Bearer <token>`.
 */
export function metricsHono<E extends Env = Env>(registry: Registry, options: MetricsHonoOptions<E> = {}): (c: Context<E>) => Promise<Response> {
  const { peerAddress = nodeClientAddress as (c: Context<E>) => string | undefined, ...route } = options;
  const handle = metricsHandler(registry, route);
  return (c) => handle(c.req.raw, { peerAddress: peerAddress(c) });
}
