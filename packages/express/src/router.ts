/**
 * `payButton(options)`: the one line a merchant adds,
 *
 *     app.use('/pay', payButton({ gatewayUrl, merchantCode, privateKey, platformPublicKey, publicUrl, quote, onPaid }))
 *
 * An Express router (so `req.ip`, `trust proxy` and error handling are the host app's) that also
 * carries the server-side API: `createPaymentLink()`, `createVaOrder()`, `getOrder()`,
 * `reconcile()`, `events`, `ready()` and `close()`.
 */
import { dirname, join } from 'node:path';
import { resolveMethod, type MethodCode } from '@tombolbayar/protocol';
import { Router, type Request, type RequestHandler } from 'express';
import { PayButtonError } from './errors.ts';
import { PayButtonEvents, type PayButtonEventMap, type PayButtonEventName } from './events.ts';
import { insecureGatewayWarning } from './gateway/channel.ts';
import { GatewayClient } from './gateway/client.ts';
import { createTransport } from './gateway/http.ts';
import { createInFlightLimiter } from '@tombolbayar/store-kit';
import { createLimiter, errorHandler, methodNotAllowed, originGuard } from './http/guards.ts';
import { logEvents } from './logging/event-log.ts';
import { healthHandler } from './http/health.ts';
import { resolveOptions, type PayButtonOptions } from './options.ts';
import { GatewayConfirmer } from './orders/confirm.ts';
import { callbackBase, OrderCreator } from './orders/create.ts';
import { Fulfilment } from './orders/fulfilment.ts';
import { OrderLifecycle } from './orders/lifecycle.ts';
import { reconcile, type ReconcileOptions, type ReconcileReport } from './orders/reconcile.ts';
import { startSweeper, type Sweeper } from './orders/sweep.ts';
import {
  createPaymentLinkFor, createVaOrderFor, linksHandler, vaHandler, type PaymentLink, type ServerCreateInput, type VaOrder,
} from './routes/create.ts';
import { notifyHandler } from './routes/notify.ts';
import { qrHandler } from './routes/qr.ts';
import { returnContinueHandler, returnPageHandler, returnScriptHandler } from './routes/return.ts';
import { scriptHandler, scriptSource } from './routes/script.ts';
import { statusHandler } from './routes/status.ts';
import { startSelfCheck, type SelfCheckReport } from './self-check.ts';
import { createStore } from './store/index.ts';
import { toPublicOrder, type Order } from './public-order.ts';

export interface PayButtonRouter extends Router {
  /** Order transitions, gateway calls, notifications, fulfilment, warnings. */
  readonly events: PayButtonEvents;
  /** Shorthand for `events.on`. */
  on<K extends PayButtonEventName>(name: K, listener: (...args: PayButtonEventMap[K]) => void): PayButtonRouter;
  /** A payment link priced by the caller (no browser involved). */
  createPaymentLink(input: ServerCreateInput & { readonly method?: string | null; readonly returnTo?: string }): Promise<PaymentLink & { readonly order: Order }>;
  /** Operation 1, Create VA, priced by the caller: for merchants who show the VA number themselves. */
  createVaOrder(input: ServerCreateInput & { readonly method: string }): Promise<VaOrder & { readonly order: Order }>;
  getOrder(orderNum: string): Promise<Order | undefined>;
  /** Ask the gateway about pending orders past expiry and stuck creations; re-run failed `onPaid`. */
  reconcile(options?: ReconcileOptions): Promise<ReconcileReport>;
  /**
   * Resolves once the store is open and migrated and the start-up check has run (requests wait for
   * the store on their own and never for the check): `gateway` is the check's verdict, `undefined`
   * with `selfCheck: false`. Rejects when the store cannot be opened.
   */
  ready(): Promise<ReadyReport>;
  /** A readiness handler to mount for probes: `app.get('/readyz', pay.health())`. */
  health(): RequestHandler;
  /** Stops the sweep, waits for creates and queries in flight, aborts running onPaid signals and waits for them, then closes the sockets and the store (if the router opened it). */
  close(): Promise<void>;
}

/** What `ready()` resolves with. */
export interface ReadyReport {
  readonly gateway: SelfCheckReport | undefined;
}

function method(value: string | null | undefined, required: boolean): MethodCode | null {
  if (value === null || value === undefined || value === '') {
    if (required) throw new PayButtonError('invalid_request', 'method: is required', { issues: [{ field: 'method', message: 'is required' }] });
    return null;
  }
  const code = resolveMethod(value);
  if (!code) throw new PayButtonError('invalid_request', 'method: is not a payment method code', { issues: [{ field: 'method', message: 'is not a payment method code' }] });
  return code;
}

