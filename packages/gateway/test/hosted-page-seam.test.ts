/**
 * The gateway's implementation of the hosted page's seam (`page/deps.ts`) on the real domain:
 * what the page sees of an order, and how domain refusals reach it.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { gatewayInternals } from '../src/internal.ts';
import { PageActionError } from '../src/page/deps.ts';
import { openDatabase } from '../src/store/database.ts';
import { saveBranding } from '../src/store/branding.ts';
import { ENGINES } from './support/engines.ts';
import { startHarness, type Harness } from './support/harness.ts';

const refusedWith = (reason: string) => (error: unknown) => error instanceof PageActionError && error.reason === reason;

for (const engine of ENGINES) {
  describe(`page seam on ${engine}`, () => {
    let h: Harness;
    before(async () => {
      h = await startHarness(engine);
    });
    after(() => h.stop());

    // The deps the gateway mounted its page router with.
    const deps = () => gatewayInternals(h.gateway).pageDeps;

    test('an order as the page sees it, then a method choice and a simulated payment', async () => {
      const created = await h.client.createLink({ payMoney: '120000', productDetail: 'Teh Tarik' });
      const seam = deps();
      const order = await seam.findOrder(created.body.platOrderNum!);
      assert.equal(order?.merchantName, 'Toko Test');
      assert.equal(order?.productDetail, 'Teh Tarik');
      assert.equal(order?.status, 'PENDING');
      assert.equal(order?.method, null);
      assert.equal(await seam.findOrder('unknown'), undefined);

      await assert.rejects(seam.sandbox!.pay(created.body.platOrderNum!), refusedWith('method-not-allowed'));
      const chosen = await seam.chooseMethod(created.body.platOrderNum!, 'VA_BRI');
      assert.match(chosen.vaNumber!, /^26215\d{11}$/);
      assert.equal(chosen.payFee, 4000);
      await assert.rejects(seam.chooseMethod(created.body.platOrderNum!, 'QRIS'), refusedWith('method-already-chosen'));
      assert.equal((await seam.sandbox!.pay(created.body.platOrderNum!)).status, 'PAID');
      await assert.rejects(seam.sandbox!.fail(created.body.platOrderNum!), refusedWith('not-pending'));
      await assert.rejects(seam.chooseMethod('unknown', 'QRIS'), refusedWith('not-found'));
    });

    test('amount outside a method, and expiry, as the page is told', async () => {
      const seam = deps();
      const small = await h.client.createLink({ payMoney: '5000' });
      await assert.rejects(seam.chooseMethod(small.body.platOrderNum!, 'VA_BCA'), refusedWith('method-not-allowed'));
      const link = await h.client.createLink({ expiryPeriod: '30' });
      h.gateway.clock.advance(30 * 60_000);
      assert.equal(seam.now(), h.gateway.clock.now());
      assert.equal((await seam.findOrder(link.body.platOrderNum!))?.status, 'EXPIRED');
    });
  });
}

test('outside sandbox mode the seam offers no simulate actions', async () => {
  const h = await startHarness('sqlite', { sandbox: false });
  try {
    assert.equal(gatewayInternals(h.gateway).pageDeps.sandbox, undefined);
  } finally {
    await h.stop();
  }
});

test('outside sandbox mode too, the page gets the branding of the merchant, and which orders may change method', async () => {
  const h = await startHarness('sqlite', { sandbox: false });
  try {
    const database = openDatabase(h.store.database);
    try {
      const branding = { displayName: 'Toko Kopi Senja', logo: 'https://cdn.senja.example/logo.png', accentColor: '#c2410c', supportContact: 'halo@senja.example' };
      await saveBranding(database.db, h.merchant.merchantCode, branding, Date.now());
    } finally {
      await database.close();
    }
    const seam = gatewayInternals(h.gateway).pageDeps;
    const link = await h.client.createLink({ notifyUrl: 'https://shop.example/notify', redirectUrl: 'https://shop.example/return' });
    assert.equal(link.body.platRespCode, 'SUCCESS', link.body.platRespMessage);
    const order = await seam.findOrder(link.body.platOrderNum!);
    assert.equal(order?.merchantName, 'Toko Kopi Senja');
    assert.deepEqual(order?.brand, { logo: 'https://cdn.senja.example/logo.png', accentColor: '#c2410c', supportContact: 'halo@senja.example' });
    assert.equal(order?.methodChangeable, true);
    const va = await h.client.createVa({ notifyUrl: 'https://shop.example/notify' });
    assert.equal(va.body.platRespCode, 'SUCCESS', va.body.platRespMessage);
    const fixed = await seam.findOrder(va.body.platOrderNum!);
    assert.equal(fixed?.methodChangeable, false);
    await assert.rejects(seam.changeMethod(va.body.platOrderNum!, fixed!.method!), refusedWith('method-locked'));
  } finally {
    await h.stop();
  }
});
