/**
 * The pure decisions, table-tested: outcome, pick-up, backoff, in-app detection, locale, contract
 * checks, error mapping, countdown, the attempt store, the define guard, the template minifier.
 */
import { expect, fixture, html } from '@open-wc/testing';
import { errorOf, isLink, isOrder, refusal, toPayError } from '../src/internal/api.ts';
import { claimAttempt, findAttempt, saveAttempt } from '../src/internal/attempt-store.ts';
import { define } from '../src/internal/define.ts';
import { errorWords, localeOf, strings } from '../src/internal/i18n.ts';
import { id } from '../src/internal/strings-id.ts';
import { newIdempotencyKey } from '../src/internal/idempotency.ts';
import { isBusy, pickUp, withoutReturnParam, withoutToken } from '../src/internal/outcome.ts';
import { outcome, outcomeWords } from '../src/internal/order-outcome.ts';
import { backoff, pollOrder } from '../src/internal/poll.ts';
import { isInAppBrowser } from '../src/internal/popup.ts';
import { isVaOrder } from '../src/components/pay-va/va-api.ts';
import { countdown, expiryOf, PayButton, PayVa } from '../src/index.ts';
import '../src/define.ts';
import { minifyCss, minifyHtml, minifyTemplates } from '../scripts/minify-templates.ts';
import type { Order } from '../src/internal/api.ts';

describe('outcome(order)', () => {
  const table: [Order['status'], string | null, string, string][] = [
    ['paid', 'VA_BCA', 'paid', 'pay-success'],
    ['paid', null, 'paid', 'pay-success'],
    // A method was chosen: a VA, retail code, QR code or e-wallet request can still be paid.
    ['pending', 'VA_BCA', 'pending', 'pay-pending'],
    ['pending', 'QRIS', 'pending', 'pay-pending'],
    // No method: nothing to pay once the payment page is gone.
    ['pending', null, 'cancelled', 'pay-cancel'],
    ['expired', null, 'expired', 'pay-failure'],
    ['failed', 'VA_BCA', 'failed', 'pay-failure'],
  ];
  for (const [status, method, state, event] of table) {
    it(`${status} (method ${method}) -> ${state} / ${event}`, () => expect(outcome({ status, method })).to.deep.equal([state, event]));
  }

  // What nobody could confirm is never "cancelled": the customer may hold a live payment number.
  const unconfirmable: [Partial<Order>, boolean, string, string][] = [
    [{ status: 'pending', method: null }, false, 'cancelled', 'cancelled'],
    [{ status: 'pending', method: null }, true, 'pending', 'unconfirmed'],
    [{ status: 'pending', method: null, confirmed: false }, false, 'pending', 'unconfirmed'],
    [{ status: 'pending', method: 'VA_BCA', confirmed: false }, false, 'pending', 'pending'],
    [{ status: 'pending', method: 'VA_BCA' }, true, 'pending', 'pending'],
    [{ status: 'paid', method: null, confirmed: false }, true, 'paid', 'paid'],
    [{ status: 'expired', method: null }, true, 'expired', 'expired'],
    // Another order of the cart paid it: nothing to pay here, whatever was chosen or confirmed.
    [{ status: 'pending', method: 'VA_BCA', paidWith: 'PBOTHER' }, true, 'cancelled', 'paidWith'],
    [{ status: 'pending', method: null, confirmed: false, paidWith: 'PBOTHER' }, true, 'cancelled', 'paidWith'],
    [{ status: 'paid', method: 'VA_BCA', duplicateOf: 'PBOTHER' }, true, 'paid', 'paid'],
  ];
  for (const [order, chosen, state, words] of unconfirmable) {
    it(`${JSON.stringify(order)}, method seen chosen: ${chosen} -> ${state}, says ${words}`, () => {
      expect(outcome(order as Order, chosen)[0]).to.equal(state);
      expect(outcomeWords(order as Order, chosen)).to.equal(words);
    });
  }
  it('busy states are exactly loading, open and checking', () => {
    const all = ['idle', 'loading', 'open', 'checking', 'paid', 'pending', 'expired', 'failed', 'cancelled', 'error'];
    expect(all.filter(isBusy)).to.deep.equal(['loading', 'open', 'checking']);
  });
});

