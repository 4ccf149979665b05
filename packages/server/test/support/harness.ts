/**
 * One merchant shop per test: the real gateway in-process (sandbox unless `production`, its own
 * SQLite file), an Express 5 app with `payButton()` mounted, a fresh order store, and helpers to
 * act like the browser (`createLink`, `status`) and like the customer (`payAtGateway`).
 *
 * Every connection stays on loopback. A production-mode gateway refuses http and loopback
 * callbacks, so its shop is configured with a `publicUrl` on a name (`https://shop.example`) that
 * the gateway's injected DNS never resolves: its notifications are never dialled (`dnsLookups`
 * records what it asked), and the tests reach the shop on its loopback address directly.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { LookupFunction } from 'node:net';
import type { Gateway, GatewayOptions } from '@tombolbayar/gateway';
import { simulationsFor } from '@tombolbayar/gateway/internal';
import express from 'express';
import { NotForSaleError, payButton, type Order, type PayButtonOptions, type PayButtonRouter } from '../../src/adapters/express.ts';
import type { PayButtonEventMap, PayButtonEventName } from '../../src/events.ts';
import { withTuning, type Tuning } from '../../src/internal/tuning.ts';
import type { DatabaseOption } from '../../src/store/database.ts';
import { createStore, type Order as StoredOrder, type Store } from '../../src/store/index.ts';
import { MERCHANT_CODE, merchantKeys, platformKeys } from './keys.ts';
import { startProxy, type FaultProxy } from './proxy.ts';
import { startRewriteProxy, type RewriteProxy } from './rewrite-proxy.ts';
import { testGateway } from './sandbox-gateway.ts';

export type Parsers = 'none' | 'json' | 'urlencoded' | 'urlencoded-extended' | 'both' | 'text' | 'raw' | 'stream-eater' | 'urlencoded-off-mount' | 'both-keeping-raw';

/** Where the harness's servers listen, for options that name them. */
export interface HarnessUrls {
  readonly merchantUrl: string;
  readonly gatewayUrl: string;
}

/** The public URL a production-mode shop is configured with; never resolved, never dialled. */
export const PRODUCTION_SHOP_URL = 'https://shop.example';

export interface HarnessOptions {
  readonly options?: Partial<PayButtonOptions> | ((urls: HarnessUrls) => Partial<PayButtonOptions>);
  /**
   * A production-mode gateway (no sandbox routes, https and public callbacks only), with a DNS
   * lookup that answers nothing. The shop's `publicUrl` is `PRODUCTION_SHOP_URL` and its own
   * loopback origin is an allowed origin; `payAtGateway` uses the gateway's internal simulations.
   */
  readonly production?: boolean;
  /** Timings the package keeps as constants; shortened here so retries and leases do not take seconds. */
  readonly tuning?: Partial<Tuning>;
  /** Global body parsers the merchant's app installs before the router. */
  readonly parsers?: Parsers;
  /** Put a fault proxy between the router and the gateway. */
  readonly proxy?: boolean;
  /** Put an HTTP proxy that can rewrite the gateway's answers between the router and the gateway. */
  readonly rewriter?: boolean;
  readonly database?: DatabaseOption;
  /** The gateway's database (default: its own SQLite file). */
  readonly gatewayDatabase?: GatewayOptions['database'];
  /** More gateway options (notification tuning, maxInFlight). */
  readonly gatewayOptions?: Partial<GatewayOptions>;
  readonly mount?: string;
  /** Throw from onPaid this many times before succeeding. */
  readonly onPaidFailures?: number;
  /** Settings of the merchant's app (`trust proxy`), applied before mounting. */
  readonly configureApp?: (app: express.Express) => void;
}

export interface RecordedEvent {
  readonly name: PayButtonEventName;
  readonly payload: PayButtonEventMap[PayButtonEventName][0];
}

export const CATALOGUE: Record<string, { price: number; name: string }> = {
  kopi: { price: 150_000, name: 'Kopi Gayo 250g' },
  teh: { price: 50_000, name: 'Teh Tarik' },
  mahal: { price: 25_000_000, name: 'Emas 5g' },
};

