/**
 * Serving a metrics registry (the issue 34 contract's access rule, the gateway's too): answered to
 * a loopback peer whose request carries no `Forwarded` / `X-Forwarded-For` (a reverse proxy on the
 * same host makes every public request look loopback, and says so in those headers), or to
 * `Authorization: Bearer <token>` compared in constant time; anything else is `403` JSON naming
 * why. A wrong token is refused even from loopback. The peer address is the socket's, given by the
 * adapter (never `X-Forwarded-For`, never Express's `req.ip`).
 */
import { createHash, timingSafeEqual } from 'node:crypto';
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

/** `127.0.0.0/8`, `::1` and their IPv4-mapped IPv6 spelling. */
export function isLoopbackAddress(address: string | undefined): boolean {
  if (!address) return false;
  const v4 = address.startsWith('::ffff:') ? address.slice(7) : address;
  return address === '::1' || /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(v4);
}

const digest = (value: string): Buffer => createHash('sha256').update(value, 'utf8').digest();

/** Why the request may not read the metrics, or `undefined` when it may (a pure decision). */
export function metricsRefusal(request: MetricsRequest, token: string | undefined): string | undefined {
  const authorization = request.headers.get('authorization');
  if (authorization !== null) {
    const given = /^Bearer\s+(\S+)\s*$/i.exec(authorization)?.[1];
    if (token === undefined) return 'no metrics token is configured, so Authorization is not accepted';
    if (given === undefined || !timingSafeEqual(digest(given), digest(token))) return 'the bearer token does not match';
    return undefined;
  }
  if (request.headers.get('forwarded') !== null || request.headers.get('x-forwarded-for') !== null) {
    return 'the request came through a proxy (Forwarded / X-Forwarded-For): send Authorization: Bearer <token>';
  }
  if (request.peerAddress === undefined) return 'the peer address is unknown here: send Authorization: Bearer <token>';
  if (!isLoopbackAddress(request.peerAddress)) return 'the request is not from this machine: send Authorization: Bearer <token>';
  return undefined;
}

/** The answer to one metrics request. */
export async function metricsAnswer(registry: Registry, options: MetricsRouteOptions, request: MetricsRequest): Promise<Answer> {
  if (request.method !== 'GET' && request.method !== 'HEAD') {
    return jsonAnswer(405, { error: { code: 'method_not_allowed', message: 'Use GET.', retryable: false } }, { Allow: 'GET, HEAD', 'Cache-Control': 'no-store' });
  }
  const refusal = metricsRefusal(request, options.token);
  if (refusal) return jsonAnswer(403, { error: { code: 'forbidden', message: `Metrics refused: ${refusal}.`, retryable: false } }, { 'Cache-Control': 'no-store' });
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
