/**
 * Every request, observed once, first in the app (before the fast lane, the probes and admission):
 * its latency by route template and outcome, and a SERVER span whose parent is extracted from the
 * request's headers, with the rest of the request handled inside that span's context.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { RequestHandler } from 'express';
import { context, propagation, SpanKind, SpanStatusCode, trace, tracer } from './tracing.ts';
import type { GatewayMetrics, RequestOutcome } from './metrics.ts';

/**
 * Route templates by path: a closed set, so a label never holds an order number or any other value
 * a caller chose. Anything not listed is `other`.
 */
const EXACT_ROUTES = new Set([
  '/gateway/pay',
  '/gateway/prepaidOrder',
  '/gateway/query',
  '/gateway/personalData/export',
  '/gateway/personalData/erase',
  '/healthz',
  '/readyz',
  '/metrics',
  '/pay',
  '/pay/status',
  '/pay/leave',
  '/pay/method',
  '/pay/method/change',
  '/pay/sandbox',
  '/sandbox/orders',
  '/sandbox/clock',
  '/sandbox/clock/advance',
  '/sandbox/deliveries',
  '/sandbox/faults',
  '/sandbox/dashboard',
  '/sandbox/dashboard/pay-number',
  '/sandbox/dashboard/clock',
]);

const PATTERN_ROUTES: readonly (readonly [RegExp, string])[] = [
  [/^\/pay\/assets\/[^/]+$/, '/pay/assets/:file'],
  [/^\/pay\/[^/]+$/, '/pay/:id'],
  [/^\/sandbox\/orders\/[^/]+$/, '/sandbox/orders/:platOrderNum'],
  [/^\/sandbox\/orders\/[^/]+\/(pay|expire|fail)$/, '/sandbox/orders/:platOrderNum/$1'],
  [/^\/sandbox\/deliveries\/[^/]+\/resend$/, '/sandbox/deliveries/:id/resend'],
  [/^\/sandbox\/dashboard\/assets\/[^/]+$/, '/sandbox/dashboard/assets/:file'],
  [/^\/sandbox\/dashboard\/orders\/[^/]+$/, '/sandbox/dashboard/orders/:platOrderNum'],
  [/^\/sandbox\/dashboard\/orders\/[^/]+\/[a-z]+$/, '/sandbox/dashboard/orders/:platOrderNum/:action'],
  [/^\/sandbox\/dashboard\/deliveries\/[^/]+\/resend$/, '/sandbox/dashboard/deliveries/:id/resend'],
  [/^\/sandbox\/dashboard\/merchants\/[^/]+(\/notify)?$/, '/sandbox/dashboard/merchants/:merchantCode$1'],
];

/** The route template of a request path (no query string), or `other`. */
export function routeTemplate(path: string): string {
  const trimmed = path.length > 1 && path.endsWith('/') ? path.slice(0, -1) : path;
  if (EXACT_ROUTES.has(trimmed)) return trimmed;
  for (const [pattern, template] of PATTERN_ROUTES) {
    const match = pattern.exec(trimmed);
    // Only the fixed alternatives of a pattern ever reach the template.
    if (match) return template.replace('$1', match[1] ?? '');
  }
  return 'other';
}

/** Marks a request that admission control refused (its outcome is `shed`, whatever the status). */
export function markShed(res: ServerResponse): void {
  (res as ServerResponse & { tombolbayarShed?: boolean }).tombolbayarShed = true;
}

function outcomeOf(res: ServerResponse): RequestOutcome {
  if ((res as ServerResponse & { tombolbayarShed?: boolean }).tombolbayarShed) return 'shed';
  const status = res.statusCode;
  return status >= 500 ? '5xx' : status >= 400 ? '4xx' : status >= 300 ? '3xx' : '2xx';
}

export function observeRequests(metrics: GatewayMetrics): RequestHandler {
  return (req: IncomingMessage, res: ServerResponse, next: () => void) => {
    const started = process.hrtime.bigint();
    const path = (req.url ?? '/').split('?')[0]!;
    const route = routeTemplate(path);
    const parent = propagation.extract(context.active(), req.headers);
    const span = tracer().startSpan(`${req.method} ${route}`, {
      kind: SpanKind.SERVER,
      attributes: { 'http.request.method': req.method ?? 'GET', 'http.route': route },
    }, parent);
    let ended = false;
    const end = () => {
      if (ended) return;
      ended = true;
      const outcome = outcomeOf(res);
      metrics.request(route, outcome, Number(process.hrtime.bigint() - started) / 1e9);
      span.setAttribute('http.response.status_code', res.statusCode);
      if (outcome === '5xx' || outcome === 'shed') span.setStatus({ code: SpanStatusCode.ERROR });
      span.end();
    };
    res.once('finish', end);
    res.once('close', end);
    const active = trace.setSpan(parent, span);
    // The body arrives in events of the request stream: their listeners run in the request's context
    // too. Only for a span an SDK records: binding patches the stream's listener methods.
    if (span.isRecording()) context.bind(active, req);
    context.with(active, next);
  };
}
