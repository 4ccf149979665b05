/**
 * `@tombolbayar/server/next`: the plug-in as Next.js App Router route handlers, for a catch-all
 * segment (`app/pay/[...path]/route.ts`):
 *
 *     import { payButtonNext } from '@tombolbayar/server/next';
 *     import { getPay } from '../../../lib/pay';
 *     export const runtime = 'nodejs';
 *     export const { GET, POST, OPTIONS } = payButtonNext(getPay);
 *
 * Only Web `Request`/`Response` cross this file: nothing of `next` is imported, so the same handlers
 * run in a test without Next.
 */
import { PayButtonError } from '../errors.ts';
import type { RequestFacts } from '../http/context.ts';
import type { PayButtonHandler } from '../core.ts';
import type { Registry } from 'prom-client';
import { metricsHandler, type MetricsRouteOptions } from '../observability/metrics-route.ts';

export type { MetricsRouteOptions } from '../observability/metrics-route.ts';

export type { RequestFacts } from '../http/context.ts';

/** All the routes need of `createPayButton()`'s handler. */
export type FetchHandler = Pick<PayButtonHandler, 'fetch'>;

/** Says who is asking, from the request alone (a route handler sees no socket). */
export type ClientAddressFunction = (request: Request) => string | undefined;

export interface PayButtonRoutesOptions {
  /**
   * The client's address, the key of the per-client limit on order creation. A Next.js route
   * handler is given no socket address, and `next start` passes a client's own `X-Forwarded-For`
   * through untouched, so no header is trusted unless you say so:
   *
   * - `{ trustedProxies: n }`: `n` proxies of yours (nginx, a load balancer, Vercel) stand in front
   *   and each appends the address it saw to `X-Forwarded-For`: the `n`th entry from the right is
   *   the client (as Express's `trust proxy: n`). Entries a client wrote itself are further left.
   * - a function of the request: your own rule (a header your CDN sets and strips from clients).
   * - left out: no address is passed, and every client shares one bucket of the limit (300 order
   *   creations a minute for the whole shop by default): fine behind nothing but a laptop; in
   *   production name your proxy, or count per session with the plug-in's `rateLimit.key`.
   */
  readonly clientAddress?: ClientAddressFunction | { readonly trustedProxies: number };
}

/** The route handlers Next.js calls; the context carries the catch-all segment's parameters. */
export type PayButtonRouteHandler = (request: Request, context: PayButtonRouteContext) => Promise<Response>;

export type RouteParams = Readonly<Record<string, string | string[] | undefined>>;

/** Next.js 15 and later give `params` as a promise; 14 gave the object itself. */
export interface PayButtonRouteContext {
  readonly params: Promise<RouteParams> | RouteParams;
}

export interface PayButtonRoutes {
  readonly GET: PayButtonRouteHandler;
  readonly POST: PayButtonRouteHandler;
  readonly OPTIONS: PayButtonRouteHandler;
}

/**
 * The handlers for `export const { GET, POST, OPTIONS } = payButtonNext(getPay)`. Pass a
 * function that returns the one `createPayButton()` of the process (made on the first request, not
 * when `next build` loads the route to collect its configuration), or the handler itself.
 */
export function payButtonNext(pay: FetchHandler | (() => FetchHandler), options: PayButtonRoutesOptions = {}): PayButtonRoutes {
  const handlerOf = handlerRule(pay);
  const clientAddress = clientAddressRule(options.clientAddress);
  const handle: PayButtonRouteHandler = async (request, context) => {
    const facts: RequestFacts = { clientAddress: clientAddress(request), mountPath: mountPathOf(request, await context?.params) };
    return handlerOf().fetch(request, facts);
  };
  return { GET: handle, POST: handle, OPTIONS: handle };
}

/**
 * The path the catch-all segment sits under: the request's path less as many segments as the
 * catch-all matched (`/pay/orders/X` with `path: ['orders', 'X']` is under `/pay`). The plug-in
 * compares it with its `mountPath` option and warns once when they differ.
 */
function mountPathOf(request: Request, params: RouteParams | undefined): string {
  const pathname = new URL(request.url).pathname.replace(/\/+$/, '');
  const catchAll = Object.values(params ?? {}).find(Array.isArray);
  // An optional catch-all (`[[...path]]`) reached at its own root matched nothing.
  if (!catchAll) return pathname || '/';
  const segments = pathname.split('/');
  return segments.slice(0, Math.max(1, segments.length - catchAll.length)).join('/') || '/';
}

function handlerRule(pay: unknown): () => FetchHandler {
  if (typeof (pay as FetchHandler | null)?.fetch === 'function') return () => pay as FetchHandler;
  if (typeof pay === 'function') return pay as () => FetchHandler;
  const message = "must be createPayButton()'s handler, or a function that returns it (made on the first request)";
  throw new PayButtonError('config_invalid', `payButtonNext(): pay: ${message}`, { issues: [{ field: 'pay', message }] });
}

function clientAddressRule(option: PayButtonRoutesOptions['clientAddress']): ClientAddressFunction {
  if (option === undefined) return () => undefined;
  if (typeof option === 'function') return option;
  const proxies = (option as { trustedProxies?: unknown } | null)?.trustedProxies;
  if (typeof proxies !== 'number' || !Number.isInteger(proxies) || proxies < 1) {
    const message = 'must be a function (request) => string | undefined, or { trustedProxies: n } with n a whole number, 1 or more';
    throw new PayButtonError('config_invalid', `payButtonNext(): clientAddress: ${message}`, { issues: [{ field: 'clientAddress', message }] });
  }
  return (request) => {
    const hops = (request.headers.get('x-forwarded-for') ?? '').split(',').map((entry) => entry.trim()).filter(Boolean);
    // Fewer entries than proxies: the furthest one there is (as Express's `trust proxy` does).
    return hops[Math.max(0, hops.length - proxies)];
  };
}

/** @deprecated the earlier name of `payButtonNext`, kept for one version. */
export const payButtonRoutes = payButtonNext;

export interface MetricsNextOptions extends MetricsRouteOptions {
  /**
   * A route handler sees no socket, so by default only `Authorization: Bearer <token>` opens the
   * route. A function that knows the peer for sure (a header your own proxy sets and strips from
   * clients) may open it to loopback too.
   */
  readonly peerAddress?: ClientAddressFunction;
}

/**
 * The registry given to `createPayButton({ metrics: { registry } })` as Prometheus text, for
 * `app/metrics/route.ts`: `export const GET = metricsNext(registry, { token: process.env.METRICS_TOKEN })`.
 */
export function metricsNext(registry: Registry, options: MetricsNextOptions = {}): (request: Request) => Promise<Response> {
  const { peerAddress, ...route } = options;
  const handle = metricsHandler(registry, route);
  return (request) => handle(request, { peerAddress: peerAddress?.(request) });
}
