// A tiny shop on Hono: a page with <pay-button>, and the plug-in mounted at /pay.
import { serve } from '@hono/node-server';
import { Hono } from 'hono';
import { createPayButton, NotForSaleError } from '@tombolbayar/server';
import { payButtonHono } from '@tombolbayar/server/hono';

const port = Number(process.env.PORT ?? 3000);
// Your catalogue: the price always comes from the server, never from the page.
const catalogue = new Map([['kopi-gayo-250', { name: 'Kopi Gayo 250g', price: 150_000 }]]);

const pay = createPayButton({
  gatewayUrl: process.env.GATEWAY_URL ?? 'http://127.0.0.1:4010', // live: https://openapi.bdpay.co.id
  merchantCode: process.env.MERCHANT_CODE,
  privateKey: process.env.MERCHANT_PRIVATE_KEY,        // PKCS#8 PEM text; never leaves the server
  platformPublicKey: process.env.PLATFORM_PUBLIC_KEY,  // or [oldKey, newKey] during a rotation
  publicUrl: process.env.PUBLIC_URL ?? `http://127.0.0.1:${port}`, // how the gateway and browsers reach you
  quote: (c, body) => {                                // c: Hono's Context (your session, c.get('user'))
    const product = catalogue.get(body.item);
    if (!product) throw new NotForSaleError('We do not sell that.');
    // The customer's details come from your session or checkout form; fixed here to stay short.
    return { payMoney: product.price, productDetail: product.name, name: 'Budi Santoso', email: 'budi@example.com', phone: '081234567890' };
  },
  onPaid: async (order) => {                           // one recorded completion per paid order
    console.log(`paid: ${order.orderNum}, Rp ${order.payMoney} by ${order.method}`);
  },
});

const app = new Hono();
app.route('/pay', payButtonHono(pay));
app.get('/readyz', () => pay.healthResponse());
app.get('/', (c) => c.html(`<!doctype html>
<script type="module" src="/pay/pay-button.js"></script>
<pay-button endpoint="/pay" item="kopi-gayo-250">Bayar</pay-button>`));

// Timeouts (Node's defaults wait 300 s for a request): a client that is slow to send its headers,
// its request or its next keep-alive request holds no connection for long.
const serverOptions = { headersTimeout: 10_000, requestTimeout: 30_000, keepAliveTimeout: 5_000 };
const server = serve({ fetch: app.fetch, port, hostname: '127.0.0.1', serverOptions }, (info) => console.log(`shop on http://127.0.0.1:${info.port}`));
// Ctrl-C: stop taking requests, then let the plug-in finish what it started.
process.once('SIGINT', () => server.close(() => pay.close().then(() => process.exit(0))));
process.once('SIGTERM', () => server.close(() => pay.close().then(() => process.exit(0))));
