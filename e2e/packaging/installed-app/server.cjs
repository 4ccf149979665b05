// The same merchant app in CommonJS: require('@tombolbayar/express') on Node 20.19+ (require of an
// ES module without top-level await). Run by e2e/packaging/installed-packages.test.ts.
const { readFileSync } = require('node:fs');
const { join } = require('node:path');
// EXPRESS_PACKAGE=express4 runs the same app on Express 4 (installed under that alias).
const express = require(process.env.EXPRESS_PACKAGE || 'express');
const { payButton, NotForSaleError } = require('@tombolbayar/express');

const env = process.env;
const publicUrl = `http://127.0.0.1:${env.PORT}`;

const app = express();
app.use('/pay', payButton({
  gatewayUrl: env.GATEWAY_URL,
  merchantCode: env.MERCHANT_CODE,
  privateKey: readFileSync(env.MERCHANT_PRIVATE_KEY_FILE, 'utf8'),
  platformPublicKey: readFileSync(env.PLATFORM_PUBLIC_KEY_FILE, 'utf8'),
  publicUrl,
  quote: (req, body) => {
    if (body.item !== 'kopi') throw new NotForSaleError('This item is not for sale.');
    return { payMoney: 150000, productDetail: 'Kopi Gayo, 250 g', name: 'Budi Santoso', email: 'budi@example.com', phone: '081234567890' };
  },
  onPaid: (order) => console.log(`paid ${order.orderNum}`),
}));
app.get('/', (req, res) => res.sendFile(join(__dirname, 'page.html')));
app.listen(Number(env.PORT), '127.0.0.1', () => console.log(`shop listening on ${publicUrl} (CommonJS, Express ${require(`${process.env.EXPRESS_PACKAGE || 'express'}/package.json`).version})`));
