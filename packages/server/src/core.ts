/**
 * `createPayButton(options)`: the plug-in on Web `Request` → `Response`, for any framework that
 * speaks fetch (and under each adapter of `adapters/`). It wires the order lifecycle, the
 * gateway client and the store once, and carries the server-side API: `createPaymentLink()`,
 * `createVaOrder()`, `getOrder()`, `reconcile()`, `events`, `ready()`, `healthResponse()` and
 * `close()`. The HTTP edge (routes, checks, answers) is `http/`.
 */
import { resolveMethod, type MethodCode } from '@tombolbayar/protocol';
import { isPayButtonError, PayButtonError } from './errors.ts';
import { PayButtonEvents, type PayButtonEventMap, type PayButtonEventName } from './events.ts';
import type { CoreRequest, RequestFacts } from './http/context.ts';
import { createFetchHandler, type FetchHandler } from './http/handler.ts';
import { toResponse, type Answer } from './http/answer.ts';
import { answeredCode, notFoundAnswer } from './http/respond.ts';
import type { OrderKind } from './store/schema.ts';
import { healthAnswer } from './http/health.ts';
import { insecureGatewayWarning } from './gateway/channel.ts';
import { GatewayClient } from './gateway/client.ts';
import { createTransport } from './gateway/http.ts';
import { logEvents } from './logging/event-log.ts';
import { resolveOptions, type PayButtonOptions } from './options.ts';
import { GatewayConfirmer } from './orders/confirm.ts';
import { callbackBase } from './orders/callback-urls.ts';
import { OrderCreator } from './orders/create.ts';
import { Fulfilment } from './orders/fulfilment.ts';
import { OrderLifecycle } from './orders/lifecycle.ts';
import { reconcile, settleStuckCreates, type ReconcileDeps, type ReconcileOptions, type ReconcileReport } from './orders/reconcile.ts';
import { startSweeper, type Sweeper } from './orders/sweep.ts';
import { checkIntervalMs } from './orders/sweep-schedule.ts';
import { createPersonalData, type PersonalDataApi } from './personal-data/service.ts';
import { toPublicOrder, type Order } from './public-order.ts';
import { createPaymentLinkFor, createVaOrderFor, type PaymentLink, type ServerCreateInput, type VaOrder } from './routes/create.ts';
import { startSelfCheck, type SelfCheckReport } from './self-check.ts';
import { createStore } from './store/index.ts';
import { registerMetrics } from './observability/metrics.ts';
import { withTransactionSpans } from './observability/store-spans.ts';

/** What `ready()` resolves with. */
export interface ReadyReport {
  readonly gateway: SelfCheckReport | undefined;
}

/** The server-side API, the same on the fetch core and on every adapter. */
export interface PayButtonApi<Self> {
  /** Order transitions, gateway calls, notifications, fulfilment, warnings. */
  readonly events: PayButtonEvents;
  /** Shorthand for `events.on`. */
  on<K extends PayButtonEventName>(name: K, listener: (...args: PayButtonEventMap[K]) => void): Self;
  /** A payment link priced by the caller (no browser involved). */
  createPaymentLink(input: ServerCreateInput & { readonly method?: string | null; readonly returnTo?: string }): Promise<PaymentLink & { readonly order: Order }>;
  /** Operation 1, Create VA, priced by the caller: for merchants who show the VA number themselves. */
  createVaOrder(input: ServerCreateInput & { readonly method: string }): Promise<VaOrder & { readonly order: Order }>;
  getOrder(orderNum: string): Promise<Order | undefined>;
  /** Ask the gateway about pending orders past expiry and stuck creations; re-run failed `onPaid`. */
  reconcile(options?: ReconcileOptions): Promise<ReconcileReport>;
  /**
   * Customers' personal data (UU PDP): `export(query)` and `erase(query)` by `email`, `phone` or
   * `orderNum`, and `applyRetention()`. Each says which orders it touched.
   */
  readonly personalData: PersonalDataApi;
  /**
   * Resolves once the store is open and migrated and the start-up check has run (requests wait for
   * the store on their own and never for the check): `gateway` is the check's verdict, `undefined`
   * with `selfCheck: false`. Rejects when the store cannot be opened.
   */
  ready(): Promise<ReadyReport>;
  /** Stops the sweep, waits for creates and queries in flight, aborts running onPaid signals and waits for them, then closes the sockets and the store (if it opened it). */
  close(): Promise<void>;
}

