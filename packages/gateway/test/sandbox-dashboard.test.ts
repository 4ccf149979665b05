/**
 * The sandbox dashboard over plain HTTP, on both engines: find, pay by number, simulate, resend,
 * the clock, branding; and its refusals: another Host, another site, an unknown order, bad input,
 * and no dashboard at all outside the sandbox.
 */
import assert from 'node:assert/strict';
import http from 'node:http';
import { after, before, describe, test } from 'node:test';
import { createGateway } from '../src/index.ts';
import { parseHexColor, readableAccent, toHex } from '../src/page/brand.ts';
import { isAcceptableLogo, parseBranding } from '../src/sandbox/branding.ts';
import { orderTimeline } from '../src/sandbox/dashboard/timeline.ts';
import { ENGINES, freshStore } from './support/engines.ts';
import { platformKeys } from './support/keys.ts';
import { startHarness, type Harness } from './support/harness.ts';
import { eventually, startReceiver, type Receiver } from './support/receiver.ts';

const PNG_1PX = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==';

interface Page {
  status: number;
  text: string;
  location: string | null;
  headers: Headers;
}

async function request(url: string, init: RequestInit = {}): Promise<Page> {
  const response = await fetch(url, { redirect: 'manual', ...init });
  return { status: response.status, text: await response.text(), location: response.headers.get('location'), headers: response.headers };
}

/** A GET through node:http, which (unlike fetch) sends the Host header it is given. */
function getWithHost(url: string, host: string): Promise<{ status: number; text: string }> {
  const target = new URL(url);
  return new Promise((resolve, reject) => {
    const req = http.request({ host: target.hostname, port: target.port, path: target.pathname + target.search, headers: { host } }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, text: Buffer.concat(chunks).toString('utf8') }));
    });
    req.on('error', reject);
    req.end();
  });
}

/** A form POST as the dashboard's own page sends it. */
function post(url: string, fields: Record<string, string>, headers: Record<string, string> = {}): Promise<Page> {
  return request(url, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded', 'sec-fetch-site': 'same-origin', origin: new URL(url).origin, ...headers },
    body: new URLSearchParams(fields).toString(),
  });
}

describe('branding rules', () => {
  const table: [string, boolean][] = [
    [`data:image/png;base64,${PNG_1PX}`, true],
    ['https://cdn.example.com/logo.png', true],
    ['http://127.0.0.1:3000/logo.png', true],
    [`data:image/jpeg;base64,${PNG_1PX}`, false], // the bytes are a PNG
    [`data:image/svg+xml;base64,${Buffer.from('<svg onload="alert(1)"/>').toString('base64')}`, false],
    ['data:image/png,rawbytes', false],
    ['javascript:alert(1)', false],
    ['https://user:pw@example.com/logo.png', false],
    ['//example.com/logo.png', false],
    [`data:image/png;base64,${Buffer.concat([Buffer.from(PNG_1PX, 'base64'), Buffer.alloc(70 * 1024)]).toString('base64')}`, false],
    ['https://example.com/a b.png', false],
  ];
  for (const [logo, accepted] of table) {
    test(`${accepted ? 'accepts' : 'refuses'} ${logo.slice(0, 40)}`, () => assert.equal(isAcceptableLogo(logo), accepted));
  }
  test('fields: trimmed, empty unsets, colour lower-cased, each rule names its field', () => {
    assert.deepEqual(parseBranding({ displayName: '  Toko Kopi ', logo: '', accentColor: '#AABBCC', supportContact: ' halo@toko.example ' }), {
      ok: true,
      value: { displayName: 'Toko Kopi', logo: null, accentColor: '#aabbcc', supportContact: 'halo@toko.example' },
    });
    assert.deepEqual(parseBranding({}), { ok: true, value: { displayName: null, logo: null, accentColor: null, supportContact: null } });
    const contact = parseBranding({ supportContact: `0812${'9'.repeat(120)}` });
    assert.match(!contact.ok ? contact.message : '', /supportContact: must be 1 to 120 characters/);
    assert.equal(parseBranding({ supportContact: 'a\nb' }).ok, false);
    const bad = parseBranding({ displayName: 'x'.repeat(61), accentColor: 'red', extra: '1' });
    assert.equal(bad.ok, false);
    assert.match(!bad.ok ? bad.message : '', /displayName: must be 1 to 60/);
    assert.match(!bad.ok ? bad.message : '', /accentColor: must be a colour/);
    assert.match(!bad.ok ? bad.message : '', /extra: is not a field/);
    assert.equal(parseBranding({ displayName: 'a\u0007b' }).ok, false);
  });
});

