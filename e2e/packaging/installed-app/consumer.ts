// A strict TypeScript consumer (module/moduleResolution nodenext) of every entry of the installed
// packages; e2e/packaging/installed-packages.test.ts type-checks it with `tsc --noEmit` and never runs it.
import express from 'express';
import { NotForSaleError, payButton, type PayButtonOptions } from '@tombolbayar/express';
import { createPayButton, type PayButtonHandler, type RequestFacts } from '@tombolbayar/server';
import { createGateway, type Gateway, type GatewayOptions } from '@tombolbayar/gateway';
import { METHODS, type MethodCode } from '@tombolbayar/protocol';
import { isMethodCode } from '@tombolbayar/protocol/methods';
import { formatRupiah } from '@tombolbayar/protocol/formats';
import { sign, type KeyInput } from '@tombolbayar/protocol/node';
import { PayButton, define } from '@tombolbayar/pay-button';
import '@tombolbayar/pay-button/define';
import { PayButton as PayButtonForReact } from '@tombolbayar/pay-button/react';
import { PayButton as ScriptTagPayButton } from '@tombolbayar/pay-button/dist/pay-button.js';

const key: KeyInput = '-----BEGIN PRIVATE KEY-----';
const options: PayButtonOptions = {
  gatewayUrl: 'http://127.0.0.1:4010',
  merchantCode: 'SHOP-001',
  privateKey: key,
  platformPublicKey: key,
  publicUrl: 'http://127.0.0.1:3000',
  quote: (_req, body) => {
    if (body.item !== 'kopi') throw new NotForSaleError('This item is not for sale.');
    return { payMoney: 150_000, productDetail: 'Kopi', name: 'Budi', email: 'budi@example.com', phone: '081234567890' };
  },
  onPaid: async (order) => {
    const orderNum: string = order.orderNum;
    void orderNum;
  },
};
const app: express.Express = express();
app.use('/pay', payButton(options));
app.get('/readyz', payButton(options).health());

// The fetch core: quote() and rateLimit.key() receive the Web Request.
const core: PayButtonHandler = createPayButton({
  gatewayUrl: 'http://127.0.0.1:4010',
  merchantCode: 'SHOP-001',
  privateKey: key,
  platformPublicKey: key,
  publicUrl: 'http://127.0.0.1:3000',
  rateLimit: { key: (request) => request.headers.get('x-session') ?? undefined },
  quote: (request, body) => {
    const session: string | null = request.headers.get('cookie');
    void session;
    return { payMoney: 150_000, productDetail: body.item ?? 'Kopi', name: 'Budi', email: 'budi@example.com', phone: '081234567890' };
  },
  onPaid: () => {},
});
const facts: RequestFacts = { clientAddress: '127.0.0.1', mountPath: '/pay' };
const answered: Promise<Response> = core.fetch(new Request('http://127.0.0.1:3000/pay/links'), facts);
const ready: Promise<Response> = core.healthResponse();
void ready;
void answered;

const gatewayOptions: GatewayOptions = { platformPrivateKey: key, sandbox: true };
const gateway: Gateway = createGateway(gatewayOptions);
void gateway;

const code: MethodCode | undefined = isMethodCode('VA_BCA') ? 'VA_BCA' : undefined;
const label: string = formatRupiah(150_000) + (code ? METHODS[code].displayName : '');
const signature: string = sign({ merchantCode: 'SHOP-001' }, key);
void label;
void signature;

const element: PayButton = document.createElement('pay-button');
element.item = 'kopi';
const same: typeof PayButton = ScriptTagPayButton;
define('pay-button', same);
void PayButtonForReact;
