/**
 * The shop's one payment handler: `getPay()` makes it on the first request and hands the same one
 * to every later request. Made lazily, because `next build` loads the route to read its settings
 * (no keys or gateway needed to build); kept on `globalThis`, because `next dev` re-runs this module
 * on every edit and each copy would open the store and start its own timers.
 */
import { createPayButton, NotForSaleError, type PayButtonHandler } from '@tombolbayar/server';
import { findProduct } from './catalogue';
import { recordPaid } from './paid-orders';

const shared = globalThis as typeof globalThis & { tombolbayarPay?: PayButtonHandler };

export function getPay(): PayButtonHandler {
  return (shared.tombolbayarPay ??= createPayButton({
    gatewayUrl: process.env.GATEWAY_URL ?? 'http://127.0.0.1:4010', // live: https://openapi.bdpay.co.id
    merchantCode: process.env.MERCHANT_CODE ?? 'SHOP-001',
    privateKey: process.env.MERCHANT_PRIVATE_KEY ?? '', // PKCS#8 PEM text; never leaves the server
    platformPublicKey: process.env.PLATFORM_PUBLIC_KEY ?? '',
    // How the gateway and browsers reach you: next start's address unless PUBLIC_URL says otherwise.
    publicUrl: process.env.PUBLIC_URL ?? `http://127.0.0.1:${process.env.PORT ?? 3000}`,
    mountPath: '/pay', // where app/pay/[...path]/route.ts is
    quote: (_request, body) => {
      const product = findProduct(body.item);
      if (!product) throw new NotForSaleError('We do not sell that.');
      // The customer's details come from your session or checkout form; fixed here to stay short.
      const customer = { name: 'Budi Santoso', email: 'budi@example.com', phone: '081234567890' };
      return { payMoney: product.price, productDetail: product.name, ...customer };
    },
    onPaid: (order) => {
      // One recorded completion per paid order: ship it, mark it paid in your database.
      console.log(`paid: ${order.orderNum}, Rp ${order.payMoney} by ${order.method}`);
      recordPaid({ orderNum: order.orderNum, payMoney: order.payMoney, method: order.method });
    },
  }));
}