describe('pickUp(returned, storedOrder)', () => {
  const table: [string | null, string, string | undefined][] = [
    ['A1', 'A1', 'return'],
    // The return of another order is another element's.
    ['B2', 'A1', undefined],
    // Any load without a return (Back, a reload) finds the attempt: it is still this cart's.
    [null, 'A1', 'found'],
  ];
  for (const [returned, stored, expected] of table) {
    it(`${returned} / ${stored} -> ${expected}`, () => expect(pickUp(returned, stored)).to.equal(expected));
  }
  it('withoutReturnParam removes only tombolbayar_order and a #paybutton_token= fragment', () => {
    expect(withoutReturnParam('https://shop.test/cart?x=1&tombolbayar_order=A1#top')).to.equal('https://shop.test/cart?x=1#top');
    expect(withoutReturnParam('https://shop.test/cart')).to.equal('https://shop.test/cart');
    expect(withoutReturnParam('https://shop.test/cart?x=1&tombolbayar_order=A1#paybutton_token=s3cret')).to.equal('https://shop.test/cart?x=1');
    expect(withoutReturnParam('https://shop.test/cart#paybutton_tokens')).to.equal('https://shop.test/cart#paybutton_tokens');
  });
  it('withoutToken keeps tombolbayar_order (not claimed) but never the token', () => {
    const href = 'https://shop.test/cart?tombolbayar_order=A1&x=a%20b';
    expect(withoutToken(`${href}#paybutton_token=s3cret`)).to.equal(href);
    expect(withoutToken(`${href}#top`)).to.equal(`${href}#top`);
  });
});

describe('backoff(n, base, cap, random)', () => {
  it('doubles from base, is capped, and jitters between half and all of the delay', () => {
    expect([0, 1, 2, 3, 4, 5].map((n) => backoff(n, 1000, 8000, 1))).to.deep.equal([1000, 2000, 4000, 8000, 8000, 8000]);
    expect([0, 1, 2, 3].map((n) => backoff(n, 1000, 8000, 0))).to.deep.equal([500, 1000, 2000, 4000]);
    for (let i = 0; i < 50; i++) {
      const d = backoff(2, 100, 10_000);
      expect(d).to.be.within(200, 400);
    }
  });

  it('pollOrder stops on a final status, on `more`, and rethrows what is not retryable', async () => {
    const signal = new AbortController().signal;
    const answers: (Order | Error)[] = [
      { orderNum: 'A', status: 'pending', payMoney: '1', method: null },
      { code: 'network', retryable: true, message: 'network' } as unknown as Error,
      { orderNum: 'A', status: 'paid', payMoney: '1', method: null },
    ];
    let calls = 0;
    const get = async () => {
      const a = answers[calls++]!;
      if ('code' in a) throw a;
      return a as Order;
    };
    expect((await pollOrder(get, () => true, 1, 2, signal)).status).to.equal('paid');
    expect(calls).to.equal(3);

    calls = 0;
    expect((await pollOrder(get, (n) => n < 1, 1, 2, signal)).status).to.equal('pending');
    expect(calls).to.equal(1);

    const refused = { code: 'not_found', retryable: false, message: 'x' };
    let caught: unknown;
    await pollOrder(() => Promise.reject(refused), () => true, 1, 2, signal).catch((e) => (caught = e));
    expect(caught).to.equal(refused);
  });

  it('pollOrder stops when its attempt is aborted', async () => {
    const controller = new AbortController();
    let calls = 0;
    const pending = pollOrder(async () => (calls++, { orderNum: 'A', status: 'pending', payMoney: '1', method: null }), () => true, 5, 5, controller.signal);
    controller.abort();
    let caught: unknown;
    await pending.catch((e) => (caught = e));
    expect((caught as Error).name).to.equal('AbortError');
    expect(calls).to.equal(1);
  });
});