export interface Harness {
  readonly gateway: Gateway;
  readonly gatewayUrl: string;
  readonly merchantUrl: string;
  readonly mountUrl: string;
  readonly router: PayButtonRouter;
  readonly proxy: FaultProxy | undefined;
  readonly rewriter: RewriteProxy | undefined;
  readonly events: RecordedEvent[];
  /** Host names the gateway's notification worker looked up (a production gateway answers none). */
  readonly dnsLookups: string[];
  /** Orders `onPaid` completed for, in order. */
  readonly fulfilled: Order[];
  /** Every `onPaid` call, including the ones that threw. */
  readonly onPaidCalls: Array<{ orderNum: string; attempt: number }>;
  post(path: string, body: unknown, headers?: Record<string, string>): Promise<{ status: number; body: any; headers: Headers }>;
  get(path: string, headers?: Record<string, string>): Promise<{ status: number; body: any; headers: Headers; text: string }>;
  createLink(body?: Record<string, unknown>, headers?: Record<string, string>): Promise<{ status: number; body: any; headers: Headers }>;
  status(orderNum: string, token: string): Promise<{ status: number; body: any; headers: Headers }>;
  /** The customer pays on the gateway (sandbox API), choosing a method if the order has none. */
  payAtGateway(orderNum: string, method?: string): Promise<void>;
  platOrderNumOf(orderNum: string): Promise<string>;
  eventsNamed<K extends PayButtonEventName>(name: K): Array<PayButtonEventMap[K][0]>;
  /** The shop's order store, for a second process's view of it (another `createStore`). */
  readonly database: DatabaseOption;
  /** The row as the store holds it, bookkeeping included (what `getOrder()` does not show). */
  stored(orderNum: string): Promise<StoredOrder | undefined>;
  close(): Promise<void>;
}

let counter = 0;
export const newKey = (): string => `key-${process.pid}-${Date.now().toString(36)}-${(counter += 1)}-${Math.random().toString(36).slice(2, 10)}`;

/** Poll until `check` returns a truthy value (bounded; fails the test with `what` otherwise). */
export async function waitFor<T>(check: () => T | Promise<T>, what: string, timeoutMs = 10_000): Promise<NonNullable<T>> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value) return value as NonNullable<T>;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

function installParsers(app: express.Express, parsers: Parsers): void {
  if (parsers === 'json' || parsers === 'both') app.use(express.json());
  if (parsers === 'urlencoded' || parsers === 'both') app.use(express.urlencoded({ extended: false }));
  if (parsers === 'urlencoded-extended') app.use(express.urlencoded({ extended: true }));
  if (parsers === 'text') app.use(express.text({ type: '*/*' }));
  if (parsers === 'raw') app.use(express.raw({ type: '*/*' }));
  if (parsers === 'urlencoded-off-mount') {
    // The README's way to keep a global parser that must run first away from the router's paths.
    const urlencoded = express.urlencoded({ extended: false });
    app.use((req, res, next) => (req.path.startsWith('/pay/') ? next() : urlencoded(req, res, next)));
  }
  if (parsers === 'both-keeping-raw') {
    // Parsers that keep the bytes they read (their `verify` option), as the README shows.
    const keep = (req: express.Request & { rawBody?: Buffer }, _res: unknown, buf: Buffer) => {
      req.rawBody = buf;
    };
    app.use(express.json({ verify: keep }));
    app.use(express.urlencoded({ extended: false, verify: keep }));
  }
  if (parsers === 'stream-eater') {
    // A middleware that reads every body and keeps nothing (a logging proxy, a misconfigured parser).
    app.use((req, _res, next) => {
      req.on('data', () => {});
      req.on('end', () => next());
      req.resume();
    });
  }
}

