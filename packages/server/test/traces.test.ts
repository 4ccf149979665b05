/**
 * The plug-in's traces (issue 34 contract), through `@opentelemetry/api` with a test SDK: a link
 * request's SERVER span continues the page's `traceparent` and its gateway call (CLIENT) carries
 * the same trace on to the gateway; a notification's `traceparent` makes its `/notify` span, the
 * confirmation query and the `onPaid` span one trace. And without an SDK nothing fails.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { context, propagation, SpanKind, trace } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { W3CTraceContextPropagator } from '@opentelemetry/core';
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor, type ReadableSpan } from '@opentelemetry/sdk-trace-base';
import { createOrder, paidAtGateway } from './support/notifications.ts';
import { startHarness, waitFor, type Harness } from './support/harness.ts';

const PAGE_TRACE = '4bf92f3577b34da6a3ce929d0e0e4736';
const PAGE_SPAN = '00f067aa0ba902b7';
const NOTIFY_TRACE = '0af7651916cd43dd8448eb211c80319c';
const NOTIFY_SPAN = 'b7ad6b7169203331';

/** A site of the shop's on another origin (its pages call the plug-in cross-origin). */
const PAGES = 'https://pages.shop.example';

const parentOf = (span: ReadableSpan): string | undefined => span.parentSpanContext?.spanId;

describe('traces with an SDK registered', () => {
  const exporter = new InMemorySpanExporter();
  const contextManager = new AsyncLocalStorageContextManager();
  let shop: Harness;
  before(async () => {
    context.setGlobalContextManager(contextManager.enable());
    propagation.setGlobalPropagator(new W3CTraceContextPropagator());
    trace.setGlobalTracerProvider(new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] }));
    shop = await startHarness({ options: { sweep: false, allowedOrigins: [PAGES] } });
  });
  after(async () => {
    await shop.close();
    trace.disable();
    propagation.disable();
    context.disable();
  });

  test('a link request continues the page trace, and its gateway call carries it on', async () => {
    exporter.reset();
    const created = await shop.createLink({ item: 'kopi' }, { traceparent: `00-${PAGE_TRACE}-${PAGE_SPAN}-01` });
    assert.equal(created.status, 201, JSON.stringify(created.body));
    const spans = exporter.getFinishedSpans().filter((span) => span.spanContext().traceId === PAGE_TRACE);
    const request = spans.find((span) => span.name === 'POST /links');
    assert.ok(request, `the request span: ${spans.map((span) => span.name).join(', ')}`);
    assert.equal(request.kind, SpanKind.SERVER);
    assert.equal(parentOf(request), PAGE_SPAN, 'the page span is its parent');
    assert.equal(request.attributes['http.response.status_code'], 201);
    const call = spans.find((span) => span.name === 'gateway prepaidOrder');
    assert.ok(call, 'the gateway call is in the same trace');
    assert.equal(call.kind, SpanKind.CLIENT);
    assert.equal(call.attributes['tombolbayar.order_num'], created.body.orderNum);
    assert.ok(spans.some((span) => span.name.startsWith('db.transaction orders.')), 'store transactions are spans of the trace');
    // The gateway received the call's context: its own request span continues the trace.
    const gatewaySide = exporter.getFinishedSpans().filter((span) => span.parentSpanContext?.spanId === call.spanContext().spanId);
    for (const span of gatewaySide) assert.equal(span.spanContext().traceId, PAGE_TRACE);
    // No personal data on any span.
    for (const span of spans) assert.ok(!JSON.stringify(span.attributes).includes('budi@example.com'));
  });

  test('a notification with a traceparent: /notify, its confirmation query and onPaid share its trace', async () => {
    const order = await createOrder(shop);
    const genuine = await paidAtGateway(shop, order);
    exporter.reset();
    const answer = await fetch(`${shop.mountUrl}/notify`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', traceparent: `00-${NOTIFY_TRACE}-${NOTIFY_SPAN}-01` },
      body: new URLSearchParams(genuine).toString(),
    });
    assert.equal(answer.status, 200, await answer.text());
    await waitFor(() => shop.fulfilled.some((paid) => paid.orderNum === order.orderNum), 'onPaid');
    const spans = exporter.getFinishedSpans().filter((span) => span.spanContext().traceId === NOTIFY_TRACE);
    const notifySpan = spans.find((span) => span.name === 'POST /notify');
    assert.ok(notifySpan, `the /notify span: ${spans.map((span) => span.name).join(', ')}`);
    assert.equal(parentOf(notifySpan), NOTIFY_SPAN);
    const query = spans.find((span) => span.name === 'gateway query');
    assert.ok(query, 'the confirmation query is in the trace');
    const onPaid = spans.find((span) => span.name === 'onPaid');
    assert.ok(onPaid, 'the onPaid span is in the trace');
    assert.equal(onPaid.kind, SpanKind.INTERNAL);
    assert.equal(onPaid.attributes['tombolbayar.attempt'], 1);
    assert.equal(onPaid.attributes['tombolbayar.outcome'], 'succeeded');
    assert.equal(onPaid.attributes['tombolbayar.order_num'], order.orderNum);
  });

  test('a preflight allows the trace headers', async () => {
    const preflight = await fetch(`${shop.mountUrl}/links`, {
      method: 'OPTIONS',
      headers: { origin: PAGES, 'access-control-request-method': 'POST', 'access-control-request-headers': 'content-type, traceparent, tracestate' },
    });
    assert.equal(preflight.status, 204);
    assert.match(preflight.headers.get('access-control-allow-headers') ?? '', /traceparent, tracestate/);
  });
});

describe('traces without an SDK', () => {
  test('every request works, and nothing is recorded', async () => {
    const shop = await startHarness({ options: { sweep: false } });
    try {
      const created = await shop.createLink({ item: 'kopi' }, { traceparent: `00-${PAGE_TRACE}-${PAGE_SPAN}-01` });
      assert.equal(created.status, 201, JSON.stringify(created.body));
      assert.equal(trace.getActiveSpan(), undefined);
    } finally {
      await shop.close();
    }
  });
});