export function payButton(options: PayButtonOptions): PayButtonRouter {
  const resolved = resolveOptions(options);
  // notifyUrl and redirectUrl must pass the protocol's URL rule: checked before anything is opened.
  const base = callbackBase(resolved);
  const events = new PayButtonEvents();
  logEvents(events, resolved.logger);
  if (resolved.insecureGatewayUrl) {
    // Opted in (allowInsecureGatewayUrl): said once in the process's log, and to the listeners,
    // which are attached after payButton() returns, so on the next turn of the event loop.
    const message = insecureGatewayWarning(resolved.gatewayUrl);
    process.emitWarning(message, { code: 'PAYBUTTON_INSECURE_GATEWAY_URL' });
    setImmediate(() => events.emit('warning', { code: 'insecure_gateway_url', message })).unref();
  }
  // A stored value that no longer reads back is served without it, and said; a connection the
  // database ended (or that went silent) is replaced by the pool: said, never fatal.
  const store = createStore(
    resolved.database,
    (orderNum, column, error) =>
      events.emit('warning', { code: 'unreadable_order', message: `order ${orderNum}: its stored ${column} could not be read; it is given as null`, orderNum, error }),
    (error) => events.emit('warning', { code: 'database_connection_lost', message: 'a database connection was lost; the pool opens a new one', error }),
  );
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
    now,
  });
  const reader = { ready, orders };
  const createDeps = { creator, events, options: resolved };

  // The signed notifyUrl and redirectUrl come from mountPath: say so once if the app mounted us elsewhere.
  let warnedMount = false;
  const checkMount: RequestHandler = (req: Request, _res, next) => {
    if ((req.baseUrl || '/') !== resolved.mountPath && !warnedMount) {
      warnedMount = true;
      events.emit('warning', { code: 'mount_path_mismatch', message: `mountPath is ${resolved.mountPath} but the router is reached at ${req.baseUrl || '/'}; notifyUrl and redirectUrl use mountPath: pass mountPath: '${req.baseUrl || '/'}'` });
    }
    next();
  };
  const guardDeps = { options: resolved, events };
  const guard = originGuard(guardDeps);
  const limiter = createLimiter(guardDeps);

  const router = Router() as PayButtonRouter;
  // Past maxInFlight, refuse at once rather than queue (a request whose client left is dropped).
  const inFlight = createInFlightLimiter(resolved.maxInFlight);
  router.use(
    inFlight.middleware((_req, res) => {
      const refusal = new PayButtonError('overloaded', 'Too many payments are being handled right now; try again in a moment.');
      res.setHeader('Retry-After', '1');
      res.setHeader('Cache-Control', 'no-store');
      res.statusCode = refusal.httpStatus;
      res.setHeader('Content-Type', 'application/json; charset=utf-8');
      res.end(JSON.stringify(refusal.toJSON()));
    }),
  );
  router.use(checkMount);
  router.options(['/links', '/va', '/orders/:orderNum', '/orders/:orderNum/qr'], guard);
  router.post('/links', guard, limiter, linksHandler(createDeps));
  router.all('/links', methodNotAllowed('POST'));
  router.post('/va', guard, limiter, vaHandler(createDeps));
  router.all('/va', methodNotAllowed('POST'));
  router.get('/orders/:orderNum', guard, statusHandler({ ...reader, lifecycle, events, refreshMs: resolved.statusRefreshMs }));
  router.all('/orders/:orderNum', methodNotAllowed('GET'));
  router.get('/orders/:orderNum/qr', guard, qrHandler(reader));
  router.post('/notify', notifyHandler({ options: resolved, events, ready, orders, lifecycle }));
  router.all('/notify', methodNotAllowed('POST'));
  const returnDeps = { ...reader, siteOrigin: resolved.publicUrl.origin, callbackBase: base };
  router.get('/return', returnPageHandler(returnDeps));
  router.get('/return/continue', returnContinueHandler(returnDeps));
  router.get('/return.js', returnScriptHandler());
  router.get('/pay-button.js', scriptHandler(scriptSource(resolved.payButtonScript), 'pay-button.js'));
  // <pay-va> imports ./pay-button.js, so it is served beside it.
  const vaScript = resolved.payButtonScript ? join(dirname(resolved.payButtonScript), 'pay-va.js') : undefined;
  router.get('/pay-va.js', scriptHandler(scriptSource(vaScript, '@tombolbayar/pay-button/dist/pay-va.js'), 'pay-va.js'));
  router.use(errorHandler(guardDeps));

  // Lost notifications found early: started once the store is ready, stopped first at close().
  const sweeper: Sweeper | undefined = resolved.sweep === false
    ? undefined
    : startSweeper({ ready, sweep: store.sweep, lifecycle, events, merchantCode: resolved.merchantCode, now }, resolved.sweep);

  let closing: Promise<void> | undefined;
  return Object.assign(router, {
    events,
    on<K extends PayButtonEventName>(name: K, listener: (...args: PayButtonEventMap[K]) => void) {
      events.on(name, listener as never);
      return router;
    },
    createPaymentLink: async (input: ServerCreateInput & { readonly method?: string | null; readonly returnTo?: string }) => {
      const { order, ...link } = await createPaymentLinkFor(createDeps, { ...input, method: method(input.method, false) });
      return { ...link, order: toPublicOrder(order) };
    },
    createVaOrder: async (input: ServerCreateInput & { readonly method: string }) => {
      const { order, ...va } = await createVaOrderFor(createDeps, { ...input, method: method(input.method, true) as MethodCode });
      return { ...va, order: toPublicOrder(order) };
    },
    getOrder: async (orderNum: string) => {
      await ready();
      const stored = await orders.get(orderNum);
      return stored && toPublicOrder({ ...stored, duplicateOf: stored.status === 'paid' ? await orders.duplicateOf(stored) : null });
    },
    reconcile: (reconcileOptions?: ReconcileOptions) =>
      reconcile({ ready, orders, lifecycle, confirmer, events, totalTimeoutMs: resolved.totalTimeoutMs, now }, reconcileOptions),
    ready: async (): Promise<ReadyReport> => {
      const [gateway] = await Promise.all([startupCheck, ready()]);
      return { gateway };
    },
    health: () => healthHandler({ ready, ping: () => store.ping() }),
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
      })()),
  });
}
