/**
 * The page router over HTTP: status codes, headers, PRG, CSRF refusal, validation, sandbox routes
 * present only in sandbox mode. Runs over the in-memory deps of `page-support.ts` (the browser
 * suite covers the real gateway); each test gets its own orders and server.
 */
import { describe, it, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import express from 'express';
import { CONTENT_SECURITY_POLICY } from '../src/page/csp.ts';
import { createPaymentPageRouter, type PaymentPageDeps } from '../src/page/index.ts';
import { MemoryPageDeps, listen, pageApp } from './page-support.ts';

interface Harness {
  readonly deps: MemoryPageDeps;
  readonly url: string;
  get(path: string, headers?: Record<string, string>): Promise<Response>;
  post(path: string, body: Record<string, string> | string, headers?: Record<string, string>): Promise<Response>;
}

async function start(t: TestContext, options: { sandbox: boolean; defaultLocale?: 'en' | 'id' } = { sandbox: true }): Promise<Harness> {
  const deps = new MemoryPageDeps();
  const server = await listen(pageApp(deps, options));
  t.after(() => server.close());
  return {
    deps,
    url: server.url,
    get: (path, headers = {}) => fetch(server.url + path, { headers, redirect: 'manual' }),
    post: (path, body, headers = {}) =>
      fetch(server.url + path, {
        method: 'POST',
        redirect: 'manual',
        headers: { 'content-type': 'application/x-www-form-urlencoded', 'sec-fetch-site': 'same-origin', ...headers },
        body: typeof body === 'string' ? body : new URLSearchParams(body).toString(),
      }),
  };
}

function assertSecurityHeaders(response: Response): void {
  assert.equal(response.headers.get('content-security-policy'), CONTENT_SECURITY_POLICY);
  assert.equal(response.headers.get('x-content-type-options'), 'nosniff');
  assert.equal(response.headers.get('x-frame-options'), 'DENY');
  assert.equal(response.headers.get('referrer-policy'), 'no-referrer');
}

describe('GET /pay', () => {
  it('serves the page with the strict headers and no caching', async (t) => {
    const h = await start(t);
    h.deps.add({ platOrderNum: 'P1' });
    const response = await h.get('/pay?orderNum=P1');
    assert.equal(response.status, 200);
    assertSecurityHeaders(response);
    assert.equal(response.headers.get('cache-control'), 'no-store');
    assert.match(response.headers.get('content-type') ?? '', /^text\/html; charset=utf-8/);
    const page = await response.text();
    assert.match(page, /<h1>Pay Toko Budi<\/h1>/);
    assert.match(page, /<link rel="stylesheet" href="\/pay\/assets\/page\.css\?v=[\w-]+">/);
    assert.match(page, /<script src="\/pay\/assets\/page\.js\?v=[\w-]+" defer><\/script>/);
  });

  it('answers 400 naming the field for a missing, repeated or malformed orderNum', async (t) => {
    const h = await start(t);
    const cases: Array<[string, string]> = [
      ['/pay', 'orderNum: is required'],
      ['/pay?orderNum=', 'orderNum: is required'],
      ['/pay?orderNum=a&orderNum=b', 'orderNum: must be a string'],
      [`/pay?orderNum=${'9'.repeat(65)}`, 'orderNum: must be at most 64 characters'],
      ['/pay?orderNum=%3Cscript%3E', 'orderNum: must be a platform order number'],
    ];
    for (const [path, problem] of cases) {
      const response = await h.get(path);
      assert.equal(response.status, 400, path);
      assertSecurityHeaders(response);
      const page = await response.text();
      assert.ok(page.includes(problem), `${path} names "${problem}"`);
      assert.ok(!page.includes('<script>'), `${path} echoes no markup`);
    }
  });

  it('answers 404 with a clear page for an unknown order and for unknown paths under /pay', async (t) => {
    const h = await start(t);
    for (const path of ['/pay?orderNum=NOPE', '/pay/nothing-here', '/pay/sandbox']) {
      const response = await h.get(path);
      assert.equal(response.status, 404, path);
      assertSecurityHeaders(response);
      assert.ok((await response.text()).includes('Payment not found'), path);
    }
  });

  it('picks the language from Accept-Language, then from the switch, which a cookie remembers', async (t) => {
    const h = await start(t);
    h.deps.add({ platOrderNum: 'P1' });
    const indonesian = await (await h.get('/pay?orderNum=P1', { 'accept-language': 'id-ID,id;q=0.9,en;q=0.5' })).text();
    assert.ok(indonesian.includes('<html lang="id">') && indonesian.includes('Pilih metode pembayaran'), 'Indonesian from the header');
    const switched = await h.get('/pay?orderNum=P1&lang=en', { 'accept-language': 'id' });
    const cookie = switched.headers.get('set-cookie') ?? '';
    assert.match(cookie, /^pb_lang=en; Max-Age=31536000; Path=\/pay; Expires=[^;]+; HttpOnly; SameSite=Lax$/);
    assert.ok((await switched.text()).includes('<html lang="en">'), 'the explicit choice wins');
    const remembered = await (await h.get('/pay?orderNum=P1', { 'accept-language': 'id', cookie: 'pb_lang=en' })).text();
    assert.ok(remembered.includes('<html lang="en">'), 'the cookie wins over the header');
  });

  it('lets the lang of the shop win over the cookie and the browser, as a code or a regional tag', async (t) => {
    const h = await start(t);
    h.deps.add({ platOrderNum: 'P1' });
    for (const [lang, expected] of [['id', 'id'], ['id-ID', 'id'], ['ID', 'id'], ['in', 'id'], ['en-GB', 'en'], ['fr', 'en'], ['', 'en']] as const) {
      const response = await h.get(`/pay?orderNum=P1&lang=${lang}`, { 'accept-language': 'en-US,en;q=0.9', cookie: 'pb_lang=en' });
      assert.ok((await response.text()).includes(`<html lang="${expected}">`), `lang=${lang}`);
      const cookie = response.headers.get('set-cookie');
      assert.equal(cookie?.split(';')[0] ?? null, lang === 'fr' || lang === '' ? null : `pb_lang=${expected}`, `cookie for lang=${lang}`);
    }
  });

  it('uses the configured default language when the browser names none we have', async (t) => {
    const h = await start(t, { sandbox: false, defaultLocale: 'id' });
    h.deps.add({ platOrderNum: 'P1' });
    const page = await (await h.get('/pay?orderNum=P1', { 'accept-language': 'fr-FR' })).text();
    assert.ok(page.includes('<html lang="id">'), 'default locale used');
  });

  it('shows a 500 page without details when the gateway fails', async (t) => {
    const deps = new MemoryPageDeps();
    deps.findOrder = () => Promise.reject(new Error('database password=hunter2 unreachable'));
    const errors: unknown[] = [];
    const app = express();
    app.use(createPaymentPageRouter(deps, { sandbox: false, ownOrigins: () => [], onError: (error) => errors.push(error) }));
    const server = await listen(app);
    t.after(() => server.close());
    const response = await fetch(`${server.url}/pay?orderNum=P1`);
    assert.equal(response.status, 500);
    assertSecurityHeaders(response);
    const page = await response.text();
    assert.ok(page.includes('Something went wrong'), 'generic message');
    assert.ok(!page.includes('hunter2') && !page.includes('Error'), 'no detail leaks');
    assert.equal(errors.length, 1);
  });
});

describe('GET /pay/status', () => {
  it('returns only what the page needs, uncached, with the gateway clock', async (t) => {
    const h = await start(t);
    const order = h.deps.add({ platOrderNum: 'P1', method: 'VA_BCA' });
    h.deps.clock += 10 * 60_000;
    const response = await h.get('/pay/status?orderNum=P1');
    assert.equal(response.status, 200);
    assert.equal(response.headers.get('cache-control'), 'no-store');
    assertSecurityHeaders(response);
    assert.deepEqual(await response.json(), { status: 'PENDING', method: 'VA_BCA', remainingMs: order.expiresAt - h.deps.clock });
    h.deps.clock = order.expiresAt;
    assert.deepEqual(await (await h.get('/pay/status?orderNum=P1')).json(), { status: 'EXPIRED', method: 'VA_BCA', remainingMs: 0 });
  });

  it('answers 400 and 404 as JSON naming the problem', async (t) => {
    const h = await start(t);
    const bad = await h.get('/pay/status');
    assert.equal(bad.status, 400);
    assert.deepEqual(await bad.json(), { error: 'orderNum: is required' });
    const missing = await h.get('/pay/status?orderNum=NOPE');
    assert.equal(missing.status, 404);
    assert.deepEqual(await missing.json(), { error: 'orderNum: no such order' });
  });
});

describe('POST /pay/method', () => {
  it('fixes the method and redirects back to the page (POST-redirect-GET), at its instructions (the next thing to do)', async (t) => {
    const h = await start(t);
    h.deps.add({ platOrderNum: 'P1' });
    const response = await h.post('/pay/method', { orderNum: 'P1', method: 'VA_BRI' });
    assert.equal(response.status, 303);
    assert.equal(response.headers.get('location'), '/pay?orderNum=P1#method-heading');
    const order = await h.deps.findOrder('P1');
    assert.equal(order?.method, 'VA_BRI');
    const page = await (await h.get('/pay?orderNum=P1')).text();
    assert.ok(page.includes('Pay with BRI Virtual Account') && page.includes(order?.vaNumber ?? '?'), 'instructions shown');
  });

  it('accepts the un-prefixed alias of a method', async (t) => {
    const h = await start(t);
    h.deps.add({ platOrderNum: 'P1' });
    assert.equal((await h.post('/pay/method', { orderNum: 'P1', method: 'DANA' })).status, 303);
    assert.equal((await h.deps.findOrder('P1'))?.method, 'EWALLET_DANA');
  });

  it('refuses cross-site posts with 403 and changes nothing', async (t) => {
    const h = await start(t);
    h.deps.add({ platOrderNum: 'P1' });
    const attempts: Array<Record<string, string>> = [
      { 'sec-fetch-site': 'cross-site' },
      { 'sec-fetch-site': 'same-site' },
      { 'sec-fetch-site': '', origin: 'https://evil.example' },
    ];
    for (const headers of attempts) {
      const cleaned = Object.fromEntries(Object.entries({ ...headers }).filter(([, v]) => v !== ''));
      const response = await fetch(`${h.url}/pay/method`, {
        method: 'POST',
        redirect: 'manual',
        headers: { 'content-type': 'application/x-www-form-urlencoded', ...cleaned },
        body: 'orderNum=P1&method=VA_BCA',
      });
      assert.equal(response.status, 403, JSON.stringify(headers));
      assertSecurityHeaders(response);
      assert.ok((await response.text()).includes('Request refused'), 'explains the refusal');
    }
    assert.equal((await h.deps.findOrder('P1'))?.method, null);
  });

  it('answers 400 naming the field for a bad method or a missing order number', async (t) => {
    const h = await start(t);
    h.deps.add({ platOrderNum: 'P1' });
    const cases: Array<[Record<string, string> | string, string]> = [
      [{ orderNum: 'P1', method: 'BITCOIN' }, 'method: must be one of VA_BCA'],
      [{ orderNum: 'P1' }, 'method: is required'],
      [{ method: 'VA_BCA' }, 'orderNum: is required'],
      ['orderNum=P1&method=VA_BCA&method=QRIS', 'method: must be a string'],
    ];
    for (const [body, problem] of cases) {
      const response = await h.post('/pay/method', body);
      assert.equal(response.status, 400, JSON.stringify(body));
      assert.ok((await response.text()).includes(problem), `names ${problem}`);
    }
    const json = await h.post('/pay/method', JSON.stringify({ orderNum: 'P1', method: 'VA_BCA' }), { 'content-type': 'application/json' });
    assert.equal(json.status, 400, 'a JSON body is not a form');
    const huge = await h.post('/pay/method', { orderNum: 'P1', method: 'VA_BCA', pad: 'x'.repeat(10_000) });
    assert.equal(huge.status, 413);
    assertSecurityHeaders(huge);
    assert.equal((await h.deps.findOrder('P1'))?.method, null);
  });

  it('turns a refusal into a notice on the page, and an unknown order into the 404 page', async (t) => {
    const h = await start(t);
    h.deps.add({ platOrderNum: 'P1', payMoney: 5000 });
    const refused = await h.post('/pay/method', { orderNum: 'P1', method: 'VA_BNC' });
    assert.equal(refused.status, 303);
    assert.equal(refused.headers.get('location'), '/pay?orderNum=P1&notice=method-not-allowed');
    const page = await (await h.get(refused.headers.get('location') ?? '')).text();
    assert.ok(page.includes('That method cannot be used for this amount.') && page.includes('name="method"'), 'notice and picker again');
    assert.equal((await h.post('/pay/method', { orderNum: 'P1', method: 'VA_BCA' })).status, 303);
    const twice = await h.post('/pay/method', { orderNum: 'P1', method: 'QRIS' });
    assert.equal(twice.headers.get('location'), '/pay?orderNum=P1&notice=method-already-chosen');
    assert.equal((await h.deps.findOrder('P1'))?.method, 'VA_BCA');
    const unknown = await h.post('/pay/method', { orderNum: 'NOPE', method: 'VA_BCA' });
    assert.equal(unknown.status, 404);
  });
});

describe('POST /pay/method/change', () => {
  it('takes the method back and returns to the picker, in the language the form was read in', async (t) => {
    const h = await start(t);
    h.deps.add({ platOrderNum: 'P1', method: 'VA_BCA' });
    const response = await h.post('/pay/method/change', { orderNum: 'P1', method: 'VA_BCA', lang: 'id' });
    assert.equal(response.status, 303);
    assert.equal(response.headers.get('location'), '/pay?orderNum=P1&lang=id');
    const order = await h.deps.findOrder('P1');
    assert.deepEqual([order?.method, order?.vaNumber, order?.payFee], [null, null, null]);
    const page = await (await h.get('/pay?orderNum=P1&lang=id')).text();
    assert.match(page, /<h2 id="picker-heading">Pilih metode pembayaran<\/h2>/);
  });

  it('offers the change only where the seam allows it, and says the code stops working', async (t) => {
    const h = await start(t);
    h.deps.add({ platOrderNum: 'LINK', method: 'VA_BNI' });
    h.deps.add({ platOrderNum: 'FIXED', method: 'VA_BNI', methodChangeable: false });
    const link = await (await h.get('/pay?orderNum=LINK')).text();
    assert.match(link, /<form method="post" action="\/pay\/method\/change" class="change-method js-once">/);
    assert.match(link, /If you choose another method, this virtual account number stops working\./);
    const fixed = await (await h.get('/pay?orderNum=FIXED')).text();
    assert.doesNotMatch(fixed, /method\/change/);
  });

  it('refuses a method set by the shop, an out-of-date page and a paid order as notices', async (t) => {
    const h = await start(t);
    h.deps.add({ platOrderNum: 'FIXED', method: 'VA_BNI', methodChangeable: false });
    h.deps.add({ platOrderNum: 'STALE', method: 'QRIS' });
    h.deps.add({ platOrderNum: 'PAID', method: 'VA_BRI', status: 'PAID' });
    const cases: Array<[string, string, string]> = [
      ['FIXED', 'VA_BNI', 'method-locked'],
      ['STALE', 'VA_BCA', 'method-changed'],
      ['PAID', 'VA_BRI', 'not-pending'],
    ];
    for (const [orderNum, method, notice] of cases) {
      const response = await h.post('/pay/method/change', { orderNum, method, lang: 'en' });
      assert.equal(response.status, 303, orderNum);
      assert.equal(response.headers.get('location'), `/pay?orderNum=${orderNum}&lang=en&notice=${notice}`);
    }
    assert.equal((await h.deps.findOrder('FIXED'))?.method, 'VA_BNI');
    const page = await (await h.get('/pay?orderNum=FIXED&notice=method-locked')).text();
    assert.match(page, /role="alert">The shop set the payment method for this order, so it cannot be changed here\.</);
  });

  it('refuses cross-site posts and bad fields, changing nothing', async (t) => {
    const h = await start(t);
    h.deps.add({ platOrderNum: 'P1', method: 'VA_BCA' });
    assert.equal((await h.post('/pay/method/change', { orderNum: 'P1', method: 'VA_BCA' }, { 'sec-fetch-site': 'cross-site' })).status, 403);
    const bad = await h.post('/pay/method/change', { orderNum: 'P1', method: 'CASH' });
    assert.equal(bad.status, 400);
    assert.match(await bad.text(), /method: /);
    assert.equal((await h.deps.findOrder('P1'))?.method, 'VA_BCA');
  });
});

describe('merchant branding on the page', () => {
  it('links the accent colour as a same-origin stylesheet, keeps the CSP, and shows the support contact', async (t) => {
    const h = await start(t);
    h.deps.add({ platOrderNum: 'P1', brand: { logo: null, accentColor: '#FFD400', supportContact: 'halo@toko.example' } });
    const response = await h.get('/pay?orderNum=P1');
    assertSecurityHeaders(response);
    const page = await response.text();
    assert.match(page, /<link rel="stylesheet" href="\/pay\/assets\/brand\.css\?accent=ffd400">/);
    assert.match(page, /<body class="is-sandbox" data-branded>/);
    assert.match(page, /Questions about this order\? Contact Toko Budi: <span class="contact">halo@toko\.example<\/span>/);
    const css = await h.get('/pay/assets/brand.css?accent=ffd400');
    assert.equal(css.status, 200);
    assertSecurityHeaders(css);
    assert.match(css.headers.get('content-type') ?? '', /^text\/css/);
    assert.match(css.headers.get('cache-control') ?? '', /immutable/);
    assert.match(await css.text(), /^:root\{--brand:#ffd400;--accent:#[0-9a-f]{6};--accent-ink:#ffffff;--focus:#[0-9a-f]{6}\}\n$/);
  });

  it('refuses a stylesheet for anything but a colour, so nothing else can be written into CSS', async (t) => {
    const h = await start(t);
    for (const accent of ['', 'red', '%23fff', '000000;}body{display:none', 'ffd400&accent=000000', '1234567']) {
      const response = await h.get(`/pay/assets/brand.css?accent=${accent}`);
      assert.equal(response.status, 400, accent);
      assert.equal(await response.text(), 'accent: must be a colour as rrggbb');
    }
  });

  it('allows the origin of a logo URL as an image source, on that page only', async (t) => {
    const h = await start(t);
    h.deps.add({ platOrderNum: 'URL', brand: { logo: 'https://cdn.toko.example/logo.png', accentColor: null, supportContact: null } });
    h.deps.add({ platOrderNum: 'DATA', brand: { logo: 'data:image/png;base64,iVBORw0KGgo=', accentColor: null, supportContact: null } });
    h.deps.add({ platOrderNum: 'BAD', brand: { logo: 'javascript:alert(1)', accentColor: null, supportContact: null } });
    const url = await h.get('/pay?orderNum=URL');
    assert.equal(url.headers.get('content-security-policy'), CONTENT_SECURITY_POLICY.replace("img-src 'self' data:", "img-src 'self' data: https://cdn.toko.example"));
    assert.match(await url.text(), /<img class="logo" src="https:\/\/cdn\.toko\.example\/logo\.png" alt=""/);
    const data = await h.get('/pay?orderNum=DATA');
    assert.equal(data.headers.get('content-security-policy'), CONTENT_SECURITY_POLICY);
    assert.match(await data.text(), /<img class="logo" src="data:image\/png;base64,iVBORw0KGgo="/);
    const bad = await h.get('/pay?orderNum=BAD');
    assert.equal(bad.headers.get('content-security-policy'), CONTENT_SECURITY_POLICY);
    assert.doesNotMatch(await bad.text(), /class="logo"|javascript:/);
  });
});

describe('sandbox routes', () => {
  it('do not exist outside sandbox mode, and the page has no simulate buttons', async (t) => {
    const h = await start(t, { sandbox: false });
    h.deps.add({ platOrderNum: 'P1', method: 'VA_BCA' });
    const page = await (await h.get('/pay?orderNum=P1')).text();
    assert.ok(!page.includes('Simulate') && !page.includes('SANDBOX'), 'no sandbox UI');
    const response = await h.post('/pay/sandbox', { orderNum: 'P1', action: 'pay' });
    assert.equal(response.status, 404);
    assert.equal((await h.deps.findOrder('P1'))?.status, 'PENDING');
  });

  it('pay, expire and fail in sandbox mode, then redirect back to the page', async (t) => {
    const h = await start(t);
    for (const [id, action, status] of [['P1', 'pay', 'PAID'], ['P2', 'expire', 'EXPIRED'], ['P3', 'fail', 'FAILED']] as const) {
      h.deps.add({ platOrderNum: id, method: 'QRIS' });
      const response = await h.post('/pay/sandbox', { orderNum: id, action });
      assert.equal(response.status, 303);
      assert.equal(response.headers.get('location'), `/pay?orderNum=${id}`);
      assert.equal((await h.deps.findOrder(id))?.status, status);
    }
    const again = await h.post('/pay/sandbox', { orderNum: 'P1', action: 'fail' });
    assert.equal(again.headers.get('location'), '/pay?orderNum=P1&notice=not-pending');
    assert.equal((await h.deps.findOrder('P1'))?.status, 'PAID');
  });

  it('refuse an unknown action and cross-site posts', async (t) => {
    const h = await start(t);
    h.deps.add({ platOrderNum: 'P1' });
    const bad = await h.post('/pay/sandbox', { orderNum: 'P1', action: 'refund' });
    assert.equal(bad.status, 400);
    assert.ok((await bad.text()).includes('action: must be one of pay, expire, fail'), 'names the field');
    const cross = await h.post('/pay/sandbox', { orderNum: 'P1', action: 'pay' }, { 'sec-fetch-site': 'cross-site' });
    assert.equal(cross.status, 403);
    assert.equal((await h.deps.findOrder('P1'))?.status, 'PENDING');
  });

  it('refuse to start in sandbox mode without the sandbox transitions', () => {
    const deps = new MemoryPageDeps();
    const live: PaymentPageDeps = {
      findOrder: (id) => deps.findOrder(id),
      chooseMethod: (id, method) => deps.chooseMethod(id, method),
      changeMethod: (id, method) => deps.changeMethod(id, method),
      now: () => deps.now(),
    };
    assert.throws(() => createPaymentPageRouter(live, { sandbox: true, ownOrigins: () => [] }), /deps\.sandbox is missing/);
  });
});

describe('assets', () => {
  it('serves the stylesheet and the script with their types, cached for good only at the current version', async (t) => {
    const h = await start(t);
    h.deps.add({ platOrderNum: 'P1' });
    const page = await (await h.get('/pay?orderNum=P1')).text();
    const css = /href="(\/pay\/assets\/page\.css\?v=[\w-]+)"/.exec(page)?.[1] ?? '';
    const js = /src="(\/pay\/assets\/page\.js\?v=[\w-]+)"/.exec(page)?.[1] ?? '';
    const cssResponse = await h.get(css);
    assert.equal(cssResponse.status, 200);
    assert.equal(cssResponse.headers.get('content-type'), 'text/css; charset=utf-8');
    assert.equal(cssResponse.headers.get('cache-control'), 'public, max-age=31536000, immutable');
    assertSecurityHeaders(cssResponse);
    const jsResponse = await h.get(js);
    assert.equal(jsResponse.headers.get('content-type'), 'text/javascript; charset=utf-8');
    assert.ok((await jsResponse.text()).length > 500, 'the bundle is served');
    const stale = await h.get('/pay/assets/page.js?v=old');
    assert.equal(stale.headers.get('cache-control'), 'no-cache');
  });
});
