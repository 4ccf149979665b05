// A tiny shop on Fastify: a page with <pay-button>, and the plug-in registered under /pay.
import Fastify from 'fastify';
import { createPayButton, NotForSaleError } from '@tombolbayar/server';
import { payButtonFastify } from '@tombolbayar/server/fastify';

const port = Number(process.env.PORT ?? 3000);
// Your catalogue: the price always comes from the server, never from the page.
const catalogue = new Map([['kopi-gayo-250', { name: 'Kopi Gayo 250g', price: 150_000 }]]);

const pay = createPayButton({
  gatewayUrl: process.env.GATEWAY_URL ?? 'http://127.0.0.1:4010', // live: https://openapi.bdpay.co.id
  merchantCode: process.env.MERCHANT_CODE,
  privateKey: process.env.MERCHANT_PRIVATE_KEY,        // PKCS#8 PEM text; never leaves the server
  platformPublicKey: process.env.PLATFORM_PUBLIC_KEY,  // or [oldKey, newKey] during a rotation
  publicUrl: process.env.PUBLIC_URL ?? `http://127.0.0.1:${port}`, // how the gateway and browsers reach you
  quote: (request, body) => {                          // request: Fastify's request (your session)
    const product = catalogue.get(body.item);
    if (!product) throw new NotForSaleError('We do not sell that.');
    // The customer's details come from your session or checkout form; fixed here to stay short.
    return { payMoney: product.price, productDetail: product.name, name: 'Budi Santoso', email: 'budi@example.com', phone: '081234567890' };
  },
  onPaid: async (order) => {                           // one recorded completion per paid order
    console.log(`paid: ${order.orderNum}, Rp ${order.payMoney} by ${order.method}`);
  },
});

// Timeouts (Fastify's requestTimeout defaults to none): a client that is slow to send its request
// or its next keep-alive request holds no connection for long. Behind a proxy: trustProxy: 1.
const app = Fastify({ requestTimeout: 30_000, keepAliveTimeout: 5_000, http: { headersTimeout: 10_000 } });
await app.register(payButtonFastify, { prefix: '/pay', payButton: pay }); // pay is closed with the app
app.get('/readyz', () => pay.healthResponse());
app.get('/', (request, reply) => reply.type('text/html').send(`<!doctype html>
<script type="module" src="/pay/pay-button.js"></script>
<pay-button endpoint="/pay" item="kopi-gayo-250">Bayar</pay-button>`));

await app.listen({ port, host: '127.0.0.1' });
console.log(`shop on http://127.0.0.1:${app.server.address().port}`);
// Ctrl-C: stop taking requests, then let the plug-in finish what it started.
for (const signal of ['SIGINT', 'SIGTERM']) process.once(signal, () => app.close().then(() => process.exit(0)));
