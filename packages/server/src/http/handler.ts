/**
 * The fetch core's request path: admission (`overloaded`, the body deadline: `admission.ts`), the
 * mount prefix, the route table, the edge checks, and the one error answer. Routes are built once
 * here from the wired lifecycle; each is a `(request, context) => Promise<Answer>` of `routes/`.
 */
import { dirname, join } from 'node:path';
import { PayButtonError } from '../errors.ts';
import type { PayButtonEvents } from '../events.ts';
import type { ResolvedOptions } from '../options.ts';
import type { OrderLifecycle } from '../orders/lifecycle.ts';
import { linksHandler, vaHandler, type CreateRouteDeps } from '../routes/create.ts';
import { notifyHandler } from '../routes/notify.ts';
import { qrHandler } from '../routes/qr.ts';
import { returnContinueHandler, returnPageHandler, returnScriptHandler } from '../routes/return.ts';
import { chunkHandler, CHUNK_ROUTE } from '../routes/script-chunks.ts';
import { scriptHandler, scriptSource } from '../routes/script.ts';
import { statusHandler } from '../routes/status.ts';
import type { OrderStore } from '../store/orders.ts';
import type { RequestFacts, RouteContext, CoreRequest } from './context.ts';
import { bodyToRead, closesConnection, createAdmission, withBodyDeadline, type InFlightLimiter } from './admission.ts';
import { originGuard } from './guards.ts';
import { createRateLimiter, inSharedBucket } from './rate-limit.ts';
import { AnswerHeaders, clientGone, type Answer } from './answer.ts';
import { answeredCode, errorAnswer, jsonAnswer, withEdgeHeaders } from './respond.ts';
import { outcomeOf, type RequestObserver } from '../observability/requests.ts';
import { context as otelContext, contextFromHeaders, failed, SpanKind, SpanStatusCode, trace, tracer } from '../observability/tracing.ts';
import { routeTable, runRoute, type Matched, type Route } from './routes.ts';

/** `fetch` that gives `undefined` for a path that is not the plug-in's. */
export type FetchHandler<Native> = ((request: CoreRequest, facts?: RequestFacts<Native>) => Promise<Answer | undefined>) & {
  /** The admission's load, for the readiness answer. */
  readonly admission: Pick<InFlightLimiter, 'snapshot'>;
};

export interface FetchDeps {
  readonly options: ResolvedOptions;
  readonly events: PayButtonEvents;
  readonly ready: () => Promise<void>;
  readonly orders: OrderStore;
  readonly lifecycle: OrderLifecycle;
  readonly createDeps: CreateRouteDeps;
  /** `publicUrl + mountPath`. */
  readonly callbackBase: string;
  /** Told about every request answered or shed (the metrics); absent, nothing is measured. */
  readonly observer?: RequestObserver | undefined;
}

/**
 * The refusal past `maxInFlight` (or a late event loop, or one client's cap): at once, rather than
 * queued. A body not read is drained, or, when the client looks like the cause, not waited for:
 * the connection closes after the answer (`closesConnection`).
 */
function overloaded({ closeConnection }: { readonly closeConnection: boolean }): Answer {
  const refusal = new PayButtonError('overloaded', 'Too many payments are being handled right now; try again in a moment.');
  return jsonAnswer(refusal.httpStatus, refusal.toJSON(), { 'Retry-After': '1', 'Cache-Control': 'no-store', ...(closeConnection ? { Connection: 'close' } : {}) });
}

