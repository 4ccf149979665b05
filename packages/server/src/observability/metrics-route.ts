/**
 * Serving a metrics registry, to whom store-kit's `metricsAccess` lets in (the gateway's rule too:
 * a loopback peer that came through no proxy, or `Authorization: Bearer <token>`); anything else
 * is `403` JSON naming why. The peer address is the socket's, given by the adapter (never
 * `X-Forwarded-For`, never Express's `req.ip`).
 */
import { metricsAccess, METRICS_REFUSALS } from '@tombolbayar/store-kit';
import type { Registry } from 'prom-client';
import { answer, type Answer } from '../http/answer.ts';
import { jsonAnswer } from '../http/respond.ts';

export interface MetricsRouteOptions {
  /** A bearer token that opens the route from anywhere (`Authorization: Bearer <token>`). */
  readonly token?: string;
}

/** What the access rule reads of a request. */
export interface MetricsRequest {
  readonly method: string;
  readonly headers: Pick<Headers, 'get'>;
  /** The socket's peer address, from the adapter; `undefined` when the runtime gives none (then only the token opens). */
  readonly peerAddress?: string | undefined;
}

/** The access rule (store-kit's, the gateway's too) for one route's token. */
const accessRules = new WeakMap<MetricsRouteOptions, ReturnType<typeof metricsAccess>>();
function refusalOf(options: MetricsRouteOptions, request: MetricsRequest) {
  let rule = accessRules.get(options);
  if (!rule) accessRules.set(options, (rule = metricsAccess(options.token)));
  const { headers } = request;
  return rule({ authorization: headers.get('authorization'), forwarded: headers.get('forwarded') !== null || headers.get('x-forwarded-for') !== null, peerAddress: request.peerAddress });
}

/** The answer to one metrics request. */
export async function metricsAnswer(registry: Registry, options: MetricsRouteOptions, request: MetricsRequest): Promise<Answer> {
  if (request.method !== 'GET' && request.method !== 'HEAD') {
    return jsonAnswer(405, { error: { code: 'method_not_allowed', message: 'Use GET.', retryable: false } }, { Allow: 'GET, HEAD', 'Cache-Control': 'no-store' });
  }
  const refusal = refusalOf(options, request);
  if (refusal) return jsonAnswer(403, { error: { code: 'forbidden', reason: refusal, message: `Metrics refused: ${METRICS_REFUSALS[refusal]}.`, retryable: false } }, { 'Cache-Control': 'no-store' });
  const text = await registry.metrics();
  return answer(200, request.method === 'HEAD' ? null : text, { 'Content-Type': registry.contentType, 'Cache-Control': 'no-store' });
}

/** The options checked once, when the route is made. */
export function checkMetricsRoute(helper: string, registry: unknown, options: MetricsRouteOptions | undefined): MetricsRouteOptions {
  if (typeof (registry as Registry | null)?.metrics !== 'function' || typeof (registry as Registry).contentType !== 'string') {
    throw new TypeError(`${helper}(registry): registry must be a prom-client Registry (the one given to payButton({ metrics: { registry } }))`);
  }
  const token = options?.token;
  if (token !== undefined && (typeof token !== 'string' || token.trim() === '' || /\s/.test(token))) {
    throw new TypeError(`${helper}(registry, { token }): token must be a non-empty string without spaces`);
  }
  return { ...(token !== undefined ? { token } : {}) };
}

/** The peer the request came from and the request, for the neutral handler. */
export interface MetricsFacts {
  /** The socket's peer address, when the runtime knows it (Bun: `server.requestIP(request)?.address`). */
  readonly peerAddress?: string | undefined;
}

/**
 * `metricsHandler(registry, { token? })`: the fetch-style route, `(request, { peerAddress }?) =>
 * Response`. Without `peerAddress` only the token opens it.
 */
export function metricsHandler(registry: Registry, options?: MetricsRouteOptions): (request: Request, facts?: MetricsFacts) => Promise<Response> {
  const checked = checkMetricsRoute('metricsHandler', registry, options);
  return async (request, facts = {}) => {
    const result = await metricsAnswer(registry, checked, { method: request.method, headers: request.headers, peerAddress: facts.peerAddress });
    return new Response(result.body, { status: result.status, headers: [...result.headers] });
  };
}