describe('isInAppBrowser(userAgent)', () => {
  const inApp = [
    'Mozilla/5.0 (iPhone; CPU iPhone OS 17_1 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Mobile/15E148 [FBAN/FBIOS;FBAV/442.0.0.41.114;FBBV/547367925]',
    'Mozilla/5.0 (Linux; Android 14; SM-S918B Build/UP1A; wv) AppleWebKit/537.36 (KHTML, like Gecko) Version/4.0 Chrome/120.0 Mobile Safari/537.36 [FB_IAB/FB4A;FBAV/443.0.0.23.229;]',
    'Mozilla/5.0 (iPhone; CPU iPhone OS 17_0 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Mobile/15E148 Instagram 309.0.2.18.103',
    'Mozilla/5.0 (iPhone; CPU iPhone OS 16_6 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Mobile/15E148 Safari Line/13.17.0',
    'Mozilla/5.0 (Linux; Android 13; Pixel 7) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/119.0 Mobile Safari/537.36 WhatsApp/2.23.25',
    'Mozilla/5.0 (Linux; Android 12; V2111; wv) AppleWebKit/537.36 (KHTML, like Gecko) Version/4.0 Chrome/108.0 Mobile Safari/537.36 musical_ly_2023201020 BytedanceWebview/d8a21c6',
    'Mozilla/5.0 (iPhone; CPU iPhone OS 17_0 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Mobile/15E148 TikTok 32.0.0',
    'Mozilla/5.0 (Linux; Android 10; K) AppleWebKit/537.36 (KHTML, like Gecko) Version/4.0 Chrome/118.0 Mobile Safari/537.36 MicroMessenger/8.0.43',
    'Mozilla/5.0 (Linux; Android 11; SM-A515F; wv) AppleWebKit/537.36 (KHTML, like Gecko) Version/4.0 Chrome/96.0 Mobile Safari/537.36',
  ];
  const browsers = [
    'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/156.0.0.0 Safari/537.36',
    'Mozilla/5.0 (iPhone; CPU iPhone OS 17_1 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.1 Mobile/15E148 Safari/604.1',
    'Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0.0.0 Mobile Safari/537.36',
    'Mozilla/5.0 (Windows NT 10.0; Win64; x64; rv:126.0) Gecko/20100101 Firefox/126.0',
    'Mozilla/5.0 (Linux; Android 13; SM-S908B) AppleWebKit/537.36 (KHTML, like Gecko) SamsungBrowser/23.0 Chrome/115.0 Mobile Safari/537.36',
  ];
  for (const ua of inApp) it(`in-app: ${ua.slice(-40)}`, () => expect(isInAppBrowser(ua)).to.be.true);
  for (const ua of browsers) it(`browser: ${ua.slice(-40)}`, () => expect(isInAppBrowser(ua)).to.be.false);
});

describe('localeOf(el, explicit)', () => {
  it('maps id, id-ID and in to Indonesian, everything else to English', async () => {
    const el = await fixture(html`<span></span>`);
    const table: [string | undefined, string][] = [['id', 'id'], ['id-ID', 'id'], ['ID', 'id'], ['in', 'id'], ['en', 'en'], ['de', 'en'], ['idx', 'en'], ['', 'en']];
    for (const [tag, locale] of table) expect([tag, localeOf(el, tag)]).to.deep.equal([tag, locale]);
  });

  it('a page that says nothing speaks the browser\'s language: the first of navigator.languages that is English or Indonesian', async () => {
    const el = await fixture(html`<span></span>`);
    const root = document.documentElement;
    const lang = root.getAttribute('lang');
    root.removeAttribute('lang');
    const table: [string[], string][] = [[['id-ID', 'en'], 'id'], [['fr-FR', 'in'], 'id'], [['en-GB', 'id'], 'en'], [['fr', 'de'], 'en'], [[], 'en']];
    try {
      for (const [languages, locale] of table) {
        Object.defineProperty(navigator, 'languages', { value: languages, configurable: true });
        expect([languages, localeOf(el)]).to.deep.equal([languages, locale]);
      }
      // The page says otherwise: `<html lang>` (or an ancestor's, or the attribute) wins.
      Object.defineProperty(navigator, 'languages', { value: ['id-ID'], configurable: true });
      root.lang = 'en';
      expect(localeOf(el)).to.equal('en');
      expect(localeOf(el, 'id')).to.equal('id');
    } finally {
      delete (navigator as { languages?: unknown }).languages;
      if (lang === null) root.removeAttribute('lang');
      else root.setAttribute('lang', lang);
    }
  });
});