function routesOf(deps: FetchDeps): Route[] {
  const { options, events, ready, orders, lifecycle, createDeps } = deps;
  const reader = { ready, orders };
  const returnDeps = { ...reader, lifecycle, siteOrigin: options.publicUrl.origin, callbackBase: deps.callbackBase };
  // <pay-va> imports ./pay-button.js, so it is served beside it.
  const vaScript = options.payButtonScript ? join(dirname(options.payButtonScript), 'pay-va.js') : undefined;
  const created = { browser: { limited: true }, refuseOtherMethods: true };
  return [
    { path: '/links', methods: { POST: linksHandler(createDeps) }, ...created, label: 'links', creates: 'link' },
    { path: '/va', methods: { POST: vaHandler(createDeps) }, ...created, label: 'va', creates: 'va' },
    { path: '/orders/:orderNum', methods: { GET: statusHandler({ ...reader, lifecycle, events, refreshMs: options.statusRefreshMs }) }, browser: { limited: false }, refuseOtherMethods: true, label: 'status' },
    { path: '/orders/:orderNum/qr', methods: { GET: qrHandler(reader) }, browser: { limited: false }, label: 'other' },
    { path: '/notify', methods: { POST: notifyHandler({ options, events, ready, orders, lifecycle }) }, refuseOtherMethods: true, label: 'notify' },
    { path: '/return', methods: { GET: returnPageHandler(returnDeps) }, label: 'return' },
    { path: '/return/continue', methods: { GET: returnContinueHandler(returnDeps) }, label: 'return' },
    { path: '/return.js', methods: { GET: returnScriptHandler() }, label: 'return' },
    { path: '/pay-button.js', methods: { GET: scriptHandler(scriptSource(options.payButtonScript), 'pay-button.js') }, label: 'script' },
    { path: '/pay-va.js', methods: { GET: scriptHandler(scriptSource(vaScript, '@tombolbayar/pay-button/dist/pay-va.js'), 'pay-va.js') }, label: 'script' },
    // The chunks pay-button.js (and pay-va.js) import from beside themselves, by their hashed names.
    { path: CHUNK_ROUTE, methods: { GET: chunkHandler(options.payButtonScript) }, label: 'script' },
  ];
}

/** `/pay` and `/pay/` are the prefix `/pay`; `''` (Express's `baseUrl` at the root) is `/`. */
const normalisePrefix = (prefix: string): string => (prefix === '' || prefix === '/' ? '/' : prefix.replace(/\/+$/, ''));

function under(pathname: string, prefix: string): string | undefined {
  if (prefix === '/') return pathname;
  if (pathname.length < prefix.length || pathname.slice(0, prefix.length).toLowerCase() !== prefix.toLowerCase()) return undefined;
  const rest = pathname.slice(prefix.length);
  return rest === '' ? '/' : rest.startsWith('/') ? rest : undefined;
}

