/**
 * What each process of the observability test installs before the package it runs: the
 * OpenTelemetry SDK an operator would (context manager, W3C propagator, a tracer provider), with
 * an in-memory exporter, and a small server on its own port that lists the spans it recorded, so
 * the test can read them from outside the process.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { context, propagation, trace } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { W3CTraceContextPropagator } from '@opentelemetry/core';
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';

export interface SpanView {
  readonly name: string;
  readonly kind: number;
  readonly traceId: string;
  readonly spanId: string;
  readonly parentSpanId: string | undefined;
  readonly attributes: Record<string, unknown>;
  readonly links: number;
}

/** Installs the SDK; returns a function that serves the spans (and `extra()`) as JSON on a port of its own. */
export function installTracing(): { serve(extra: () => unknown): Promise<string> } {
  const exporter = new InMemorySpanExporter();
  context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
  propagation.setGlobalPropagator(new W3CTraceContextPropagator());
  trace.setGlobalTracerProvider(new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] }));
  return {
    async serve(extra) {
      const server = createServer((_req, res) => {
        const spans: SpanView[] = exporter.getFinishedSpans().map((span) => ({
          name: span.name,
          kind: span.kind,
          traceId: span.spanContext().traceId,
          spanId: span.spanContext().spanId,
          parentSpanId: span.parentSpanContext?.spanId,
          attributes: { ...span.attributes },
          links: span.links.length,
        }));
        res.setHeader('content-type', 'application/json');
        res.end(JSON.stringify({ spans, extra: extra() }));
      });
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
      server.unref();
      return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    },
  };
}
