/**
 * Traces through `@opentelemetry/api` only: the application brings the SDK (and its propagator).
 * Without one, every call here is the API's no-op (a non-recording span, an empty context), so a
 * shop that traces nothing pays a few object allocations per request.
 *
 * Spans carry an order number at most (`tombolbayar.order_num`), never an e-mail, phone, name,
 * key or signature.
 */
import { createRequire } from 'node:module';
import { context, propagation, SpanKind, SpanStatusCode, trace, type Attributes, type Context, type Span, type TextMapGetter, type Tracer, type TracerProvider } from '@opentelemetry/api';

export const TRACER_NAME = '@tombolbayar/server';

/** The package's version, for the tracer; `undefined` where package.json cannot be read (a bundle). */
const VERSION: string | undefined = (() => {
  try {
    return (createRequire(import.meta.url)('../../package.json') as { version?: string }).version;
  } catch {
    return undefined;
  }
})();

let current: { readonly provider: TracerProvider; readonly tracer: Tracer } | undefined;

/**
 * The tracer of the global provider, fetched again only when the provider object changes
 * (`trace.disable()` and a new registration): the API's proxy finds an SDK registered after this
 * module loaded, and a lookup per span is work an SDK's `getTracer` repeats for nothing.
 */
export function tracer(): Tracer {
  const provider = trace.getTracerProvider();
  if (current?.provider !== provider) current = { provider, tracer: provider.getTracer(TRACER_NAME, VERSION) };
  return current.tracer;
}

/** The attribute an order number goes under on a span (never on a metric label). */
export const ORDER_NUM = 'tombolbayar.order_num';

/** What propagation reads of a request's headers (the core's `CoreRequest.headers`). */
const headerGetter: TextMapGetter<Pick<Headers, 'get'>> = {
  keys: () => [],
  get: (carrier, key) => carrier.get(key) ?? undefined,
};

/** The context a request's own headers (`traceparent`, `tracestate`) name as its parent. */
export const contextFromHeaders = (headers: Pick<Headers, 'get'>): Context => propagation.extract(context.active(), headers, headerGetter);

/** `traceparent`/`tracestate` (or whatever the registered propagator writes) of `span`, to send along. */
export function headersFor(span: Span, parent: Context = context.active()): Record<string, string> {
  const carrier: Record<string, string> = {};
  propagation.inject(trace.setSpan(parent, span), carrier);
  return carrier;
}

/** A span ended with an error status, the error recorded. */
export function failed(span: Span, error: unknown): void {
  span.recordException(error instanceof Error ? error : String(error));
  span.setStatus({ code: SpanStatusCode.ERROR, message: error instanceof Error ? error.message : undefined });
}

/**
 * Run `work` inside a span of its own (a child of the active context), ending it when `work`
 * settles, an error status when it throws.
 */
export async function inSpan<T>(name: string, attributes: Attributes, work: (span: Span) => Promise<T>, kind: SpanKind = SpanKind.INTERNAL): Promise<T> {
  const span = tracer().startSpan(name, { kind, attributes });
  try {
    return await context.with(trace.setSpan(context.active(), span), () => work(span));
  } catch (error) {
    failed(span, error);
    throw error;
  } finally {
    span.end();
  }
}

export { context, SpanKind, SpanStatusCode, trace, type Span, type Context };
