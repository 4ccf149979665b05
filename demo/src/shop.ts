/**
 * The demo merchant server: an ordinary Express app that mounts `@tombolbayar/express` with one
 * `app.use`, prices from its own catalogue, records sales in `onPaid`, and pushes order changes
 * to the page (server-sent events) so the order list updates as notifications arrive.
 */
import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import type { ServerResponse } from 'node:http';
import { metricsExpress, NotForSaleError, payButton, type PayButtonRouter, type QuoteRequestBody } from '@tombolbayar/express';
import express, { type Express } from 'express';
import { Registry } from 'prom-client';
import { z } from 'zod';
import { CATALOG, MAX_QUANTITY, findProduct } from './catalog.ts';
import { ownOriginOnly } from './own-origin.ts';
import { openShopStore, type ShopOrder, type ShopStore } from './shop-store.ts';

export interface ShopOptions {
  readonly gatewayUrl: string;
  readonly merchantCode: string;
  readonly privateKey: string;
  readonly platformPublicKey: string;
  /** This server's public origin, e.g. http://127.0.0.1:3000. */
  readonly publicUrl: string;
  /** Directory of the plug-in's and the shop's SQLite files. */
  readonly dataDir: string;
  /** The built page (demo/dist); null when Vite serves it (npm run dev). */
  readonly staticDir: string | null;
  /** Test hook: the notify endpoint answers 500 to this many notifications before working. */
  readonly failFirstNotifications?: number;
}

export interface Shop {
  readonly app: Express;
  readonly payments: PayButtonRouter;
  /** The shop's own metrics registry: the plug-in's series, served at `GET /metrics`. */
  readonly metrics: Registry;
  readonly store: ShopStore;
  close(): Promise<void>;
}

/** The customer of the demo: a real shop takes these from its checkout form or account. */
const DEMO_CUSTOMER = { name: 'Pelanggan Demo', email: 'pelanggan@example.com', phone: '081234567890' } as const;

const cartField = z
  .array(
    z.object({
      sku: z.string().min(1).max(64),
      quantity: z.number().int().min(1).max(MAX_QUANTITY),
    }).strict(),
  )
  .min(1, { error: 'must hold at least one product' })
  .max(CATALOG.length, { error: `must hold at most ${CATALOG.length} lines` });

type CartLine = z.infer<typeof cartField>[number];

/** The page's cart id: random, shared by the shop's tabs (localStorage), renewed after a payment. */
const cartIdField = z.string().regex(/^[0-9a-f]{32}$/, { error: 'must be 32 lower-case hex digits' });

/**
 * The plug-in's `reference` for a cart: its id and what is in it. Tabs of one cart get one order
 * (the plug-in gives a payable order of the same reference back); a changed cart is another
 * purchase. A real shop takes the id from the customer's session, not from the page.
 */
export function cartReference(cartId: string, lines: readonly CartLine[]): string {
  const sorted = [...lines].sort((a, b) => (a.sku < b.sku ? -1 : a.sku > b.sku ? 1 : 0));
  return `${cartId}.${createHash('sha256').update(JSON.stringify(sorted)).digest('hex').slice(0, 16)}`;
}

/** The shop's own words to the customer, in the language of its page (`lang` of the create request). */
const WORDS = {
  en: { several: (n: number) => `${n} products, Toko Kopi`, empty: 'Your cart is empty.', unknown: (sku: string) => `We do not sell "${sku}".` },
  id: { several: (n: number) => `${n} produk, Toko Kopi`, empty: 'Keranjang Anda kosong.', unknown: (sku: string) => `Kami tidak menjual "${sku}".` },
};

function cartOf(body: QuoteRequestBody): CartLine[] {
  if (Array.isArray(body.cart)) return body.cart as CartLine[];
  if (body.item) return [{ sku: body.item, quantity: 1 }];
  throw new NotForSaleError(WORDS[body.lang ?? 'en'].empty);
}

function describe(lines: readonly CartLine[]): string {
  return lines.map((line) => `${findProduct(line.sku)?.name ?? line.sku} × ${line.quantity}`).join(', ');
}


/** The price, from the catalogue only: the browser names products and quantities, nothing more. */
export function quoteCart(lines: readonly CartLine[], lang: 'en' | 'id' = 'en') {
  let payMoney = 0;
  for (const line of lines) {
    const product = findProduct(line.sku);
    if (!product) throw new NotForSaleError(WORDS[lang].unknown(line.sku.slice(0, 64)));
    payMoney += product.price * line.quantity;
  }
  const first = findProduct(lines[0]!.sku)!;
  const productDetail = lines.length === 1 ? `${first.detail} x${lines[0]!.quantity}` : WORDS[lang].several(lines.length);
  return { payMoney, productDetail: productDetail.slice(0, 32), ...DEMO_CUSTOMER, metadata: { cart: lines } };
}

/** `http://localhost:3000` for `http://127.0.0.1:3000` and the other way round: both open the demo. */
function loopbackAliases(publicUrl: string): string[] {
  const url = new URL(publicUrl);
  const alias = url.hostname === '127.0.0.1' ? 'localhost' : url.hostname === 'localhost' ? '127.0.0.1' : undefined;
  if (!alias) return [];
  url.hostname = alias;
  return [url.origin];
}