describe('contract checks', () => {
  const link = { orderNum: 'A1', url: 'https://pay.test/p?o=1', expiresAt: '2026-01-01T00:00:00Z', statusToken: 't' };
  it('isLink accepts the contract and refuses a missing field or a non-http(s) url', () => {
    expect(isLink(link)).to.be.true;
    expect(isLink({ ...link, statusToken: '' })).to.be.false;
    expect(isLink({ ...link, url: 'javascript:alert(1)' })).to.be.false;
    expect(isLink({ ...link, url: 'data:text/html,x' })).to.be.false;
    expect(isLink({ ...link, orderNum: 7 })).to.be.false;
  });
  it('isOrder wants a known status and a whole amount, as a string or a number', () => {
    const order = { orderNum: 'A1', status: 'paid', payMoney: '150000', method: 'VA_BCA' };
    expect(isOrder(order)).to.be.true;
    expect(isOrder({ ...order, payMoney: 150000 })).to.be.true;
    expect(isOrder({ ...order, status: 'PAID' })).to.be.false;
    expect(isOrder({ ...order, payMoney: '150.000' })).to.be.false;
    expect(isOrder({ ...order, payMoney: undefined })).to.be.false;
  });
  it("isOrder takes the protocol's amount rule: positive, no leading zero, at most 12 digits", () => {
    const order = { orderNum: 'A1', status: 'paid', method: null };
    for (const payMoney of ['1', '999999999999', 999999999999]) expect([payMoney, isOrder({ ...order, payMoney })]).to.deep.equal([payMoney, true]);
    const bad = ['0', 0, '0007', '1000000000000', '12345678901234567890', 12345678901234567890, -1, 1.5, 1e21, '1e3', ' 150000', '+150000', ''];
    for (const payMoney of bad) expect([payMoney, isOrder({ ...order, payMoney })]).to.deep.equal([payMoney, false]);
  });
  it('isVaOrder wants the number, the amounts and the token', () => {
    const va = { orderNum: 'A1', method: 'VA_BCA', vaNumber: '8808', payMoney: '1', payFee: 0, expiresAt: 'x', statusToken: 't' };
    expect(isVaOrder(va)).to.be.true;
    expect(isVaOrder({ ...va, vaNumber: '' })).to.be.false;
    expect(isVaOrder({ ...va, payFee: -1 })).to.be.false;
  });
  it('isVaOrder: a positive amount and a fee that may be zero, both without leading zeros or more than 12 digits', () => {
    const va = { orderNum: 'A1', method: 'VA_BCA', vaNumber: '8808', payMoney: '150000', payFee: '4000', expiresAt: 'x', statusToken: 't' };
    const good: [unknown, unknown][] = [['150000', '0'], [150000, 0], ['999999999999', '999999999999']];
    for (const [payMoney, payFee] of good) expect([payMoney, payFee, isVaOrder({ ...va, payMoney, payFee })]).to.deep.equal([payMoney, payFee, true]);
    const bad: [unknown, unknown][] = [
      ['0', '4000'], ['0007', '4000'], ['12345678901234567890', '4000'], [12345678901234567890, '4000'],
      ['150000', '0007'], ['150000', '00'], ['150000', '1000000000000'], ['150000', 1.5], ['150000', undefined],
    ];
    for (const [payMoney, payFee] of bad) expect([payMoney, payFee, isVaOrder({ ...va, payMoney, payFee })]).to.deep.equal([payMoney, payFee, false]);
  });
  it('errorOf keeps the plug-in error, else names the HTTP status', () => {
    expect(errorOf(429, { error: { code: 'rate_limited', message: 'Slow down', retryable: true } })).to.deep.equal({
      code: 'rate_limited', retryable: true, message: 'Slow down', status: 429,
    });
    expect(errorOf(409, { error: { code: 'not_for_sale' } })).to.include({ code: 'not_for_sale', retryable: false, message: 'not_for_sale' });
    expect(errorOf(404, null)).to.include({ code: 'not_found', retryable: false });
    expect(errorOf(502, '<html>')).to.include({ code: 'http_502', retryable: true });
    expect(errorOf(400, {})).to.include({ code: 'http_400', retryable: false });
    expect(errorOf(429, null)).to.include({ retryable: true });
  });
  it("refusal: the merchant's words for a refusal of quote() that retrying cannot change, nothing for anything else", () => {
    expect(refusal({ code: 'not_for_sale', retryable: false, message: 'Sold out' })).to.equal('Sold out');
    // An http-errors-style 4xx thrown by quote(), as the plug-in reports it.
    expect(refusal({ code: 'quote_refused', retryable: false, message: 'Only 2 left', status: 409 })).to.equal('Only 2 left');
    // A 429 or 408 from quote() is worth another try: the generic wording.
    expect(refusal({ code: 'quote_refused', retryable: true, message: 'Too Many Requests', status: 429 })).to.be.undefined;
    for (const code of ['invalid_request', 'quote_failed', 'gateway_refused', 'network']) expect(refusal({ code, retryable: false, message: 'x' })).to.be.undefined;
  });
  it('toPayError passes PayErrors through and wraps anything else', () => {
    const e = { code: 'x', retryable: true, message: 'x' };
    expect(toPayError(e)).to.equal(e);
    expect(toPayError(new TypeError('boom'))).to.include({ code: 'unexpected', retryable: false, message: 'TypeError: boom' });
  });
  it('idempotency keys are 32 hex characters and do not repeat', () => {
    const keys = new Set(Array.from({ length: 200 }, newIdempotencyKey));
    expect(keys.size).to.equal(200);
    for (const k of keys) expect(k).to.match(/^[0-9a-f]{32}$/);
  });
});

