/**
 * `@tombolbayar/express` is the server package's Express adapter under the name the README's first
 * snippet installs: the same functions (not copies), and a router that answers on a real Express app.
 */
import assert from 'node:assert/strict';
import { once } from 'node:events';
import { mkdtempSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import express from 'express';
import * as serverExpress from '@tombolbayar/server/express';
import * as entry from '../src/index.ts';

describe('@tombolbayar/express', () => {
  it('exports the server package\'s Express adapter itself', () => {
    assert.equal(entry.payButton, serverExpress.payButton);
    assert.equal(entry.payButtonExpress, serverExpress.payButtonExpress);
    assert.equal(entry.NotForSaleError, serverExpress.NotForSaleError);
  });

  it('refuses a configuration with the field named, before anything starts', () => {
    assert.throws(() => entry.payButton({} as never), (error: Error & { issues?: { field: string }[] }) =>
      error instanceof entry.PayButtonError && (error.issues ?? []).some((issue) => issue.field === 'gatewayUrl'));
  });

  it('serves the element script on a mounted Express app and passes other paths on', async () => {
    const { generateKeyPairSync } = await import('node:crypto');
    const pem = (type: 'pkcs8' | 'spki', key: import('node:crypto').KeyObject) => key.export({ type, format: 'pem' }).toString();
    const merchant = generateKeyPairSync('rsa', { modulusLength: 1024 });
    const platform = generateKeyPairSync('rsa', { modulusLength: 1024 });
    const pay = entry.payButton({
      gatewayUrl: 'http://127.0.0.1:9', merchantCode: 'SHOP-1', privateKey: pem('pkcs8', merchant.privateKey),
      platformPublicKey: pem('spki', platform.publicKey), publicUrl: 'http://127.0.0.1:3000',
      quote: () => ({ payMoney: 10_000, productDetail: 'Kopi', name: 'Budi', email: 'budi@example.com', phone: '081234567890' }),
      onPaid: () => {}, database: { kind: 'sqlite', file: join(mkdtempSync(join(tmpdir(), 'tb-express-')), 'orders.sqlite') }, logger: false, selfCheck: false, sweep: false,
    });
    const app = express();
    app.use('/pay', pay);
    app.get('/', (_req, res) => res.send('shop'));
    const server = app.listen(0, '127.0.0.1');
    await once(server, 'listening');
    try {
      const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
      const script = await fetch(`${base}/pay/pay-button.js`);
      assert.equal(script.status, 200);
      assert.match(script.headers.get('content-type') ?? '', /javascript/);
      assert.equal(await (await fetch(`${base}/`)).text(), 'shop');
    } finally {
      server.close();
      await pay.close();
    }
  });
});