export async function startHarness(setup: HarnessOptions = {}): Promise<Harness> {
  const dir = mkdtempSync(join(tmpdir(), 'pb-express-'));
  const dnsLookups: string[] = [];
  // Never a real DNS answer: nothing a test makes the gateway deliver can leave the machine.
  const lookup: LookupFunction = (hostname, _options, callback) => {
    dnsLookups.push(hostname);
    callback(Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: 'ENOTFOUND' }), []);
  };
  const gateway = testGateway(dir, {
    ...(setup.gatewayDatabase ? { database: setup.gatewayDatabase } : {}),
    sandbox: !setup.production,
    notifications: { pollIntervalMs: 50, timeoutMs: 5_000, ...(setup.production ? { lookup } : {}) },
    ...setup.gatewayOptions,
  });
  const { url: gatewayUrl } = await gateway.listen();
  const proxy = setup.proxy ? await startProxy(gatewayUrl) : undefined;
  const rewriter = setup.rewriter ? await startRewriteProxy(gatewayUrl) : undefined;

  // The merchant's server is listening before the router exists, so publicUrl is known.
  const server = http.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const merchantUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const mount = setup.mount ?? '/pay';

  const fulfilled: Order[] = [];
  const onPaidCalls: Array<{ orderNum: string; attempt: number }> = [];
  let failuresLeft = setup.onPaidFailures ?? 0;
  const database = setup.database ?? { kind: 'sqlite', file: join(dir, 'orders.sqlite') };
  const router = payButton(withTuning({
    logger: false,
    selfCheck: false,
    // The suites share two cores with each other and a browser: only the tests of shedding shed.
    maxEventLoopDelayMs: false,
    gatewayUrl: proxy?.url ?? rewriter?.url ?? gatewayUrl,
    merchantCode: MERCHANT_CODE,
    privateKey: merchantKeys().privateKey,
    platformPublicKey: platformKeys().publicKey,
    publicUrl: setup.production ? PRODUCTION_SHOP_URL : merchantUrl,
    ...(setup.production ? { allowedOrigins: [merchantUrl] } : {}),
    // The payment page is on the gateway's own origin, not the proxy's.
    paymentPageOrigins: [new URL(gatewayUrl).origin],
    mountPath: mount,
    database,
    quote: (_req, body) => {
      const entry = CATALOGUE[body.item ?? ''];
      if (!entry) throw new NotForSaleError(`${body.item ?? 'Nothing'} is not for sale.`);
      return { payMoney: entry.price, productDetail: entry.name, name: 'Budi Santoso', email: 'budi@example.com', phone: '081234567890', metadata: { item: body.item } };
    },
    onPaid: async (order, context) => {
      onPaidCalls.push({ orderNum: order.orderNum, attempt: context.attempt });
      if (failuresLeft > 0) {
        failuresLeft -= 1;
        throw new Error('fulfilment backend is down');
      }
      fulfilled.push(order);
    },
    rateLimit: false,
    ...(typeof setup.options === 'function' ? setup.options({ merchantUrl, gatewayUrl }) : setup.options),
  }, { retryBaseDelayMs: 20, retryMaxDelayMs: 100, ...setup.tuning }));
  let inspector: Store | undefined;
  const events: RecordedEvent[] = [];
  for (const name of ['order.transition', 'gateway.call', 'notification.accepted', 'notification.rejected', 'fulfilment.succeeded', 'fulfilment.failed', 'fulfilment.lease_lost', 'fulfilment.unrecorded', 'order.duplicate_paid', 'warning'] as const) {
    router.events.on(name, ((payload: RecordedEvent['payload']) => {
      events.push({ name, payload });
    }) as never);
  }

  const app = express();
  setup.configureApp?.(app);
  installParsers(app, setup.parsers ?? 'none');
  app.use(mount, router);
  server.on('request', app);
  await router.ready();

  const origin = { origin: merchantUrl };
  const harness: Harness = {
    database,
    gateway,
    gatewayUrl,
    merchantUrl,
    mountUrl: `${merchantUrl}${mount}`,
    router,
    proxy,
    rewriter,
    events,
    dnsLookups,
    fulfilled,
    onPaidCalls,
    async post(path, body, headers = {}) {
      const response = await fetch(`${merchantUrl}${mount}${path}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...origin, ...headers },
        body: typeof body === 'string' ? body : JSON.stringify(body),
      });
      const text = await response.text();
      let parsed: unknown = text;
      try {
        parsed = JSON.parse(text);
      } catch {
        // plain text answer
      }
      return { status: response.status, body: parsed, headers: response.headers };
    },
    async get(path, headers = {}) {
      const response = await fetch(`${merchantUrl}${mount}${path}`, { headers, redirect: 'manual' });
      const text = await response.text();
      let parsed: unknown = text;
      try {
        parsed = JSON.parse(text);
      } catch {
        // HTML or text
      }
      return { status: response.status, body: parsed, headers: response.headers, text };
    },
    createLink(body = {}, headers = {}) {
      return harness.post('/links', { item: 'kopi', idempotencyKey: newKey(), ...body }, headers);
    },
    status(orderNum, token) {
      return harness.get(`/orders/${encodeURIComponent(orderNum)}`, { 'Tombolbayar-Status-Token': token });
    },
    async platOrderNumOf(orderNum) {
      const order = await gateway.findOrderByOrderNum(MERCHANT_CODE, orderNum);
      if (!order) throw new Error(`the gateway has no order ${orderNum}`);
      return order.platOrderNum;
    },
    async payAtGateway(orderNum, method = 'VA_BCA') {
      const platOrderNum = await harness.platOrderNumOf(orderNum);
      const current = await gateway.findOrder(platOrderNum);
      if (setup.production) {
        // No sandbox in a production gateway: the sandbox's simulation, composed by the test.
        await simulationsFor(gateway).pay(platOrderNum, current?.method ? {} : { method: method as 'VA_BCA' });
        return;
      }
      const response = await fetch(`${gatewayUrl}/sandbox/orders/${encodeURIComponent(platOrderNum)}/pay`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(current?.method ? {} : { method }),
      });
      if (response.status !== 200) throw new Error(`sandbox pay failed: ${response.status} ${await response.text()}`);
    },
    eventsNamed(name) {
      return events.filter((event) => event.name === name).map((event) => event.payload) as never;
    },
    async stored(orderNum) {
      inspector ??= createStore(database);
      return inspector.orders.get(orderNum);
    },
    async close() {
      await router.close();
      await inspector?.close();
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      });
      await proxy?.close();
      await rewriter?.close();
      await gateway.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
  return harness;
}