describe('order timeline', () => {
  test('the story in order: created, closed, queued, attempts, delivered', () => {
    const order = { createdAt: 100, closedAt: 200, status: 'PAID', payMoney: 5 } as Parameters<typeof orderTimeline>[0];
    const attempt = (number: number, at: number, acknowledged: boolean) => ({
      number, attemptedAt: at, acknowledged, httpStatus: acknowledged ? 200 : null, latencyMs: 3, errorClass: acknowledged ? null : 'timeout', bodyExcerpt: '', detail: null,
    });
    const delivery = { id: 'n1', event: 'PAID', createdAt: 200, deliveredAt: 400, attempts: [attempt(2, 400, true), attempt(1, 300, false)] } as unknown as Parameters<typeof orderTimeline>[1][number];
    const kinds = orderTimeline(order, [delivery]).map((event) => `${event.kind}@${event.at}`);
    assert.deepEqual(kinds, ['created@100', 'closed@200', 'queued@200', 'attempt@300', 'attempt@400', 'delivered@400']);
    assert.deepEqual(orderTimeline({ ...order, status: 'PENDING', closedAt: null }, []).map((event) => event.kind), ['created']);
  });
});

for (const engine of ENGINES) {
  describe(`sandbox dashboard on ${engine}`, () => {
    let h: Harness;
    let receiver: Receiver;
    before(async () => {
      receiver = await startReceiver();
      h = await startHarness(engine, { timeScale: 0.001 });
    });
    after(async () => {
      await h.stop();
      await receiver.close();
    });
    const dash = (path = '') => `${h.url}/sandbox/dashboard${path}`;

    test('finds an order by its orderNum, platform number and VA number; the page is strict', async () => {
      const created = await h.client.createVa({ notifyUrl: receiver.url });
      const { orderNum, platOrderNum, vaNumber } = created.body as Record<string, string>;
      assert.ok(vaNumber);
      for (const number of [orderNum, platOrderNum, vaNumber]) {
        const page = await request(dash(`?number=${encodeURIComponent(number!)}`));
        assert.equal(page.status, 200);
        assert.match(page.text, /Orders matching .* \(1\)/);
        assert.ok(page.text.includes(`/sandbox/dashboard/orders/${platOrderNum}`));
      }
      const home = await request(dash());
      assert.equal(home.status, 200);
      assert.match(home.headers.get('content-security-policy') ?? '', /script-src 'self'.*form-action 'self'/);
      assert.equal(home.headers.get('x-frame-options'), 'DENY');
      assert.equal(home.headers.get('cache-control'), 'no-store');
      const scripts = [...home.text.matchAll(/<script[^>]*>/g)].map((match) => match[0]);
      assert.equal(scripts.length, 1);
      const src = /src="([^"]+)"/.exec(scripts[0]!)?.[1] ?? '';
      assert.match(src, /^\/sandbox\/dashboard\/assets\/dashboard\.js\?v=[\w-]{12}$/);
      const script = await request(`${h.url}${src}`);
      assert.equal(script.status, 200);
      assert.equal(script.headers.get('content-type'), 'text/javascript; charset=utf-8');
      assert.equal(script.headers.get('cache-control'), 'public, max-age=31536000, immutable');
      assert.match(home.text, /<main id="main" data-watch="\/sandbox\/dashboard\/figures" data-fingerprint="[\d.]+">/, 'the front page watches its figures');
      const orderPage = await request(dash(`/orders/${platOrderNum}`));
      assert.ok(orderPage.text.includes(`data-watch="/sandbox/deliveries?platOrderNum=${platOrderNum}" data-fingerprint=""`));
      const none = await request(dash('?number=NO-SUCH-ORDER'));
      assert.equal(none.status, 200);
      assert.match(none.text, /No order has this number/);
      const bad = await request(dash(`?number=${'x'.repeat(65)}`));
      assert.equal(bad.status, 400);
      assert.match(bad.text, /number: must be 1 to 64 printable characters/);
    });

    test('GET /sandbox/orders?number= answers the orders a number names, as JSON', async () => {
      const created = (await h.client.createVa()).body as Record<string, string>;
      for (const number of [created.orderNum, created.platOrderNum, created.vaNumber, ` ${created.vaNumber} `]) {
        const answer = await request(`${h.url}/sandbox/orders?number=${encodeURIComponent(number!)}`);
        assert.equal(answer.status, 200);
        const body = JSON.parse(answer.text) as { platRespCode: string; orders: { platOrderNum: string; vaNumber: string }[] };
        assert.equal(body.platRespCode, 'SUCCESS');
        assert.deepEqual(body.orders.map((order) => order.platOrderNum), [created.platOrderNum]);
      }
      const none = JSON.parse((await request(`${h.url}/sandbox/orders?number=NOPE`)).text) as { orders: unknown[] };
      assert.deepEqual(none.orders, []);
      for (const [query, message] of [['', 'number: is required'], ['?number=', 'number: must be 1 to 64 printable characters'], ['?number=a&x=1', 'x: is not a field of this request']]) {
        const refused = await request(`${h.url}/sandbox/orders${query}`);
        assert.equal(refused.status, 400, query);
        assert.equal((JSON.parse(refused.text) as { platRespMessage: string }).platRespMessage, message);
      }
      const crossSite = await request(`${h.url}/sandbox/orders?number=${created.orderNum}`, { headers: { 'sec-fetch-site': 'cross-site', origin: 'https://evil.example' } });
      assert.equal(crossSite.status, 403);
    });

    test('pays a VA by its number; the order shows its timeline and delivery, and resend queues it again', async () => {
      const created = await h.client.createVa({ notifyUrl: receiver.url });
      const { platOrderNum, vaNumber, orderNum } = created.body as Record<string, string>;
      const paid = await post(dash('/pay-number'), { number: vaNumber! });
      assert.equal(paid.status, 303);
      assert.equal(paid.location, `/sandbox/dashboard/orders/${platOrderNum}?notice=paid`);
      assert.equal((await h.gateway.findOrder(platOrderNum!))?.status, 'PAID');
      await eventually(async () => ((await h.gateway.deliveries.list({ platOrderNum }))[0]?.state === 'delivered' ? true : undefined));
      const page = await request(`${h.url}${paid.location}`);
      assert.equal(page.status, 200);
      assert.match(page.text, /Payment simulated/);
      assert.ok(page.text.includes(`Order ${orderNum}`));
      assert.match(page.text, /Attempt 1 of \S+: HTTP 200, acknowledged/);
      assert.match(page.text, /<td><code class="dash-body">SUCCESS<\/code><\/td>/);
      const [delivery] = await h.gateway.deliveries.list({ platOrderNum });
      const resent = await post(dash(`/deliveries/${delivery!.id}/resend`), {});
      assert.equal(resent.status, 303);
      assert.equal(resent.location, `/sandbox/dashboard/orders/${platOrderNum}?notice=resent`);
      await eventually(async () => ((await h.gateway.deliveries.get(delivery!.id))?.attemptCount === 2 ? true : undefined));
      const again = await post(dash('/pay-number'), { number: vaNumber! });
      assert.equal(again.status, 409);
      assert.match(again.text, /the order is PAID, not PENDING/);
    });

    test('simulates expiry and failure, pays a link choosing its method, and advances the clock', async () => {
      for (const [action, status] of [['expire', 'EXPIRED'], ['fail', 'FAILED']] as const) {
        const { platOrderNum } = (await h.client.createVa()).body as Record<string, string>;
        const answer = await post(dash(`/orders/${platOrderNum}/${action}`), {});
        assert.equal(answer.status, 303);
        assert.equal((await h.gateway.findOrder(platOrderNum!))?.status, status);
      }
      const link = (await h.client.createLink()).body as Record<string, string>;
      const noMethod = await post(dash(`/orders/${link.platOrderNum}/pay`), {});
      assert.equal(noMethod.status, 409);
      assert.match(noMethod.text, /method: the order has no payment method yet/);
      assert.equal((await post(dash(`/orders/${link.platOrderNum}/pay`), { method: 'VA_BNI' })).status, 303);
      assert.equal((await h.gateway.findOrder(link.platOrderNum!))?.method, 'VA_BNI');

      const pending = (await h.client.createVa({ expiryPeriod: '30' })).body as Record<string, string>;
      const advanced = await post(dash('/clock'), { minutes: '31' });
      assert.equal(advanced.status, 303);
      assert.equal(advanced.location, '/sandbox/dashboard?notice=clock-advanced');
      assert.equal((await h.gateway.findOrder(pending.platOrderNum!))?.status, 'EXPIRED');
      for (const minutes of ['0', '-5', 'soon', '']) {
        const refused = await post(dash('/clock'), { minutes });
        assert.equal(refused.status, 400, minutes);
        assert.match(refused.text, /minutes: /);
      }
    });

    test('sets and unsets a merchant display name, logo and colour, refusing what is not one', async () => {
      const url = dash(`/merchants/${h.merchant.merchantCode}`);
      const logo = `data:image/png;base64,${PNG_1PX}`;
      const saved = await post(url, { displayName: 'Toko Kopi Gayo', logo, accentColor: '#0A7A3D', supportContact: 'WhatsApp 0812 3456 7890' });
      assert.equal(saved.status, 303);
      const page = await request(`${h.url}${saved.location}`);
      assert.match(page.text, /Saved\./);
      assert.ok(page.text.includes('Toko Kopi Gayo'));
      assert.ok(page.text.includes(`src="${logo}"`));
      assert.ok(page.text.includes('#0a7a3d'));
      assert.ok(!page.text.includes('id="accent-adjusted"'), 'a colour that reads as it is: nothing to say');
      // A colour the page cannot use for text as it is: the dashboard says which shade it uses.
      const fields = { displayName: 'Toko Kopi Gayo', logo, supportContact: 'WhatsApp 0812 3456 7890' };
      assert.equal((await post(url, { ...fields, accentColor: '#F5D90A' })).status, 303);
      const yellow = await request(url);
      const used = toHex(readableAccent(parseHexColor('#f5d90a')!));
      assert.ok(yellow.text.includes(`use ${used}, a darker shade of #f5d90a`), 'the dashboard says the colour was adjusted, and to what');
      assert.equal((await post(url, { ...fields, accentColor: '#0A7A3D' })).status, 303);
      const svg = `data:image/svg+xml;base64,${Buffer.from('<svg xmlns="http://www.w3.org/2000/svg" onload="alert(1)"/>').toString('base64')}`;
      const refused = await post(url, { displayName: '<b>x</b>', logo: svg, accentColor: 'red' });
      assert.equal(refused.status, 400);
      assert.match(refused.text, /logo: must be an http\(s\) URL or a base64 data URL/);
      assert.ok(refused.text.includes('&lt;b&gt;x&lt;/b&gt;'), 'what was typed is shown again, escaped');
      assert.ok(!refused.text.includes('<b>x</b>'));
      const { platOrderNum } = (await h.client.createVa()).body as Record<string, string>;
      const hosted = await request(`${h.url}/pay?orderNum=${platOrderNum}`);
      assert.match(hosted.text, /<p class="merchant"><img class="logo" src="[^"]+" alt=""[^>]*><span>Toko Kopi Gayo<\/span><\/p>/, 'the hosted page shows the display name and logo');
      assert.ok(hosted.text.includes('<link rel="stylesheet" href="/pay/assets/brand.css?accent=0a7a3d">'), 'and the colour');
      assert.ok(hosted.text.includes('<span class="contact">WhatsApp 0812 3456 7890</span>'), 'and the support contact');
      const stillSaved = await request(url);
      assert.ok(stillSaved.text.includes('Toko Kopi Gayo'));
      const script = '<script>alert("name")</script>';
      assert.equal((await post(url, { displayName: script })).status, 303, 'any text is a name');
      for (const page of [await request(url), await request(dash(`/orders/${platOrderNum}`)), await request(`${h.url}/pay?orderNum=${platOrderNum}`)]) {
        assert.ok(page.text.includes('&lt;script&gt;alert(&quot;name&quot;)&lt;/script&gt;'));
        assert.ok(!page.text.includes(script));
      }
      assert.equal((await post(url, { displayName: '', logo: '', accentColor: '' })).status, 303);
      assert.ok(!(await request(url)).text.includes('Toko Kopi Gayo'));
      const tooBig = await post(url, { logo: 'x'.repeat(300 * 1024) });
      assert.equal(tooBig.status, 413);
      assert.equal((await request(dash('/merchants/NOBODY'))).status, 404);
    });

    test('speaks Indonesian from Accept-Language or ?lang=, remembers a choice, and switches back', async () => {
      const { platOrderNum } = (await h.client.createVa()).body as Record<string, string>;
      const byHeader = await request(dash(), { headers: { 'accept-language': 'id-ID,id;q=0.9' } });
      assert.match(byHeader.text, /<html lang="id">/);
      assert.match(byHeader.text, /Bayar VA atau kode pembayaran/);
      const chosen = await request(dash(`/orders/${platOrderNum}?lang=id&notice=paid`));
      assert.match(chosen.text, /Simulasikan pembayaran/);
      const cookie = chosen.headers.get('set-cookie') ?? '';
      assert.match(cookie, /^pb_lang=id; Max-Age=\d+; Path=\/sandbox\/dashboard; Expires=[^;]+; HttpOnly; SameSite=Lax$/);
      assert.ok(chosen.text.includes(`href="/sandbox/dashboard/orders/${platOrderNum}?lang=en" lang="en"`), 'the switch keeps the page, drops the notice');
      const remembered = await request(dash(), { headers: { cookie: 'pb_lang=id' } });
      assert.match(remembered.text, /Cari pesanan/);
      const english = await request(dash('?lang=en'), { headers: { cookie: 'pb_lang=id', 'accept-language': 'id' } });
      assert.match(english.text, /Find an order/);
      const refused = await post(dash('/pay-number'), { number: 'NOPE' }, { 'accept-language': 'id' });
      assert.match(refused.text, /Kembali ke dasbor/);
      assert.match(refused.text, /number: no order has this VA number or payment code/, 'field rules stay as the API words them');
    });

    test('refuses another Host, another site, unknown orders and notifications, on every method', async () => {
      const { platOrderNum } = (await h.client.createVa()).body as Record<string, string>;
      const rebound = await getWithHost(dash(), `attacker.example:${new URL(h.url).port}`);
      assert.equal(rebound.status, 403);
      assert.match(rebound.text, /answers only its own pages and addresses typed in the address bar/);
      const crossRead = await request(dash(`/orders/${platOrderNum}`), { headers: { 'sec-fetch-site': 'cross-site', origin: 'https://evil.example' } });
      assert.equal(crossRead.status, 403);
      const crossPay = await post(dash(`/orders/${platOrderNum}/pay`), {}, { 'sec-fetch-site': 'cross-site', origin: 'https://evil.example' });
      assert.equal(crossPay.status, 403);
      const siblingPay = await post(dash(`/orders/${platOrderNum}/pay`), {}, { 'sec-fetch-site': 'same-site', origin: 'http://127.0.0.1:1' });
      assert.equal(siblingPay.status, 403);
      assert.equal((await h.gateway.findOrder(platOrderNum!))?.status, 'PENDING');
      const typed = await request(dash(`/orders/${platOrderNum}`), { headers: { 'sec-fetch-site': 'none' } });
      assert.equal(typed.status, 200, 'a person typing the address reads it');
      assert.equal((await request(dash('/orders/NO-SUCH'))).status, 404);
      assert.equal((await post(dash('/orders/NO-SUCH/pay'), {})).status, 404);
      assert.equal((await post(dash('/deliveries/NO-SUCH/resend'), {})).status, 404);
      const unknownNumber = await post(dash('/pay-number'), { number: '8000000000000000' });
      assert.equal(unknownNumber.status, 404);
      assert.match(unknownNumber.text, /number: no order has this VA number or payment code/);
      assert.equal((await request(dash('/nothing-here'))).status, 404);
    });
  });
}

test('a gateway outside the sandbox has no dashboard', async () => {
  const store = freshStore('sqlite');
  const gateway = createGateway({ database: store.database, dataDir: store.dataDir, platformPrivateKey: platformKeys().privateKey, logger: false });
  try {
    const { url } = await gateway.listen();
    for (const path of ['/sandbox/dashboard', '/sandbox/dashboard/orders/X', '/sandbox/orders?number=X']) {
      assert.equal((await request(`${url}${path}`)).status, 404, path);
    }
    assert.equal((await post(`${url}/sandbox/dashboard/pay-number`, { number: '1' })).status, 404);
  } finally {
    await gateway.close();
    await store.cleanup();
  }
});