describe('errorWords: a code never reaches the customer', () => {
  const table: [string, string][] = [
    ['network', 'unreachable'],
    ['gateway_unavailable', 'unreachable'],
    ['gateway_timeout', 'unreachable'],
    ['http_502', 'unreachable'],
    ['rate_limited', 'busy'],
    ['http_503', 'busy'],
    ['origin_not_allowed', 'origin'],
    ['bad_response', 'error'],
    ['internal', 'error'],
  ];
  for (const [code, key] of table) {
    it(`${code} -> ${key}`, () => expect(errorWords[code] ?? 'error').to.equal(key));
  }
  it('every failure says, in both languages, that nothing was charged, and no word of it is technical', () => {
    // Indonesian is a chunk of its own (loaded by the first element that speaks it).
    const tables = { en: strings.en, id };
    for (const lang of ['en', 'id'] as const) {
      for (const key of ['unreachable', 'busy', 'origin', 'error', 'expired', 'failed', 'cancelled'] as const) {
        expect(tables[lang][key]).to.match(lang === 'en' ? /Nothing was charged/ : /Tidak ada dana yang ditarik/);
        expect(tables[lang][key]).not.to.match(/_|\bE[A-Z]{4,}\b|\b\d{3}\b|gateway|network/i);
      }
    }
  });
});

describe('countdown and expiryOf', () => {
  it("reads as the hosted page's countdown: HH:MM:SS rounded up, days above a day, never negative, empty when unknown", () => {
    expect(countdown(65_000, 0)).to.equal('00:01:05');
    // An hour's order reads 01:00:00 at first on both screens, then 00:59:59.
    expect(countdown(3_600_000, 0)).to.equal('01:00:00');
    expect(countdown(3_600_000, 1)).to.equal('01:00:00');
    expect(countdown(3_600_000, 1000)).to.equal('00:59:59');
    expect(countdown(2 * 3_600_000 + 61_999, 0)).to.equal('02:01:02');
    expect(countdown(999, 0)).to.equal('00:00:01');
    expect(countdown(86_400_000 + 3_723_000, 0)).to.equal('1 day 01:02:03');
    expect(countdown(5 * 86_400_000, 0, ['hari', 'hari'])).to.equal('5 hari 00:00:00');
    expect(countdown(0, 5000)).to.equal('');
    expect(countdown(5000, 9000)).to.equal('00:00:00');
    expect(countdown(NaN, 0)).to.equal('');
  });
  it('reads ISO 8601 and the wire yyyyMMddHHmmss (Jakarta, UTC+7)', () => {
    expect(expiryOf('2026-03-01T10:00:00Z')).to.equal(Date.UTC(2026, 2, 1, 10));
    expect(expiryOf('20260301170000')).to.equal(Date.UTC(2026, 2, 1, 10));
    expect(expiryOf('soon')).to.be.NaN;
  });
  it("reads the wire format with the protocol's parseDateTime: a moment that does not exist is unknown", () => {
    expect(expiryOf('20261231235959')).to.equal(Date.UTC(2026, 11, 31, 16, 59, 59));
    expect(expiryOf('20260230120000')).to.be.NaN;
    expect(expiryOf('20260301240000')).to.be.NaN;
    expect(countdown(expiryOf('20260230120000'), 0)).to.equal('');
  });
});

