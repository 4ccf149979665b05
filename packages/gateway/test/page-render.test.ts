/**
 * The hosted page's rendering: the escaping `html` helper and every render function, with XSS
 * payloads in every customer- or merchant-supplied field.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { METHOD_CODES, METHOD_KINDS, METHODS } from '@tombolbayar/protocol';
import { NO_BRAND, type PageOrder } from '../src/page/deps.ts';
import { escapeHtml, html, safeHttpUrl, trustedHtml } from '../src/page/html.ts';
import { messagesFor, type Locale } from '../src/page/i18n.ts';
import QRCode from 'qrcode';
import { QR_OPTIONS, qrImage } from '../src/page/qr.ts';
import { pageUrls, type RenderContext } from '../src/page/render/context.ts';
import { renderOrderPage } from '../src/page/render/page.ts';
import { methodMark } from '../src/page/render/marks.ts';
import { renderErrorPage } from '../src/page/render/errors.ts';

const NOW = Date.UTC(2026, 10, 22, 5, 0, 0);

function context(locale: Locale = 'en', sandbox = false): RenderContext {
  return {
    locale,
    t: messagesFor(locale),
    sandbox,
    urls: pageUrls('', { css: 'c55', js: 'j55' }),
    redirectDelaySeconds: 5,
  };
}

function order(overrides: Partial<PageOrder> = {}): PageOrder {
  return {
    platOrderNum: 'PLAT0000000000000000001',
    orderNum: 'SHOP-42',
    merchantCode: 'M0000001',
    merchantName: 'Toko Budi',
    brand: NO_BRAND,
    methodChangeable: true,
    status: 'PENDING',
    method: null,
    vaNumber: null,
    payMoney: 150000,
    payFee: null,
    productDetail: 'Kopi Gayo 250 g',
    name: 'Siti Rahayu',
    redirectUrl: 'https://shop.example/return?order=42',
    createdAt: NOW,
    expiresAt: NOW + 90 * 60_000,
    paidAt: null,
    ...overrides,
  };
}

/** `includes` with a message that shows what was missing (plain `assert.ok` would say nothing useful). */
function assertIncludes(haystack: string, needle: string): void {
  assert.ok(haystack.includes(needle), `expected the page to contain ${JSON.stringify(needle)}`);
}

function assertExcludes(haystack: string, needle: string): void {
  assert.ok(!haystack.includes(needle), `expected the page not to contain ${JSON.stringify(needle)}`);
}

const XSS = {
  script: '<script>alert(1)</script>',
  img: '"><img src=x onerror=alert(1)>',
  quote: "' onmouseover='alert(1)",
};

/**
 * A page is inert when every tag in it is one we wrote: our one external script, no event handler
 * or style attribute anywhere, no javascript: link. Text `<` is always escaped, so every `<` followed
 * by a letter starts a real tag, and every attribute value is double-quoted with `"` escaped inside.
 */
function assertInert(rendered: string): void {
  // The method marks are constant SVG of ours (render/marks.ts): taken out whole, so any other <svg> fails.
  const page = METHOD_KINDS.reduce((text, kind) => text.replaceAll(methodMark(kind).value, ''), rendered);
  const tags = page.match(/<[a-zA-Z][^>]*>/g) ?? [];
  const scripts = tags.filter((tag) => /^<script\b/i.test(tag));
  assert.deepEqual(scripts, ['<script src="/pay/assets/page.js?v=j55" defer>']);
  for (const tag of tags) {
    const name = /^<([a-zA-Z0-9]+)/.exec(tag)?.[1]?.toLowerCase() ?? '';
    assert.ok(!['iframe', 'object', 'embed', 'base', 'svg', 'math'].includes(name), `unexpected <${name}>`);
    const attributes = [...tag.replace(/"[^"]*"/g, '""').matchAll(/\s([^\s=>/]+)/g)].map((m) => (m[1] ?? '').toLowerCase());
    for (const attribute of attributes) {
      assert.ok(!attribute.startsWith('on'), `event handler attribute ${attribute} in ${tag}`);
      assert.ok(attribute !== 'style', `inline style in ${tag}`);
      assert.ok(!attribute.includes("'"), `a quote broke out of an attribute in ${tag}`);
    }
    for (const [, url] of tag.matchAll(/(?:href|src|action)="([^"]*)"/g)) {
      assert.match(url ?? '', /^(https?:\/\/|\/pay|data:image\/png;base64,|data:,$)/, `URL ${url} in ${tag}`);
    }
  }
  assert.ok(!page.includes('<img src=x'), 'the img payload became markup');
}