/** `createPayButton()`: the fetch handler and the server-side API. */
export interface PayButtonHandler<Native = Request> extends PayButtonApi<PayButtonHandler<Native>> {
  /**
   * Answer one request. `request.url` is the full URL the client sent, mount prefix included; the
   * routes are matched on the path after it (`facts.mountPath`, else `options.mountPath`).
   * A path that is not the plug-in's is answered 404. Any object with what the core reads of a
   * `Request` (`CoreRequest`) will do: the Node adapters pass a view of `req` instead of building one.
   */
  fetch(request: Request | CoreRequest, facts?: RequestFacts<Native>): Promise<Response>;
  /**
   * Readiness for probes, as a `Response` for any framework: 200 `{ status: 'ready' }` when the
   * order store is migrated and answers within 2 s, else 503 with `Retry-After`. Mount it where your
   * orchestrator probes (`/readyz`).
   */
  healthResponse(): Promise<Response>;
}

/** The core and what the adapters built on it need besides (not part of the public API). */
export interface PayButtonCore<Native> {
  readonly handler: PayButtonHandler<Native>;
  /** `fetch` as an `Answer`, `undefined` for a path that is not the plug-in's (the adapter passes it on). */
  readonly handle: FetchHandler<Native>;
  /** `healthResponse()` as an `Answer`. */
  readonly health: () => Promise<Answer>;
  /** The largest body any route reads, in bytes. */
  readonly maxBodyBytes: number;
}

/** A payment link's `method`: none (the customer picks on the hosted page), or a known code. */
function optionalMethod(value: string | null | undefined): MethodCode | null {
  return value === null || value === undefined || value === '' ? null : requiredMethod(value);
}

/** A VA order's `method`: a known code, required. */
function requiredMethod(value: string | null | undefined): MethodCode {
  if (value === null || value === undefined || value === '') {
    throw new PayButtonError('invalid_request', 'method: is required', { issues: [{ field: 'method', message: 'is required' }] });
  }
  const code = resolveMethod(value);
  if (!code) throw new PayButtonError('invalid_request', 'method: is not a payment method code', { issues: [{ field: 'method', message: 'is not a payment method code' }] });
  return code;
}

/** A server-side create whose refusal is told as `order.refused`, as the create routes' are. */
async function refusalsReported<T>(events: PayButtonEvents, kind: OrderKind, create: () => Promise<T>): Promise<T> {
  try {
    return await create();
  } catch (error) {
    events.emit('order.refused', { kind, code: answeredCode(error), httpStatus: isPayButtonError(error) ? error.httpStatus : 500 });
    throw error;
  }
}

/** The plug-in on Web `Request` → `Response`. */
export function createPayButton<Native = Request>(options: PayButtonOptions<Native>): PayButtonHandler<Native> {
  return createCore(options).handler;
}

/** Each handler's core, for the Node adapters that need more than `fetch` (a fall-through to `next()`). */
const cores = new WeakMap<object, PayButtonCore<never>>();

/** Orders left in `creating` a sweep round looks at: they are rare (a create's answer lost or not trusted). */
const STUCK_CREATES_PER_ROUND = 20;

/** The core behind `createPayButton()`'s handler; `undefined` for anything else. */
export function coreOf<Native>(handler: PayButtonHandler<Native>): PayButtonCore<Native> | undefined {
  return cores.get(handler) as PayButtonCore<Native> | undefined;
}

