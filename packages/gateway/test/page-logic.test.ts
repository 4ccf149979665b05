/**
 * The hosted page's pure decisions: payment steps, countdown text, language choice, the CSRF
 * decision, input schemas, the CSP, and the client bundle.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { METHOD_CODES, METHODS, parseWith, type MethodCode } from '@tombolbayar/protocol';
import { CONTENT_SECURITY_POLICY, gatewayOrigins, isSameOriginPost } from '../src/page/csp.ts';
import { socketOrigin } from '../src/http/origins.ts';
import { formatJakartaTime, localeFromAcceptLanguage, negotiateLocale, type Locale } from '../src/page/i18n.ts';
import { chooseMethodBodySchema, pageQuerySchema, sandboxBodySchema } from '../src/page/input.ts';
import { formatCountdown, isoDuration } from '../src/page/shared/countdown.ts';
import { paymentSteps } from '../src/page/steps.ts';
import { buildClientScript } from '../scripts/build-page-assets.ts';

describe('payment steps', () => {
  it('exist for every method in both languages and mention the code and the total', () => {
    for (const method of METHOD_CODES) {
      for (const locale of ['en', 'id'] as const) {
        const groups = paymentSteps(method, locale, { code: 'CODE123', total: 'Rp 154.000', merchant: 'Toko Budi' });
        assert.ok(groups.length > 0, `${method} ${locale}`);
        const text = groups.flatMap((group) => group.steps).join(' ');
        assert.ok(groups.every((group) => group.title && group.steps.length >= 3), `${method} ${locale} groups`);
        assert.ok(text.includes('Rp 154.000'), `${method} ${locale} total`);
        if (METHODS[method].kind !== 'qr') assert.ok(text.includes('CODE123'), `${method} ${locale} code`);
      }
    }
  });

  it('give each bank its own menus and an interbank route with its bank code', () => {
    const codes = new Map<MethodCode, string>([['VA_BCA', '014'], ['VA_BRI', '002'], ['VA_BNI', '009'], ['VA_SAMPOERNA', '523']]);
    for (const [method, bankCode] of codes) {
      const groups = paymentSteps(method, 'en', { code: '1', total: 'Rp 1', merchant: 'M' });
      assert.equal(groups.at(-1)?.title, 'From another bank');
      assert.ok(groups.at(-1)?.steps.some((step) => step.includes(`bank code ${bankCode}`)), `${method} interbank code`);
    }
    const bri = paymentSteps('VA_BRI', 'en', { code: '1', total: 'Rp 1', merchant: 'M' });
    assert.deepEqual(bri.map((group) => group.title), ['ATM BRI', 'BRImo', 'Internet Banking BRI', 'From another bank']);
  });
});

describe('countdown text', () => {
  const days = { one: 'day', other: 'days' };
  it('reads as <pay-va> does: MM:SS under an hour, H:MM:SS under a day, whole seconds left, days above', () => {
    const table: Array<[number, string]> = [
      [0, '00:00'],
      [-5000, '00:00'],
      [Number.NaN, '00:00'],
      [1, '00:00'],
      [999, '00:00'],
      [1000, '00:01'],
      [1001, '00:01'],
      [59 * 60_000 + 59_000, '59:59'],
      // An hour-long order, the instant it is created and a moment later: never 01:00:00 here and 59:59 there.
      [3_600_000 - 1, '59:59'],
      [3_600_000, '1:00:00'],
      [10 * 3_600_000 + 5_000, '10:00:05'],
      [86_400_000, '1 day 00:00:00'],
      [5 * 86_400_000 - 1000, '4 days 23:59:59'],
    ];
    for (const [ms, text] of table) assert.equal(formatCountdown(ms, days), text, String(ms));
  });

  it('gives the machine-readable duration', () => {
    assert.equal(isoDuration(90_061_000), 'P1DT1H1M1S');
    assert.equal(isoDuration(0), 'PT0H0M0S');
  });
});

describe('language choice', () => {
  it('reads Accept-Language by quality, then order', () => {
    const table: Array<[string | undefined, Locale | undefined]> = [
      [undefined, undefined],
      ['', undefined],
      ['id-ID,id;q=0.9,en-US;q=0.8,en;q=0.7', 'id'],
      ['en-GB,en;q=0.9,id;q=0.8', 'en'],
      ['fr-FR, id;q=0.5, en;q=0.4', 'id'],
      ['en;q=0.2, id;q=0.8', 'id'],
      ['in', 'id'],
      ['fr, de', undefined],
      ['id;q=0, en', 'en'],
      ['*', undefined],
      ['en;q=abc, id;q=0.1', 'id'],
    ];
    for (const [header, expected] of table) assert.equal(localeFromAcceptLanguage(header), expected, String(header));
  });

  it('prefers an explicit choice, then the remembered one, then the browser, then the default', () => {
    assert.equal(negotiateLocale({ query: 'id', cookie: 'en', acceptLanguage: 'en', fallback: 'en' }), 'id');
    assert.equal(negotiateLocale({ query: undefined, cookie: 'id', acceptLanguage: 'en', fallback: 'en' }), 'id');
    assert.equal(negotiateLocale({ query: 'fr', cookie: 'xx', acceptLanguage: 'id', fallback: 'en' }), 'id');
    assert.equal(negotiateLocale({ query: undefined, cookie: undefined, acceptLanguage: 'de', fallback: 'id' }), 'id');
  });
});

describe('times', () => {
  it('are shown in Jakarta time in each language, whichever was formatted before', () => {
    const at = Date.UTC(2026, 10, 22, 12, 30); // 19:30 in Jakarta
    for (let round = 0; round < 2; round++) {
      assert.equal(formatJakartaTime(at, 'en'), '22 Nov 2026, 19:30 WIB');
      assert.match(formatJakartaTime(at, 'id'), /^22 Nov 2026,? 19[.:]30 WIB$/);
      assert.equal(formatJakartaTime(at + 86_400_000, 'en'), '23 Nov 2026, 19:30 WIB');
    }
  });
});

describe('form POST provenance', () => {
  it('accepts same-origin forms and refuses cross-site ones', () => {
    const own = ['https://gw.example:8443', 'http://127.0.0.1:4010'];
    const host = 'gw.example:8443';
    const table: Array<[Parameters<typeof isSameOriginPost>[0], boolean]> = [
      [{ secFetchSite: 'same-origin', origin: 'https://gw.example:8443', host, ownOrigins: own }, true],
      // A page with Referrer-Policy: no-referrer posts with Origin: null; Sec-Fetch-Site vouches.
      [{ secFetchSite: 'same-origin', origin: 'null', host, ownOrigins: own }, true],
      [{ secFetchSite: 'cross-site', origin: 'https://gw.example:8443', host, ownOrigins: own }, false],
      [{ secFetchSite: 'same-site', origin: 'https://shop.gw.example', host, ownOrigins: own }, false],
      [{ secFetchSite: 'none', origin: undefined, host, ownOrigins: own }, false],
      [{ secFetchSite: undefined, origin: 'https://gw.example:8443', host, ownOrigins: own }, true],
      [{ secFetchSite: undefined, origin: 'https://evil.example', host, ownOrigins: own }, false],
      // DNS rebinding: Host and Origin agree, the browser says same-origin; the Host is not ours.
      [{ secFetchSite: 'same-origin', origin: 'http://evil.example:4010', host: 'evil.example:4010', ownOrigins: own }, false],
      [{ secFetchSite: 'same-origin', origin: 'null', host: 'evil.example:4010', ownOrigins: own }, false],
      // A proxy that passes the upstream address as Host.
      [{ secFetchSite: 'same-origin', origin: 'https://gw.example:8443', host: '127.0.0.1:4010', ownOrigins: own }, true],
      [{ secFetchSite: undefined, origin: 'http://gw.example:8443', host, ownOrigins: own }, false],
      [{ secFetchSite: undefined, origin: 'null', host, ownOrigins: own }, false],
      [{ secFetchSite: undefined, origin: 'not a url', host, ownOrigins: own }, false],
      [{ secFetchSite: undefined, origin: undefined, host, ownOrigins: own }, true],
      // No origin of its own known (no configuration, no socket): the Host never vouches for
      // itself, so a browser's POST is refused; a tool's (neither header) passes.
      [{ secFetchSite: undefined, origin: 'https://gw.example:8443', host, ownOrigins: [] }, false],
      [{ secFetchSite: 'same-origin', origin: 'https://gw.example:8443', host, ownOrigins: [] }, false],
      [{ secFetchSite: undefined, origin: 'https://evil.example', host, ownOrigins: [] }, false],
      [{ secFetchSite: undefined, origin: 'http://gw.example', host: undefined, ownOrigins: [] }, false],
      [{ secFetchSite: undefined, origin: undefined, host, ownOrigins: [] }, true],
    ];
    for (const [request, expected] of table) assert.equal(isSameOriginPost(request), expected, JSON.stringify(request));
  });

  it('compares the Host as a browser writes it: DNS-rebinding shapes of a name are not ours', () => {
    const own = ['https://gw.example:8443', 'http://[::1]:4010', 'http://localhost'];
    const rebound = { secFetchSite: 'same-origin', origin: undefined, ownOrigins: own } as const;
    const table: Array<[string, boolean]> = [
      ['gw.example:8443', true],
      ['GW.Example:8443', true],
      ['[::1]:4010', true],
      ['localhost', true],
      ['localhost:80', false],
      ['gw.example.:8443', false],
      ['gw.example', false],
      ['gw.example:9999', false],
      ['[0:0:0:0:0:0:0:1]:4010', false],
      ['evil@gw.example:8443', false],
      ['gw.example:8443, evil.example', false],
      ['evil.example:8443', false],
      ['', false],
    ];
    for (const [host, expected] of table) assert.equal(isSameOriginPost({ ...rebound, host }), expected, host);
  });
});

describe('input schemas', () => {
  it('name the field that is wrong', () => {
    const table: Array<[unknown, string]> = [
      [{}, 'orderNum: is required'],
      [{ orderNum: '' }, 'orderNum: is required'],
      [{ orderNum: ['a', 'b'] }, 'orderNum: must be a string'],
      [{ orderNum: 'x'.repeat(65) }, 'orderNum: must be at most 64 characters'],
      [{ orderNum: 'a b' }, 'orderNum: must be a platform order number (letters, digits, and . _ ~ -)'],
      [{ orderNum: '<script>' }, 'orderNum: must be a platform order number (letters, digits, and . _ ~ -)'],
    ];
    for (const [input, message] of table) {
      const result = parseWith(pageQuerySchema, input);
      assert.equal(result.ok ? 'ok' : result.message, message, JSON.stringify(input));
    }
  });

  it('drop a bad language or notice instead of refusing the page', () => {
    const result = parseWith(pageQuerySchema, { orderNum: 'P1', lang: 'fr', notice: '<b>' });
    assert.deepEqual(result.ok && result.value, { orderNum: 'P1', lang: undefined, notice: undefined });
  });

  it('read a language as our code or a regional tag of it, and nothing else', () => {
    const table: Array<[unknown, Locale | undefined]> = [
      ['en', 'en'], ['id', 'id'], ['id-ID', 'id'], ['ID', 'id'], ['in', 'id'], ['en_US', 'en'], ['en-GB', 'en'],
      ['fr', undefined], ['', undefined], ['idx', undefined], ['<script>', undefined], [['id', 'en'], undefined], [undefined, undefined],
    ];
    for (const [lang, expected] of table) {
      const result = parseWith(pageQuerySchema, { orderNum: 'P1', lang });
      assert.equal(result.ok && result.value.lang, expected, JSON.stringify(lang));
    }
  });

  it('accept a method code or its alias, and refuse anything else with the list of codes', () => {
    const alias = parseWith(chooseMethodBodySchema, { orderNum: 'P1', method: 'BCA' });
    assert.equal(alias.ok && alias.value.method, 'VA_BCA');
    const code = parseWith(chooseMethodBodySchema, { orderNum: 'P1', method: 'EWALLET_OVO' });
    assert.equal(code.ok && code.value.method, 'EWALLET_OVO');
    const bad = parseWith(chooseMethodBodySchema, { orderNum: 'P1', method: 'bca' });
    assert.match(bad.ok ? 'ok' : bad.message, /^method: must be one of VA_BCA, VA_MANDIRI/);
    const missing = parseWith(chooseMethodBodySchema, { orderNum: 'P1' });
    assert.equal(missing.ok ? 'ok' : missing.message, 'method: is required');
  });

  it('accept only the three sandbox actions', () => {
    assert.ok(parseWith(sandboxBodySchema, { orderNum: 'P1', action: 'expire' }).ok);
    const bad = parseWith(sandboxBodySchema, { orderNum: 'P1', action: 'refund' });
    assert.equal(bad.ok ? 'ok' : bad.message, 'action: must be one of pay, expire, fail');
  });
});

describe('content security policy', () => {
  it('allows no inline script or style and nothing from other origins', () => {
    const directives = new Map(CONTENT_SECURITY_POLICY.split('; ').map((d) => [d.split(' ')[0], d.split(' ').slice(1).join(' ')]));
    assert.equal(directives.get('default-src'), "'none'");
    assert.equal(directives.get('script-src'), "'self'");
    assert.equal(directives.get('style-src'), "'self'");
    assert.equal(directives.get('img-src'), "'self' data:");
    assert.equal(directives.get('connect-src'), "'self'");
    assert.equal(directives.get('form-action'), "'self'");
    assert.equal(directives.get('frame-ancestors'), "'none'");
    assert.equal(directives.get('base-uri'), "'none'");
    assert.doesNotMatch(CONTENT_SECURITY_POLICY, /unsafe/);
  });
});

describe('client script', () => {
  it('bundles from TypeScript and never builds markup from strings', async () => {
    const script = await buildClientScript();
    assert.ok(script.length > 500 && script.length < 20_000, `size ${script.length}`);
    for (const sink of ['innerHTML', 'outerHTML', 'insertAdjacentHTML', 'document.write', 'eval(', 'new Function']) {
      assert.ok(!script.includes(sink), sink);
    }
  });
});

describe('the gateway\'s own origins come from its configuration and the socket, never the Host', () => {
  it('publicUrl and the addresses it is served at, with the loopback\'s other names', () => {
    assert.deepEqual(gatewayOrigins('https://pay.example/base/', undefined), ['https://pay.example']);
    assert.deepEqual(gatewayOrigins('https://pay.example/base/', 'http://10.0.0.5:4010'), ['https://pay.example', 'http://10.0.0.5:4010']);
    assert.deepEqual(gatewayOrigins(undefined, 'http://127.0.0.1:4010'), ['http://127.0.0.1:4010', 'http://localhost:4010', 'http://[::1]:4010']);
    assert.deepEqual(gatewayOrigins(undefined, 'http://10.1.2.3:4010'), ['http://10.1.2.3:4010']);
    assert.deepEqual(gatewayOrigins(undefined, 'http://127.0.0.1:4010', 'http://127.0.0.1:4010'), ['http://127.0.0.1:4010', 'http://localhost:4010', 'http://[::1]:4010']);
    assert.deepEqual(gatewayOrigins(undefined, 'http://127.0.0.1:4010', 'http://10.1.2.3:4010'), ['http://127.0.0.1:4010', 'http://localhost:4010', 'http://[::1]:4010', 'http://10.1.2.3:4010']);
    assert.deepEqual(gatewayOrigins(undefined, undefined), []);
  });

  it('the origin of a socket is its local address and port, never a name the client chose', () => {
    const table: Array<[Parameters<typeof socketOrigin>[0], string | undefined]> = [
      [{ localAddress: '127.0.0.1', localPort: 4010 }, 'http://127.0.0.1:4010'],
      [{ localAddress: '10.0.0.5', localPort: 443, encrypted: true }, 'https://10.0.0.5'],
      [{ localAddress: '10.0.0.5', localPort: 80 }, 'http://10.0.0.5'],
      [{ localAddress: '10.0.0.5', localPort: 443 }, 'http://10.0.0.5:443'],
      [{ localAddress: '::ffff:127.0.0.1', localPort: 4010 }, 'http://127.0.0.1:4010'],
      [{ localAddress: '::1', localPort: 4010 }, 'http://[::1]:4010'],
      [{ localAddress: 'fe80::1%eth0', localPort: 4010 }, 'http://[fe80::1]:4010'],
      [{ localAddress: undefined, localPort: 4010 }, undefined],
      [{ localAddress: '127.0.0.1', localPort: undefined }, undefined],
      [undefined, undefined],
    ];
    for (const [socket, expected] of table) assert.equal(socketOrigin(socket), expected, JSON.stringify(socket));
  });
});
