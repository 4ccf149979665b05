// A merchant's plain-JavaScript Express app (ESM), as the @tombolbayar/express README shows it, run
// by e2e/packaging/installed-packages.test.ts in a temporary folder where only the packed tarballs are installed.
import { readFileSync } from 'node:fs';
import express from 'express';
import { payButton, NotForSaleError } from '@tombolbayar/express';

const { PORT, GATEWAY_URL, MERCHANT_CODE, MERCHANT_PRIVATE_KEY_FILE, PLATFORM_PUBLIC_KEY_FILE } = process.env;
const publicUrl = `http://127.0.0.1:${PORT}`;
const PRICES = { kopi: 150000 };

const app = express();
app.use('/pay', payButton({
  gatewayUrl: GATEWAY_URL,
  merchantCode: MERCHANT_CODE,
  privateKey: readFileSync(MERCHANT_PRIVATE_KEY_FILE, 'utf8'),
  platformPublicKey: readFileSync(PLATFORM_PUBLIC_KEY_FILE, 'utf8'),
  publicUrl,
  quote: (req, body) => {
    const price = PRICES[body.item];
    if (price === undefined) throw new NotForSaleError('This item is not for sale.');
    return { payMoney: price, productDetail: 'Kopi Gayo, 250 g', name: 'Budi Santoso', email: 'budi@example.com', phone: '081234567890' };
  },
  onPaid: (order) => {
    console.log(`paid ${order.orderNum}`);
  },
}));
app.get('/', (req, res) => {
  res.type('html').send(readFileSync(new URL('./page.html', import.meta.url), 'utf8'));
});
app.listen(Number(PORT), '127.0.0.1', () => console.log(`shop listening on ${publicUrl} (ESM)`));