export function createCore<Native>(options: PayButtonOptions<Native>): PayButtonCore<Native> {
  const resolved = resolveOptions(options);
  // notifyUrl and redirectUrl must pass the protocol's URL rule: checked before anything is opened.
  const base = callbackBase(resolved);
  const events = new PayButtonEvents();
  logEvents(events, resolved.logger);
  if (resolved.insecureGatewayUrl) {
    // Opted in (allowInsecureGatewayUrl): said once in the process's log, and to the listeners,
    // which are attached after payButton() returns, so on the next turn of the event loop.
    const message = insecureGatewayWarning(resolved.gatewayUrl);
    process.emitWarning(message, { code: 'TOMBOLBAYAR_INSECURE_GATEWAY_URL' });
    setImmediate(() => events.emit('warning', { code: 'insecure_gateway_url', message })).unref();
  }
  // A stored value that no longer reads back is served without it, and said; a connection the
  // database ended (or that went silent) is replaced by the pool: said, never fatal.
  const opened = createStore(
    resolved.database,
    (orderNum, column, error) =>
      events.emit('warning', { code: 'unreadable_order', message: `order ${orderNum}: its stored ${column} could not be read; it is given as null`, orderNum, error }),
    (error) => events.emit('warning', { code: 'database_connection_lost', message: 'a database connection was lost; the pool opens a new one', error }),
  );
  // A span per store transaction.
  const store = {
    ...opened,
    orders: withTransactionSpans(opened.orders, 'orders'),
    sweep: withTransactionSpans(opened.sweep, 'sweep'),
    personalData: withTransactionSpans(opened.personalData, 'personalData'),
    migrate: () => opened.migrate(),
    ping: () => opened.ping(),
    close: () => opened.close(),
  };
  const metrics = resolved.metricsRegistry && registerMetrics(resolved.metricsRegistry, events, () => opened.poolState?.());
  const transport = createTransport();
  const client = new GatewayClient({
    gatewayUrl: resolved.gatewayUrl,
    merchantCode: resolved.merchantCode,
    privateKey: resolved.privateKey,
    platformPublicKeys: resolved.platformPublicKeys,
    paymentPageOrigins: resolved.paymentPageOrigins,
    transport,
    events,
    now: resolved.now,
    timeoutMs: resolved.timeoutMs,
  });

  let migration: Promise<void> | undefined;
  const ready = (): Promise<void> =>
    (migration ??= store.migrate().catch((error: unknown) => {
      migration = undefined; // try again on the next request
      events.emit('warning', { code: 'store_unavailable', message: 'the order store could not be opened or migrated', error });
      throw new PayButtonError('store_unavailable', 'The order store is not available; try again later.', { cause: error });
    }));
  // Start migrating now; a failure is reported to the requests that need the store.
  ready().catch(() => {});
  const probe = { gatewayUrl: resolved.gatewayUrl, merchantCode: resolved.merchantCode, privateKey: resolved.privateKey, platformPublicKeys: resolved.platformPublicKeys,
    paymentPageOrigins: resolved.paymentPageOrigins, transport, now: resolved.now, timeoutMs: resolved.timeoutMs };
  const stopping = new AbortController();
  const startupCheck = resolved.selfCheck ? startSelfCheck(resolved, probe, events, stopping.signal) : Promise.resolve(undefined);

  const now = (): Date => new Date(resolved.now());
  const orders = store.orders;
  const confirmer = new GatewayConfirmer(client, events, resolved.timeoutMs);
  const fulfilment = new Fulfilment(orders, events, { onPaid: resolved.onPaid, leaseMs: resolved.fulfilmentLeaseMs, heartbeatMs: resolved.fulfilmentHeartbeatMs }, now);
  const lifecycle = new OrderLifecycle({ orders, events, confirmer, fulfilment, now });
  const creator = new OrderCreator({
    ready,
    orders,
    lifecycle,
    confirmer,
    client,
    policy: {
      maxRetries: resolved.maxRetries,
      timeoutMs: resolved.timeoutMs,
      totalTimeoutMs: resolved.totalTimeoutMs,
      baseDelayMs: resolved.retryBaseDelayMs,
      maxDelayMs: resolved.retryMaxDelayMs,
    },
    callbackBase: base,
    merchantCode: resolved.merchantCode,
    orderNumPrefix: resolved.orderNumPrefix,
    events,
    now,
  });
  const createDeps = { creator, events, options: resolved };
  const handle = createFetchHandler<Native>({ options: resolved, events, ready, orders, lifecycle, createDeps, callbackBase: base, observer: metrics?.observer });

  const personalData = createPersonalData({ ready, store: store.personalData, now, retentionDays: resolved.retentionDays });
  const reconcileDeps: ReconcileDeps = { ready, orders, lifecycle, confirmer, events, totalTimeoutMs: resolved.totalTimeoutMs, now };
  // Lost notifications found early; after each round (under the sweep's lease: one process does
  // it) the orders a lost or untrusted create answer left in `creating`, and the retention pass.
  // Started once the store is ready, stopped first at close().
  const schedule = resolved.sweep;
  const sweeper: Sweeper | undefined = schedule === false
    ? undefined
    : startSweeper({
      ready, sweep: store.sweep, orders, lifecycle, events, merchantCode: resolved.merchantCode, now,
      afterRound: async () => {
        await settleStuckCreates(reconcileDeps, STUCK_CREATES_PER_ROUND, (order) => checkIntervalMs(now().getTime() - order.createdAt.getTime(), schedule)).catch((error: unknown) =>
          events.emit('warning', { code: 'sweep_failed', message: 'the sweep could not look for orders left in creating; the next round tries again', error }),
        );
        await personalData.applyRetention();
      },
    }, schedule);

  const health = () => healthAnswer({ ready, ping: () => store.ping(), load: () => handle.admission.snapshot() });
  let closing: Promise<void> | undefined;
  const handler: PayButtonHandler<Native> = {
    fetch: async (request, facts) => toResponse((await handle(request, facts)) ?? notFoundAnswer()),
    events,
    on(name, listener) {
      events.on(name, listener as never);
      return handler;
    },
    createPaymentLink: (input) =>
      refusalsReported(events, 'link', async () => {
        const { order, ...link } = await createPaymentLinkFor(createDeps, { ...input, method: optionalMethod(input.method) });
        return { ...link, order: toPublicOrder(order) };
      }),
    createVaOrder: (input) =>
      refusalsReported(events, 'va', async () => {
        const { order, ...va } = await createVaOrderFor(createDeps, { ...input, method: requiredMethod(input.method) });
        return { ...va, order: toPublicOrder(order) };
      }),
    getOrder: async (orderNum) => {
      await ready();
      const stored = await orders.get(orderNum);
      return stored && toPublicOrder({ ...stored, duplicateOf: stored.status === 'paid' ? await orders.duplicateOf(stored) : null });
    },
    reconcile: (reconcileOptions) => reconcile(reconcileDeps, reconcileOptions),
    personalData,
    ready: async () => {
      const [gateway] = await Promise.all([startupCheck, ready()]);
      return { gateway };
    },
    healthResponse: async () => toResponse(await health()),
    close: () =>
      (closing ??= (async () => {
        stopping.abort(); // the start-up check, if still asking, reports nothing after close()
        await sweeper?.stop();
        // Creates and queries finish; running onPaid runs see their signal aborted, and end.
        await creator.settled();
        await confirmer.settled();
        await lifecycle.close();
        transport.close();
        await store.close();
        metrics?.stop();
      })()),
  };
  const core: PayButtonCore<Native> = { handler, handle, health, maxBodyBytes: Math.max(resolved.bodyLimitBytes, resolved.notifyBodyLimitBytes) };
  cores.set(handler, core as PayButtonCore<never>);
  return core;
}
