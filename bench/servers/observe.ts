/**
 * What an operator turns on in a bench child when its config says `observe`: a prom-client
 * registry of its own for the process's metrics, and a real OpenTelemetry SDK pipeline (context
 * manager, W3C propagator, a tracer provider whose batch processor hands every span to an
 * exporter) that stops short of any I/O: the exporter counts the spans it is given. What the bench
 * measures is then the cost the packages add, not a collector's.
 */
import { context, propagation, trace } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { ExportResultCode, W3CTraceContextPropagator, type ExportResult } from '@opentelemetry/core';
import { BasicTracerProvider, BatchSpanProcessor, type ReadableSpan, type SpanExporter } from '@opentelemetry/sdk-trace-base';
import { Registry } from 'prom-client';

/** Counts exported spans; exports nowhere. */
class CountingExporter implements SpanExporter {
  count = 0;
  export(spans: ReadableSpan[], done: (result: ExportResult) => void): void {
    this.count += spans.length;
    done({ code: ExportResultCode.SUCCESS });
  }
  async shutdown(): Promise<void> {}
}

export interface Observation {
  readonly registry: Registry;
  /** Spans exported so far (after a flush). */
  spans(): Promise<number>;
  /** Bytes of one scrape of the registry (what a Prometheus server would read). */
  scrapeBytes(): Promise<number>;
}

/**
 * The registry to hand to the package; with `tracer`, the SDK installed globally in this process
 * too (without it, the packages' spans go to the API's no-op tracer).
 */
export function observe(tracer: boolean): Observation {
  if (!tracer) {
    const registry = new Registry();
    return { registry, spans: async () => 0, scrapeBytes: async () => (await registry.metrics()).length };
  }
  const exporter = new CountingExporter();
  const provider = new BasicTracerProvider({ spanProcessors: [new BatchSpanProcessor(exporter)] });
  context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
  propagation.setGlobalPropagator(new W3CTraceContextPropagator());
  trace.setGlobalTracerProvider(provider);
  const registry = new Registry();
  return {
    registry,
    spans: async () => {
      await provider.forceFlush();
      return exporter.count;
    },
    scrapeBytes: async () => (await registry.metrics()).length,
  };
}