describe('html helper', () => {
  it('escapes every interpolated string and leaves the template as written', () => {
    const out = html`<p title="${XSS.img}">${XSS.script}</p>`;
    assert.equal(out.value, '<p title="&quot;&gt;&lt;img src=x onerror=alert(1)&gt;">&lt;script&gt;alert(1)&lt;/script&gt;</p>');
  });

  it('escapes the six characters that matter in content and quoted attributes', () => {
    assert.equal(escapeHtml(`&<>"'\``), '&amp;&lt;&gt;&quot;&#39;&#96;');
    assert.equal(escapeHtml('Rp 150.000'), 'Rp 150.000');
  });

  it('nests templates without escaping them twice, joins arrays, and renders nothing for nullish or booleans', () => {
    const items = ['a<b', 'c&d'].map((text) => html`<li>${text}</li>`);
    const out = html`<ul>${items}</ul>${null}${undefined}${false}${true}${0}`;
    assert.equal(out.value, '<ul><li>a&lt;b</li><li>c&amp;d</li></ul>0');
  });

  it('does not treat a lookalike object as safe markup', () => {
    const fake = { value: '<b>', toString: () => '<b>' } as unknown as string;
    assert.equal(html`${fake}`.value, '&lt;b&gt;');
    assert.equal(html`${trustedHtml('<b>')}`.value, '<b>');
  });

  it('keeps only absolute http(s) URLs for links', () => {
    const table: Array<[string | null, string | undefined]> = [
      ['https://shop.example/return?a=1&b=2', 'https://shop.example/return?a=1&b=2'],
      ['http://127.0.0.1:3000/done', 'http://127.0.0.1:3000/done'],
      ['javascript:alert(1)', undefined],
      ['JaVaScRiPt:alert(1)', undefined],
      [' javascript:alert(1)', undefined],
      ['java\tscript:alert(1)', undefined],
      ['data:text/html,<script>alert(1)</script>', undefined],
      ['vbscript:msgbox(1)', undefined],
      ['/relative/path', undefined],
      ['//evil.example/x', undefined],
      ['https://user:pass@shop.example/', undefined],
      ['', undefined],
      [null, undefined],
    ];
    for (const [input, expected] of table) assert.equal(safeHttpUrl(input), expected, String(input));
  });
});

