/**
 * Traces through `@opentelemetry/api` only: the application registers an SDK and a propagator (or
 * none, and every call here is the API's no-op: no span is recorded, nothing is injected, nothing is
 * stored). Spans carry an order number at most, never an e-mail, phone, name, key or signature.
 */
import { context, propagation, ROOT_CONTEXT, SpanKind, SpanStatusCode, trace, type Attributes, type Context, type Link, type Span, type Tracer, type TracerProvider } from '@opentelemetry/api';

export const TRACER_NAME = '@tombolbayar/gateway';
const TRACER_VERSION = '0.1.0';

let current: { readonly provider: TracerProvider; readonly tracer: Tracer } | undefined;

/**
 * The tracer of the global provider, fetched again only when the provider object changes
 * (`trace.disable()` and a new registration): the API's proxy finds an SDK registered later, and a
 * lookup per span is work an SDK's `getTracer` repeats for nothing.
 */
export function tracer(): Tracer {
  const provider = trace.getTracerProvider();
  if (current?.provider !== provider) current = { provider, tracer: provider.getTracer(TRACER_NAME, TRACER_VERSION) };
  return current.tracer;
}

/** Run `work` in an active span that ends with it (an error marks it failed and is rethrown). */
export async function inSpan<T>(name: string, options: { kind?: SpanKind; attributes?: Attributes }, work: (span: Span) => Promise<T>): Promise<T> {
  return tracer().startActiveSpan(name, options, async (span) => {
    try {
      return await work(span);
    } catch (error) {
      span.recordException(error as Error);
      span.setStatus({ code: SpanStatusCode.ERROR });
      throw error;
    } finally {
      span.end();
    }
  });
}

/** A span per database transaction: `db.transaction <what>`. */
export function inTransactionSpan<T>(what: string, engine: 'sqlite' | 'postgres', work: () => Promise<T>): Promise<T> {
  return inSpan(`db.transaction ${what}`, { kind: SpanKind.INTERNAL, attributes: { 'db.system': engine === 'postgres' ? 'postgresql' : 'sqlite' } }, () => work());
}

/** The W3C `traceparent` of the active span, as the registered propagator writes it; null without one. */
export function activeTraceParent(): string | null {
  if (!trace.getSpan(context.active())) return null;
  const carrier: Record<string, string> = {};
  propagation.inject(context.active(), carrier);
  return carrier.traceparent ?? null;
}

/**
 * The context a notification attempt runs in: its order's stored trace as the parent, and a link to
 * whatever the worker is running in now (the transition that woke it, if any).
 */
export function notificationParent(traceParent: string | undefined): { parent: Context; links: Link[] } {
  const current = trace.getSpanContext(context.active());
  const links: Link[] = current && trace.isSpanContextValid(current) ? [{ context: current }] : [];
  const parent = traceParent ? propagation.extract(ROOT_CONTEXT, { traceparent: traceParent }) : ROOT_CONTEXT;
  return { parent, links };
}

/** The headers (`traceparent`, `tracestate` …) the registered propagator writes for `span`. */
export function propagationHeaders(parent: Context, span: Span): Record<string, string> {
  const carrier: Record<string, string> = {};
  propagation.inject(trace.setSpan(parent, span), carrier);
  return carrier;
}

export { context, propagation, SpanKind, SpanStatusCode, trace };