describe('attempt store', () => {
  beforeEach(() => sessionStorage.clear());
  it('claims an attempt once, and forgets attempts older than a day', () => {
    saveAttempt({ orderNum: 'A', statusToken: 't', endpoint: '/pay', item: 'x' });
    expect(findAttempt((e) => e.orderNum === 'A')).to.include({ statusToken: 't' });
    expect(claimAttempt((e) => e.orderNum === 'A')).to.include({ orderNum: 'A' });
    expect(claimAttempt((e) => e.orderNum === 'A')).to.be.undefined;

    sessionStorage.setItem('tombolbayar:attempts', JSON.stringify([{ orderNum: 'old', statusToken: 't', endpoint: '/pay', savedAt: Date.now() - 864e5 - 1 }]));
    expect(findAttempt(() => true)).to.be.undefined;
  });
  it('treats broken or foreign storage content as empty', () => {
    for (const junk of ['{', '"x"', '{"a":1}', '[null]']) {
      sessionStorage.setItem('tombolbayar:attempts', junk);
      expect(findAttempt(() => true)).to.be.undefined;
    }
    saveAttempt({ orderNum: 'B', statusToken: 't', endpoint: '/pay' });
    expect(findAttempt((e) => e.orderNum === 'B')).to.exist;
  });
  it('keeps at most ten attempts', () => {
    for (let i = 0; i < 12; i++) saveAttempt({ orderNum: `O${i}`, statusToken: 't', endpoint: '/pay' });
    expect(findAttempt((e) => e.orderNum === 'O0')).to.be.undefined;
    expect(findAttempt((e) => e.orderNum === 'O11')).to.exist;
  });
});

describe('define guard', () => {
  it('a second definition of the same class is a no-op, of another class a warning, never a throw', () => {
    const warn = console.warn;
    const warnings: unknown[][] = [];
    console.warn = (...args: unknown[]) => void warnings.push(args);
    try {
      define('pay-button', PayButton);
      define('pay-va', PayVa);
      expect(warnings).to.have.length(0);
      define('pay-button', class extends HTMLElement {});
      expect(warnings).to.have.length(1);
      expect(customElements.get('pay-button')).to.equal(PayButton);
    } finally {
      console.warn = warn;
    }
  });
});

describe('template minifier (build)', () => {
  it('squeezes CSS without changing values (0.5em is written .5em)', () => {
    expect(minifyCss(`
      :host([state='paid']) button {
        padding: 0.5em 1.25em; /* two values */
        font: 600 1.25em ui-monospace, monospace;
      }
      @media (prefers-reduced-motion: reduce) { [part='spinner'] { animation: none; } }
    `)).to.equal(
      ':host([state=paid]) button{padding:.5em 1.25em;font:600 1.25em ui-monospace,monospace}@media (prefers-reduced-motion:reduce){[part=spinner]{animation:none}}',
    );
    expect(minifyCss('a { opacity: 0.6; width: calc(10.5px + 0.25em); }')).to.equal('a{opacity:.6;width:calc(10.5px + .25em)}');
  });
  it('squeezes HTML between tags, keeps spaces inside text', () => {
    expect(minifyHtml('<p>\n  <b>a</b>\n  <i>b c</i>\n</p>')).to.equal('<p><b>a</b><i>b c</i></p>');
  });
  it('drops the quotes of attribute values that need none, never around a binding or a space', () => {
    expect(minifyHtml('<span part="status" role="status" title="a b" x="')).to.equal('<span part=status role=status title="a b" x="');
    // A line break before the `>` that closes a tag goes entirely.
    expect(minifyHtml('<b\n  x="1"\n>\n  y</b>')).to.equal('<b x=1> y</b>');
  });
  it('rewrites only the static parts of css`` and html`` templates, nested ones included', () => {
    const source = 'const a = html`<p>\n  ${x ? html`<b>\n  y</b>` : `keep\n  this`}\n</p>`; const s = `not\n  a template`;';
    expect(minifyTemplates(source)).to.equal('const a = html`<p> ${x ? html`<b> y</b>` : `keep\n  this`} </p>`; const s = `not\n  a template`;');
  });
});
