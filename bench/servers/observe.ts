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
 * The registry to hand to the package; at `context`, the SDK's context manager and propagator
 * installed globally too (the packages' spans still go to the API's no-op tracer); at `traced`, a
 * tracer provider as well, so every span is recorded and exported.
 */
export function observe(level: 'metrics' | 'context' | 'traced'): Observation {
  const registry = new Registry();
  if (level === 'metrics') return { registry, spans: async () => 0, scrapeBytes: async () => (await registry.metrics()).length };
  // The SDK's context manager (AsyncLocalStorage, on Node 20 a promise hook on every promise) and
  // propagator: what an application that traces anything pays, before any span is recorded.
  context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
  propagation.setGlobalPropagator(new W3CTraceContextPropagator());
  if (level === 'context') return { registry, spans: async () => 0, scrapeBytes: async () => (await registry.metrics()).length };
  const exporter = new CountingExporter();
  const provider = new BasicTracerProvider({ spanProcessors: [new BatchSpanProcessor(exporter)] });
  trace.setGlobalTracerProvider(provider);
  return {
    registry,
    spans: async () => {
      await provider.forceFlush();
      return exporter.count;
    },
    scrapeBytes: async () => (await registry.metrics()).length,
  };
}
