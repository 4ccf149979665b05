/**
 * What the plug-in tells the customer (issue 20): the return page states the order's real
 * outcome in the customer's language (`?lang=`, else `Accept-Language`), styled under a CSP that
 * still allows no inline script; the status answer says when it could not be checked with the
 * gateway (`confirmed: false`), so the element says "not confirmed yet" rather than "cancelled".
 */
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import { simulationsFor } from '@tombolbayar/gateway/internal';
import { MERCHANT_CODE } from './support/keys.ts';
import { startHarness, waitFor, type Harness } from './support/harness.ts';

let shop: Harness;
before(async () => {
  shop = await startHarness({ proxy: true });
});
after(async () => {
  await shop.close();
});

async function redirectUrlOf(orderNum: string): Promise<string> {
  const order = await shop.gateway.findOrderByOrderNum(MERCHANT_CODE, orderNum);
  assert.ok(order?.redirectUrl);
  return order.redirectUrl;
}

async function returnPage(orderNum: string, query = '', headers: Record<string, string> = {}): Promise<{ html: string; csp: string }> {
  const res = await fetch(`${await redirectUrlOf(orderNum)}${query}`, { headers });
  assert.equal(res.status, 200);
  return { html: await res.text(), csp: res.headers.get('content-security-policy') ?? '' };
}

describe('the return page says what happened', () => {
  test('paid: "Payment received", the amount and the order number, a 44 px "Back to the shop"', async () => {
    const { body } = await shop.createLink({ item: 'kopi' });
    await shop.payAtGateway(body.orderNum);
    await shop.status(body.orderNum, body.statusToken);
    const { html } = await returnPage(body.orderNum);
    assert.match(html, /<html lang="en">/);
    assert.match(html, /<h1>Payment received<\/h1>/);
    assert.match(html, /Rp\s?150\.000/);
    assert.match(html, new RegExp(body.orderNum));
    assert.match(html, /id="tombolbayar-continue"[^>]*>Back to the shop</);
    assert.match(html, /min-height:44px/);
    assert.doesNotMatch(html, /finished/i);
  });

  test('expired: never "finished"; in Indonesian with ?lang=id', async () => {
    const { body } = await shop.createLink({ item: 'kopi' });
    const platOrderNum = await shop.platOrderNumOf(body.orderNum);
    await simulationsFor(shop.gateway).expire(platOrderNum);
    // The status poll applies the gateway's answer, as the element's would.
    await waitFor(async () => (await shop.status(body.orderNum, body.statusToken)).body.status === 'expired', 'the expiry');
    const { html } = await returnPage(body.orderNum, '&lang=id');
    assert.match(html, /<html lang="id">/);
    assert.match(html, /<h1>Batas waktu pembayaran sudah lewat<\/h1>/);
    assert.match(html, /Tidak ada dana yang ditarik/);
    assert.match(html, />Kembali ke toko</);
  });

  test('not started (no method chosen), in the browser\'s language when nothing says otherwise; the style is allowed by its hash only', async () => {
    const { body } = await shop.createLink({ item: 'kopi' });
    const { html, csp } = await returnPage(body.orderNum, '', { 'accept-language': 'id-ID,id;q=0.9,en;q=0.5' });
    assert.match(html, /<h1>Pembayaran belum dimulai<\/h1>/);
    const style = /<style>([^<]*)<\/style>/.exec(html)![1]!;
    assert.ok(csp.includes(`style-src 'sha256-${createHash('sha256').update(style).digest('base64')}'`), csp);
    assert.match(csp, /^default-src 'none'; script-src 'self';/);
    assert.doesNotMatch(csp, /unsafe-inline/);
    assert.doesNotMatch(html, /<script>(?!<\/script>)/, 'no inline script');
  });

  test("the element's locale (the create request's lang) travels in the redirectUrl: the page speaks it whatever the browser's language", async () => {
    const key = `lang-carried-${Date.now()}`;
    const { body } = await shop.createLink({ item: 'kopi', idempotencyKey: key, lang: 'id' });
    assert.equal(new URL(await redirectUrlOf(body.orderNum)).searchParams.get('lang'), 'id');
    const { html } = await returnPage(body.orderNum, '', { 'accept-language': 'en-US,en;q=0.9' });
    assert.match(html, /<html lang="id">/);
    assert.match(html, /<h1>Pembayaran belum dimulai<\/h1>/);
    // The language is not what was bought: the same key from the page switched to English is the same order.
    const again = await shop.createLink({ item: 'kopi', idempotencyKey: key, lang: 'en' });
    assert.equal(again.status, 201);
    assert.equal(again.body.orderNum, body.orderNum);
  });

  test('a lang the pages do not speak is a 400 naming the field', async () => {
    const res = await shop.createLink({ item: 'kopi', lang: 'fr' });
    assert.equal(res.status, 400);
    assert.match(JSON.stringify(res.body), /lang: must be one of en, id/);
  });

  test('an unknown order: the same plain 404 page, localized', async () => {
    const res = await fetch(`${shop.mountUrl}/return?order=PBNOSUCHORDER0000&rt=x&lang=id`);
    assert.equal(res.status, 404);
    assert.match(await res.text(), /<h1>Pembayaran tidak ditemukan<\/h1>/);
  });
});

describe('the status answer says when the gateway could not confirm it', () => {
  test('gateway down: pending with confirmed: false; back up: confirmed again, with the method chosen meanwhile', async () => {
    const { body } = await shop.createLink({ item: 'kopi' });
    await shop.proxy!.down();
    try {
      const unconfirmed = await shop.status(body.orderNum, body.statusToken);
      assert.equal(unconfirmed.status, 200);
      assert.deepEqual({ status: unconfirmed.body.status, method: unconfirmed.body.method, confirmed: unconfirmed.body.confirmed }, { status: 'pending', method: null, confirmed: false });
      assert.ok(!JSON.stringify(unconfirmed.body).match(/ECONN|gateway/i), 'nothing technical in the answer');
    } finally {
      await shop.proxy!.up();
    }
    await simulationsFor(shop.gateway).chooseMethod(await shop.platOrderNumOf(body.orderNum), 'VA_BCA');
    // At most one refresh a second while no method is known: ask until the gateway has been asked again.
    const answer = await waitFor(async () => {
      const polled = await shop.status(body.orderNum, body.statusToken);
      return polled.body.method ? polled : undefined;
    }, 'the chosen method');
    assert.equal(answer.body.method, 'VA_BCA');
    assert.equal(answer.body.confirmed, undefined);
    assert.ok(Date.parse(answer.body.expiresAt) > Date.now());
  });
});
