/**
 * Issue 34, the gateway's traces through `@opentelemetry/api`: a create request carrying a
 * `traceparent` makes a SERVER span in that trace, a database transaction span under it, and the
 * order remembers the trace; paying it sends a notification whose POST carries a `traceparent` of
 * the same trace, from a CLIENT span `notify paid`. Without an SDK nothing is recorded or sent and
 * nothing fails. (The no-SDK test runs first: an SDK, once registered, stays for the process.)
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, test } from 'node:test';
import { context, propagation, SpanKind, trace } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { W3CTraceContextPropagator } from '@opentelemetry/core';
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor, type ReadableSpan } from '@opentelemetry/sdk-trace-base';
import BetterSqlite3 from 'better-sqlite3';
import pg from 'pg';
import { postJson, signed, vaRequest } from './support/client.ts';
import { DATABASE_URL, ENGINES, type EngineName } from './support/engines.ts';
import { startHarness, type Harness } from './support/harness.ts';
import { eventually } from './support/receiver.ts';

/** A notification endpoint that keeps each POST's headers. */
async function headerReceiver(): Promise<{ url: string; headers: IncomingHttpHeaders[]; close(): Promise<void> }> {
  const headers: IncomingHttpHeaders[] = [];
  const server: Server = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      headers.push(req.headers);
      res.writeHead(200, { 'content-type': 'text/plain' }).end('SUCCESS');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/notify`,
    headers,
    close: () => {
      server.closeAllConnections();
      return new Promise((resolve) => server.close(() => resolve()));
    },
  };
}

/** The `trace_parent` stored with an order, read beside the gateway. */
async function storedTraceParent(h: Harness, platOrderNum: string): Promise<string | null> {
  const database = h.store.database;
  if (database.kind === 'sqlite') {
    const sqlite = new BetterSqlite3(database.file, { readonly: true });
    try {
      return (sqlite.prepare('select trace_parent from orders where plat_order_num = ?').get(platOrderNum) as { trace_parent: string | null }).trace_parent;
    } finally {
      sqlite.close();
    }
  }
  const client = new pg.Client({ connectionString: DATABASE_URL });
  await client.connect();
  try {
    const result = await client.query(`select trace_parent from ${database.schema}.orders where plat_order_num = $1`, [platOrderNum]);
    return (result.rows[0] as { trace_parent: string | null }).trace_parent;
  } finally {
    await client.end();
  }
}

const parentSpanId = (span: ReadableSpan) =>
  (span as ReadableSpan & { parentSpanContext?: { spanId: string } }).parentSpanContext?.spanId ?? (span as unknown as { parentSpanId?: string }).parentSpanId;

async function createWithTrace(h: Harness, notifyUrl: string, traceparent: string) {
  const fields = vaRequest(h.merchant.merchantCode, { notifyUrl, method: 'VA_BCA' });
  const answer = await postJson(`${h.url}/gateway/pay`, signed(fields as never, h.merchant.privateKey), { traceparent });
  assert.equal(answer.body.platRespCode, 'SUCCESS', JSON.stringify(answer.body));
  return answer.body;
}

const exporter = new InMemorySpanExporter();

describe('traces without an SDK', () => {
  for (const engine of ENGINES) {
    test(`on ${engine}: nothing recorded, stored or sent, and nothing fails`, async () => {
      const receiver = await headerReceiver();
      const h = await startHarness(engine);
      try {
        const traceparent = `00-${randomBytes(16).toString('hex')}-${randomBytes(8).toString('hex')}-01`;
        const created = await createWithTrace(h, receiver.url, traceparent);
        await h.gateway.pay(created.platOrderNum!);
        await eventually(() => (receiver.headers.length >= 1 ? true : undefined), 20_000, 'the notification');
        assert.equal(receiver.headers[0]!.traceparent, undefined);
        assert.equal(receiver.headers[0]!.tracestate, undefined);
        assert.equal(await storedTraceParent(h, created.platOrderNum!), null);
        assert.equal(exporter.getFinishedSpans().length, 0);
      } finally {
        await h.stop();
        await receiver.close();
      }
    });
  }
});

describe('traces with an SDK registered', () => {
  before(() => {
    context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
    propagation.setGlobalPropagator(new W3CTraceContextPropagator());
    trace.setGlobalTracerProvider(new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] }));
  });
  after(() => {
    trace.disable();
    propagation.disable();
    context.disable();
  });

  for (const engine of ENGINES as readonly EngineName[]) {
    test(`on ${engine}: the create request, its transaction and the notification attempt share the request's trace`, async () => {
      exporter.reset();
      const receiver = await headerReceiver();
      const h = await startHarness(engine);
      try {
        const traceId = randomBytes(16).toString('hex');
        const callerSpanId = randomBytes(8).toString('hex');
        const created = await createWithTrace(h, receiver.url, `00-${traceId}-${callerSpanId}-01`);
        const stored = await storedTraceParent(h, created.platOrderNum!);
        assert.match(stored ?? '', new RegExp(`^00-${traceId}-[0-9a-f]{16}-01$`));
        await h.gateway.pay(created.platOrderNum!);

        await eventually(() => (receiver.headers.length >= 1 ? true : undefined), 20_000, 'the notification');
        const sent = receiver.headers[0]!.traceparent as string;
        assert.match(sent, new RegExp(`^00-${traceId}-[0-9a-f]{16}-01$`), 'the notification continues the trace');

        const spans = await eventually(() => {
          const finished = exporter.getFinishedSpans().filter((span) => span.spanContext().traceId === traceId);
          return finished.some((span) => span.name === 'notify paid') ? finished : undefined;
        }, 20_000, 'the notify span');
        const request = spans.find((span) => span.name === 'POST /gateway/pay');
        const insert = spans.find((span) => span.name === 'db.transaction order.create');
        const notify = spans.find((span) => span.name === 'notify paid');
        assert.ok(request && insert && notify, spans.map((span) => span.name).join(', '));
        assert.equal(request.kind, SpanKind.SERVER);
        assert.equal(parentSpanId(request), callerSpanId, "the request's span is a child of the caller's");
        assert.equal(parentSpanId(insert), request.spanContext().spanId);
        assert.equal(stored, `00-${traceId}-${request.spanContext().spanId}-01`, 'the order keeps the creating span');
        assert.equal(notify.kind, SpanKind.CLIENT);
        assert.equal(parentSpanId(notify), request.spanContext().spanId, "the attempt's parent is the order's stored context");
        assert.equal(sent.split('-')[2], notify.spanContext().spanId, 'the POST carries the attempt span');
        assert.equal(notify.attributes['tombolbayar.outcome'], 'delivered');

        // Never personal data on a span.
        for (const span of exporter.getFinishedSpans()) {
          for (const value of Object.values(span.attributes)) assert.ok(!String(value).includes('@') && !String(value).includes('081234567890'), `${span.name}: ${String(value)}`);
        }
      } finally {
        await h.stop();
        await receiver.close();
      }
    });
  }
});