describe('order page rendering', () => {
  const hostile = {
    name: XSS.img,
    productDetail: XSS.script,
    merchantName: XSS.quote + XSS.script,
    orderNum: 'A"<b>',
    // What a branding row could hold if written around the dashboard's rules (by hand in SQL).
    brand: { logo: `javascript:alert(1)//${XSS.quote}`, accentColor: `#000000;}</style>${XSS.script}`, supportContact: XSS.img + XSS.script },
  };

  const states: Array<[string, Partial<PageOrder>]> = [
    ['picker', {}],
    ['virtual account', { method: 'VA_BCA', vaNumber: '3901012345678901', payFee: 4000 }],
    ['retail', { method: 'RETAIL_ALFAMART', vaNumber: '88731234567890', payFee: 5000 }],
    ['e-wallet', { method: 'EWALLET_OVO', vaNumber: 'OVO1234567890123', payFee: 2310 }],
    ['paid', { method: 'VA_BNI', vaNumber: '9881234567890123', payFee: 4000, status: 'PAID', paidAt: NOW }],
    ['expired', { method: 'VA_BRI', vaNumber: '2621512345678901', payFee: 4000, status: 'EXPIRED' }],
    ['failed', { status: 'FAILED' }],
  ];

  for (const [label, state] of states) {
    for (const locale of ['en', 'id'] as const) {
      it(`shows XSS payloads as text only (${label}, ${locale})`, () => {
        const page = renderOrderPage({ order: order({ ...hostile, ...state }), now: NOW }, context(locale, true));
        assertInert(page);
        if (state.status !== 'PAID') assert.ok(page.includes(escapeHtml(XSS.script)), 'productDetail shown escaped');
        assert.ok(page.includes(escapeHtml(XSS.quote + XSS.script)), 'merchant name shown escaped');
        assert.ok(page.includes(escapeHtml(XSS.img)), 'name shown escaped');
        assert.ok(page.includes(escapeHtml(XSS.img + XSS.script)), 'support contact shown escaped');
        assert.ok(!page.includes('class="logo"') && !page.includes('brand.css'), 'no logo or colour from values that are not one');
      });
    }
  }

  it('never links to a javascript: redirectUrl; the paid page says it can be closed instead', () => {
    for (const redirectUrl of ['javascript:alert(1)', 'JAVASCRIPT:alert(document.domain)', 'data:text/html,x']) {
      const page = renderOrderPage({ order: order({ status: 'PAID', paidAt: NOW, redirectUrl }), now: NOW }, context());
      assertInert(page);
      assert.ok(!page.includes('data-redirect-url'), 'no automatic return to a non-http URL');
      assertIncludes(page, 'You can close this page.');
    }
  });

  it('offers the way back to a valid redirectUrl after payment, as a link and as the automatic return, through the gateway\'s check that the shop answers', () => {
    const page = renderOrderPage({ order: order({ status: 'PAID', paidAt: NOW, method: 'QRIS', vaNumber: 'x', payFee: 1078 }), now: NOW }, context());
    assert.match(page, /<a class="button" href="\/pay\/leave\?orderNum=PLAT0000000000000000001&amp;lang=en" id="return-link">Return to Toko Budi<\/a>/);
    assert.match(page, /data-redirect-url="\/pay\/leave\?orderNum=PLAT0000000000000000001&amp;lang=en" data-delay-seconds="5"/);
    assertIncludes(page, 'Thank you. Your payment of Rp 151.078 to Toko Budi has been received.');
  });

  it('the shop was found down: the receipt stays, with the notice and the link to try again, and no automatic return', () => {
    const page = renderOrderPage({ order: order({ status: 'PAID', paidAt: NOW, method: 'VA_BCA', vaNumber: '1', payFee: 4000 }), now: NOW, notice: 'shop-unreachable' }, context());
    assertIncludes(page, 'The shop cannot be reached right now.');
    assertIncludes(page, 'id="return-link"');
    assert.ok(!page.includes('data-redirect-url'), 'no automatic return into an error page');
    assertIncludes(page, 'PLAT0000000000000000001');
  });

  it('lists the 14 methods once, as submit buttons grouped by kind in the protocol order', () => {
    const page = renderOrderPage({ order: order(), now: NOW }, context());
    const values = [...page.matchAll(/<button type="submit" name="method" value="([A-Z_]+)"/g)].map((m) => m[1]);
    const expected = METHOD_KINDS.flatMap((kind) => METHOD_CODES.filter((code) => METHODS[code].kind === kind));
    assert.deepEqual(values, expected);
    assert.equal(new Set(values).size, 14);
    const legends = [...page.matchAll(/<legend>([^<]+)<\/legend>/g)].map((m) => m[1]);
    assert.deepEqual(legends, METHOD_KINDS.map((kind) => messagesFor('en').kinds[kind].name));
    assert.match(page, /<form method="post" action="\/pay\/method" class="js-once">\s*<input type="hidden" name="orderNum" value="PLAT0000000000000000001">/);
    assert.ok(page.includes('after you choose a method'), 'the fee is not known yet');
  });

  it('shows amount, fee and total in rupiah and the countdown from the gateway clock', () => {
    const page = renderOrderPage({ order: order({ method: 'VA_MANDIRI', vaNumber: '8890812345678901', payFee: 4000 }), now: NOW + 30 * 60_000 }, context());
    assertIncludes(page, '<dd>Rp 150.000</dd>');
    assertIncludes(page, '<dd>Rp 4.000</dd>');
    assertIncludes(page, '<dd id="total">Rp 154.000</dd>');
    assert.match(page, /data-remaining-ms="3600000"[^>]*>1:00:00<\/time>/);
    assert.ok(page.includes('Expires 22 Nov 2026, 13:30 WIB'), 'expiry in Jakarta time');
  });

  it('shows the VA number with a copy button (hidden until the script runs) and the bank steps', () => {
    const page = renderOrderPage({ order: order({ method: 'VA_MANDIRI', vaNumber: '8890812345678901', payFee: 4000 }), now: NOW }, context());
    assertIncludes(page, '<span class="code" id="pay-code">8890812345678901</span>');
    assert.match(page, /<button type="button" class="copy" hidden data-copy="8890812345678901"/);
    assertIncludes(page, 'Choose Bayar/Beli &gt; Multipayment.');
    assertIncludes(page, 'Enter the virtual account number 8890812345678901.');
    assertIncludes(page, 'Choose Mandiri (bank code 008).');
  });

  it('renders QRIS as an image of the payload, not as text to copy', async () => {
    const payload = '00020101021226300014ID.CO.QRIS.WWW0208PB000001520454995303360540515107858'.concat('02ID5909TOKO BUDI6007JAKARTA6304ABCD');
    const qr = await qrImage(payload);
    const page = renderOrderPage({ order: order({ method: 'QRIS', vaNumber: payload, payFee: 1078 }), now: NOW, qr }, context('id'));
    assertIncludes(page, `<img src="${qr.dataUrl}" width="${qr.sizePx}" height="${qr.sizePx}" alt="Kode QRIS untuk membayar Rp 151.078">`);
    assert.ok(!page.includes('id="pay-code"'), 'the payload is not offered as a number to copy');
    assert.match(qr.dataUrl, /^data:image\/png;base64,[A-Za-z0-9+/=]+$/);
  });

  it('sizes the QRIS image as its modules plus the quiet zone, and builds it once per payload', async () => {
    const payload = '00020101021226300014ID.CO.QRIS.WWW0208PB0000015204549953033605406151078'.concat('5802ID5909TOKO SIZE6007JAKARTA6304ABCD');
    const modules = QRCode.create(payload, { errorCorrectionLevel: QR_OPTIONS.errorCorrectionLevel }).modules.size;
    const qr = await qrImage(payload);
    assert.equal(qr.sizePx, (modules + 2 * QR_OPTIONS.margin) * QR_OPTIONS.scale);
    const png = Buffer.from(qr.dataUrl.slice('data:image/png;base64,'.length), 'base64');
    assert.equal(png.readUInt32BE(20), qr.sizePx, 'square: the height is the width');
    assert.equal(await qrImage(payload), qr, 'the second request is served from the cache');
  });

  it('shows sandbox controls only in sandbox mode and only while the order is pending', () => {
    const pending = order({ method: 'VA_BCA', vaNumber: '3901012345678901', payFee: 4000 });
    const live = renderOrderPage({ order: pending, now: NOW }, context('en', false));
    assertExcludes(live, 'Simulate');
    assertExcludes(live, 'SANDBOX');
    const sandbox = renderOrderPage({ order: pending, now: NOW }, context('en', true));
    for (const [action, label] of [['pay', 'Simulate payment'], ['expire', 'Simulate expiry'], ['fail', 'Simulate failure']]) {
      assertIncludes(sandbox, `<button type="submit" name="action" value="${action}">${label}</button>`);
    }
    assertIncludes(sandbox, 'SANDBOX: test mode, no real money moves');
    const paid = renderOrderPage({ order: { ...pending, status: 'PAID', paidAt: NOW }, now: NOW }, context('en', true));
    assertExcludes(paid, 'Simulate');
    const picker = renderOrderPage({ order: order(), now: NOW }, context('en', true));
    assertExcludes(picker, 'Simulate payment');
    assertIncludes(picker, 'Simulate expiry');
    assertIncludes(picker, 'Choose a method above to simulate a payment.');
    assert.ok(paid.includes('SANDBOX'), 'still marked as sandbox');
  });

  it('explains expiry and failure, with the way back when there is one', () => {
    const expired = renderOrderPage({ order: order({ status: 'EXPIRED' }), now: NOW }, context());
    assertIncludes(expired, '<h1 id="outcome-heading">This payment has expired</h1>');
    assertIncludes(expired, 'href="/pay/leave?orderNum=PLAT0000000000000000001&amp;lang=en"');
    assert.ok(!expired.includes('name="method"'), 'no picker on a closed order');
    const failed = renderOrderPage({ order: order({ status: 'FAILED', redirectUrl: null }), now: NOW }, context('id'));
    assertIncludes(failed, '<h1 id="outcome-heading">Pembayaran gagal</h1>');
    assertIncludes(failed, '<html lang="id">');
  });

  it('shows a refused action as an alert, in the page language', () => {
    const page = renderOrderPage({ order: order(), now: NOW, notice: 'method-not-allowed' }, context('id'));
    assertIncludes(page, '<p class="notice" role="alert">Metode itu tidak bisa dipakai untuk nominal ini. Silakan pilih metode lain.</p>');
  });

  it('links both languages, marking the current one', () => {
    const page = renderOrderPage({ order: order(), now: NOW }, context('id'));
    assertIncludes(page, '<a href="/pay?orderNum=PLAT0000000000000000001&amp;lang=en" lang="en" hreflang="en">English</a>');
    assertIncludes(page, '<a href="/pay?orderNum=PLAT0000000000000000001&amp;lang=id" lang="id" hreflang="id" aria-current="true">Bahasa Indonesia</a>');
  });
});

describe('error pages', () => {
  it('name each problem, escaped', () => {
    const page = renderErrorPage({ kind: 'bad-request', problems: ['orderNum: must be <b>x</b>'] }, context());
    assertIncludes(page, '<li>orderNum: must be &lt;b&gt;x&lt;/b&gt;</li>');
    assertIncludes(page, '<h1 id="error-heading">This link is not valid</h1>');
  });

  it('exist in both languages for every kind', () => {
    for (const kind of ['not-found', 'bad-request', 'forbidden', 'internal'] as const) {
      for (const locale of ['en', 'id'] as const) {
        const page = renderErrorPage({ kind }, context(locale));
        assert.match(page, /<h1 id="error-heading">[^<]+<\/h1>/);
        assertIncludes(page, `<html lang="${locale}">`);
      }
    }
  });
});