export function createShop(options: ShopOptions): Shop {
  const store = openShopStore(`${options.dataDir}/shop.sqlite`);
  const listeners = new Set<ServerResponse>();
  const announce = () => {
    for (const listener of listeners) listener.write('data: changed\n\n');
  };

  // A registry of the shop's own (never prom-client's global one), as docs/operations/metrics.md shows.
  const metrics = new Registry();
  const payments = payButton({
    gatewayUrl: options.gatewayUrl,
    merchantCode: options.merchantCode,
    privateKey: options.privateKey,
    platformPublicKey: options.platformPublicKey,
    publicUrl: options.publicUrl,
    // The plug-in never trusts the Host header: the other name of this machine is listed here.
    allowedOrigins: loopbackAliases(options.publicUrl),
    database: { kind: 'sqlite', file: `${options.dataDir}/payments.sqlite` },
    fields: { cart: cartField.optional(), cartId: cartIdField.optional() },
    quote: (_request, body) => {
      const lines = cartOf(body);
      return { ...quoteCart(lines, body.lang), ...(typeof body.cartId === 'string' ? { reference: cartReference(body.cartId, lines) } : {}) };
    },
    onPaid: (order) => {
      // A second payment of one cart (`duplicateOf`): the cart was sold once; the list says to refund this one.
      if (!order.duplicateOf) store.recordSale(order.orderNum, order.paidAt ?? new Date(), order.method);
      announce();
    },
    metrics: { registry: metrics },
    // The demo shares one process with its gateway and the machine with a browser and an editor:
    // a late event loop there is the laptop, not overload. A shop in production keeps the default.
    maxEventLoopDelayMs: false,
  });

  payments.on('order.transition', (event) => {
    payments
      .getOrder(event.orderNum)
      .then((order) => {
        if (!order) return;
        if (event.from === null) {
          const cart = (order.metadata?.cart ?? []) as CartLine[];
          store.recordOrder({ orderNum: order.orderNum, items: describe(cart), payMoney: Number(order.payMoney), method: order.method });
        }
        if (order.status !== 'creating') store.setStatus(order.orderNum, order.status, order.method, order.payFee === null ? null : Number(order.payFee));
        announce();
      })
      // The shop's list is a view; the plug-in's store stays the truth, so a failed update only logs.
      .catch((error: unknown) => console.error('demo shop: could not update the order list', error));
  });

  /**
   * A method chosen on the hosted page (or by `<pay-va>`) moves no order, so no transition event
   * told the shop's books: for a pending order, the plug-in's store says the method and its fee
   * (what the customer transfers is `payMoney + payFee`). For a paid one, whether it paid a cart
   * another order had paid (`duplicateOf`: refund it).
   */
  const withPaymentFacts = (orders: ShopOrder[]): Promise<Array<ShopOrder & { duplicateOf?: string }>> =>
    Promise.all(
      orders.map(async (order) => {
        if (order.status === 'paid') {
          const duplicateOf = (await payments.getOrder(order.orderNum))?.duplicateOf;
          return duplicateOf ? { ...order, duplicateOf } : order;
        }
        if (order.status !== 'pending' || order.payFee !== null) return order;
        const held = await payments.getOrder(order.orderNum);
        return held ? { ...order, method: held.method ?? order.method, payFee: held.payFee === null ? null : Number(held.payFee) } : order;
      }),
    );

  // The safety net a real shop runs too: ask the gateway about orders whose notification is late.
  const reconciling = setInterval(() => {
    payments.reconcile().catch((error: unknown) => console.error('demo shop: reconcile failed', error));
  }, 60_000);
  reconciling.unref();

  const app = express();
  app.disable('x-powered-by');
  app.use((_request, response, next) => {
    response.setHeader(
      'Content-Security-Policy',
      "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'self'",
    );
    response.setHeader('X-Content-Type-Options', 'nosniff');
    next();
  });
  // Before the shop's routes: Prometheus on this machine reads the plug-in's series (no token: loopback only).
  app.get('/metrics', metricsExpress(metrics));

  let failuresLeft = options.failFirstNotifications ?? 0;
  app.post('/pay/notify', (_request, response, next) => {
    if (failuresLeft <= 0) return next();
    failuresLeft -= 1;
    response.status(500).type('text/plain').send('the shop is restarting');
  });

  // The whole integration, server side: one line.
  app.use('/pay', payments);

  // Customers' orders: for the shop's own pages only, GET included (DNS rebinding).
  app.use('/api', ownOriginOnly(options.publicUrl));
  app.get('/api/orders', (_request, response, next) => {
    response.setHeader('Cache-Control', 'no-store');
    withPaymentFacts(store.recent()).then((orders) => response.json(orders), next);
  });
  app.get('/api/orders/stream', (request, response) => {
    response.writeHead(200, { 'Content-Type': 'text/event-stream', 'Cache-Control': 'no-store', Connection: 'keep-alive' });
    response.write('retry: 2000\n\n');
    listeners.add(response);
    request.on('close', () => listeners.delete(response));
  });

  if (options.staticDir && existsSync(options.staticDir)) app.use(express.static(options.staticDir));

  return {
    app,
    payments,
    metrics,
    store,
    async close() {
      clearInterval(reconciling);
      for (const listener of listeners) listener.end();
      listeners.clear();
      await payments.close();
      store.close();
    },
  };
}