export function createFetchHandler<Native>(deps: FetchDeps): FetchHandler<Native> {
  const { options, events, observer } = deps;
  const match = routeTable(routesOf(deps));
  const guardDeps = { options, events };
  const origin = originGuard(guardDeps);
  const limiter = createRateLimiter(options.rateLimit);
  // No client address and no key: every customer in one bucket. Said once, with how to fix it.
  let warnedAddress = false;
  const limit = (context: RouteContext): void => {
    if (!warnedAddress && inSharedBucket(options.rateLimit, context.native, context.facts.clientAddress)) {
      warnedAddress = true;
      const { limit: allowed, windowMs } = options.rateLimit as Exclude<ResolvedOptions['rateLimit'], false>;
      events.emit('warning', {
        code: 'client_address_unknown',
        message: `no client address is known for order creations, so every customer shares one rate-limit bucket (${allowed} per ${windowMs / 1000} s for the whole shop): `
          + 'on Next.js pass payButtonNext(getPay, { clientAddress: { trustedProxies: 1 } }) behind one proxy of yours that appends to X-Forwarded-For (or a function of the request); '
          + 'with pay.fetch pass { clientAddress }; or count per session with rateLimit: { key }',
      });
    }
    limiter(context.native, context.facts.clientAddress, context.headers);
  };
  const edge = { origin, limit };
  const admission = createAdmission(options, events);

  // The signed notifyUrl and redirectUrl come from mountPath: say so once if the app mounted us elsewhere.
  let warnedMount = false;
  const mountedAt = (prefix: string): void => {
    if (prefix === options.mountPath || warnedMount) return;
    warnedMount = true;
    events.emit('warning', { code: 'mount_path_mismatch', message: `mountPath is ${options.mountPath} but the router is reached at ${prefix}; notifyUrl and redirectUrl use mountPath: pass mountPath: '${prefix}'` });
  };

  /** The route of the request, and where it was mounted; a prefix other than `mountPath` is found by the route's own path. */
  const locate = (url: URL, facts: RequestFacts<Native>): { matched: Matched; prefix: string } | undefined => {
    const pathname = url.pathname;
    if (facts.mountPath !== undefined) {
      const prefix = normalisePrefix(facts.mountPath);
      const path = under(pathname, prefix);
      const matched = path === undefined ? undefined : match(path);
      return matched && { matched, prefix };
    }
    const path = under(pathname, options.mountPath);
    const matched = path === undefined ? undefined : match(path);
    if (matched) return { matched, prefix: options.mountPath };
    // Reached under another prefix: served, and said once (as Express served it wherever mounted).
    for (let cut = pathname.indexOf('/', 1); cut > 0; cut = pathname.indexOf('/', cut + 1)) {
      const found = match(pathname.slice(cut));
      if (found) return { matched: found, prefix: pathname.slice(0, cut) };
    }
    return undefined;
  };

  const handle = async (request: CoreRequest, facts: RequestFacts<Native> = {}): Promise<Answer | undefined> => {
    const headers = new AnswerHeaders();
    let url: URL;
    let located: ReturnType<typeof locate>;
    try {
      url = new URL(request.url);
      located = locate(url, facts);
    } catch (error) {
      // A parameter that does not decode (answered like an unknown order), or a bug before any route.
      return withEdgeHeaders(errorAnswer(guardDeps, error, headers), headers);
    }
    // Not the plug-in's path: the app's next handler answers it, however busy the plug-in is.
    if (!located) return undefined;
    const started = observer ? performance.now() : 0;
    const { route } = located.matched;
    const hasBody = bodyToRead(request, facts);
    const admitted = admission.arrive({ client: facts.clientAddress, hasBody, clientGone: request.signal.aborted });
    if (admitted.decision !== 'admit') {
      // A client already gone is not answered (the adapter ends its connection).
      if (admitted.decision === 'client_gone') return clientGone();
      request.body?.cancel().catch(() => {});
      observer?.shed(admitted.decision);
      observer?.answered(route.label, 'shed', (performance.now() - started) / 1000);
      return overloaded({ closeConnection: hasBody && closesConnection(admitted.decision) });
    }
    // The request's span, its parent the one its headers name (a page's traceparent, the gateway's).
    const parent = contextFromHeaders(request.headers);
    const span = tracer().startSpan(`${request.method} ${route.path}`, {
      kind: SpanKind.SERVER,
      attributes: { 'http.request.method': request.method, 'http.route': `${located.prefix === '/' ? '' : located.prefix}${route.path}` },
    }, parent);
    try {
      mountedAt(located.prefix);
      const timed = withBodyDeadline(request, admitted, options.bodyReadTimeoutMs);
      const context: RouteContext = { url, params: located.matched.params, facts, native: facts.native ?? request, headers };
      let response: Answer | undefined;
      try {
        response = await otelContext.with(trace.setSpan(parent, span), () => runRoute(located.matched, timed.request, context, edge));
      } catch (error) {
        response = errorAnswer(guardDeps, error, headers);
        if (route.creates && request.method === 'POST') events.emit('order.refused', { kind: route.creates, code: answeredCode(error), httpStatus: response.status });
        if (response.status >= 500) failed(span, error);
      }
      // The rest of a body that missed its deadline is not waited for.
      if (timed.timedOut()) headers.set('Connection', 'close');
      if (response) {
        span.setAttribute('http.response.status_code', response.status);
        if (response.status >= 500) span.setStatus({ code: SpanStatusCode.ERROR });
        observer?.answered(route.label, outcomeOf(response.status), (performance.now() - started) / 1000);
      }
      return response && withEdgeHeaders(response, headers);
    } finally {
      span.end();
      admitted.done();
    }
  };
  return Object.assign(handle, { admission });
}
