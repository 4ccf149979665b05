/**
 * Property-based fuzzing of the browser-facing routes of the gateway (`GET /pay`,
 * `GET /pay/status`, `POST /pay/method`, `POST /pay/method/change`, `POST /pay/sandbox`) and of the sandbox JSON API, over
 * real HTTP against the real app, with real orders among the random ones.
 *
 * For every case: no 5xx, no crash or unhandled rejection, the page's security headers, a 400 that
 * names the field, no markup from the request echoed into the page, cross-site posts refused, and
 * the store untouched by every refusal (SQLite `data_version`).
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import fc from 'fast-check';
import { METHOD_CODES } from '@tombolbayar/protocol';
import { startHarness, type Harness } from './support/harness.ts';
import { merchantKeys, platformKeys } from './support/keys.ts';
import {
  REPEATED_KEY_MESSAGE, caseCounts, captureLogger, looksLikeMarkup, countCase, encodeAny, fcOptions, hostileContentType, hostileKey, hostileString, jsonText, leakedFragments,
  notJsonBody, runs, send, sqliteProbe, watchProcess, type CapturedLogger, type RawAnswer, type StoreProbe,
} from './hostile-support.ts';

let h: Harness;
let probe: StoreProbe;
let log: CapturedLogger;
const transcript: string[] = [];
const watch = watchProcess();
/** Real orders: payment links without a method (the picker), and VA orders. */
const links: string[] = [];
const vas: string[] = [];

before(async () => {
  log = captureLogger();
  h = await startHarness('sqlite', { logger: log.logger, notifications: { worker: false }, expirySweepIntervalMs: 3_600_000 });
  for (let i = 0; i < 30; i++) {
    links.push((await h.client.createLink()).body.platOrderNum!);
    vas.push((await h.client.createVa({ method: METHOD_CODES[i % METHOD_CODES.length]! })).body.platOrderNum!);
  }
  probe = sqliteProbe((h.store.database as { file: string }).file);
});
after(async () => {
  watch.stop();
  await probe.close();
  await h.stop();
});

function record(answer: RawAnswer): void {
  transcript.push(answer.text);
  assert.ok(answer.status < 500, `HTTP ${answer.status}: ${answer.text.slice(0, 300)}`);
  assert.doesNotMatch(answer.text, /\bat [\w.<>]+ \(|node_modules|\.ts:\d+/, 'no stack trace');
}

/** Every response of the page router carries the strict policy. */
function assertPageHeaders(answer: RawAnswer): void {
  assert.match(String(answer.headers['content-security-policy']), /default-src 'none'/);
  assert.equal(answer.headers['x-content-type-options'], 'nosniff');
}

const realOrder = fc.oneof(fc.constantFrom(...Array.from({ length: 30 }, (_, i) => i)).map((i) => links[i]!), fc.constantFrom(...Array.from({ length: 30 }, (_, i) => i)).map((i) => vas[i]!));
const value = fc.oneof({ weight: 3, arbitrary: hostileString }, { weight: 2, arbitrary: realOrder }, { weight: 1, arbitrary: fc.constantFrom('id', 'en', 'not-pending', 'method-already-chosen', ...METHOD_CODES, 'BCA', 'pay', 'expire', 'fail') });

/** Values a real page would send for a key. */
const PLAUSIBLE: Record<string, fc.Arbitrary<string>> = {
  orderNum: realOrder,
  method: fc.constantFrom(...METHOD_CODES, 'BCA', 'DANA', 'ALFAMART'),
  action: fc.constantFrom('pay', 'expire', 'fail'),
  lang: fc.constantFrom('id', 'en'),
};

/**
 * A query string or form body: encoded pairs, sometimes with raw malformed escapes or repeats.
 * Half of them are plausible (every key once, in order, with any value) so that some succeed.
 */
function encodedPairs(keys: readonly string[]) {
  const pair = fc.tuple(fc.oneof({ weight: 4, arbitrary: fc.constantFrom(...keys) }, { weight: 1, arbitrary: hostileKey }), value);
  const plausible = fc.tuple(...keys.map((key) => fc.oneof({ weight: 3, arbitrary: PLAUSIBLE[key] ?? value }, { weight: 1, arbitrary: value }).map((v): [string, string] => [key, v])));
  const raw = fc.oneof({ weight: 4, arbitrary: fc.constant(undefined) }, { weight: 1, arbitrary: fc.constantFrom('%ZZ', '%', '&&', '=', '==x', '%E0%A4%A', '%00', '+') });
  return fc
    .tuple(fc.oneof(fc.array(pair, { maxLength: 5 }), plausible), raw)
    .map(([pairs, garbage]) => ({ pairs, text: [...pairs.map(([k, v]) => `${encodeAny(k)}=${encodeAny(v)}`), ...(garbage ? [garbage] : [])].join('&') }));
}

/** No value of the request that carries markup appears unescaped in the answer. */
function assertNotEchoed(answer: RawAnswer, pairs: ReadonlyArray<readonly [string, string]>): void {
  for (const [key, v] of pairs) {
    for (const text of [key, v]) if (looksLikeMarkup(text)) assert.ok(!answer.text.includes(text), `echoed as markup: ${text}`);
  }
}

describe('page routes', () => {
  test('GET /pay with any query', async () => {
    await fc.assert(
      fc.asyncProperty(encodedPairs(['orderNum', 'lang', 'notice', 'v']), fc.option(fc.constantFrom('id', 'en-US,en;q=0.9', '*', 'xx;q=abc'), { nil: undefined }), async ({ pairs, text }, language) => {
        const before = await probe.version();
        const answer = await send(h.url, `/pay?${text}`, { headers: language ? { 'accept-language': language } : {} });
        countCase('GET /pay', answer.status);
        record(answer);
        if (answer.status === 431) return; // Node's own limit on the request line and headers (16 KB)
        assertPageHeaders(answer);
        assert.ok([200, 400, 404].includes(answer.status), `status ${answer.status}`);
        assert.match(String(answer.headers['content-type']), /^text\/html/);
        if (answer.status === 400) assert.match(answer.text, /orderNum/, 'the 400 page names the field');
        assertNotEchoed(answer, pairs);
        assert.equal(await probe.version(), before, 'reading a page changes nothing');
      }),
      fcOptions(600),
    );
    watch.assertClean();
  });

  test('GET /pay/status with any query', async () => {
    await fc.assert(
      fc.asyncProperty(encodedPairs(['orderNum']), async ({ pairs, text }) => {
        const before = await probe.version();
        const answer = await send(h.url, `/pay/status?${text}`);
        countCase('GET /pay/status', answer.status);
        record(answer);
        if (answer.status === 431) return;
        assertPageHeaders(answer);
        assert.ok([200, 400, 404].includes(answer.status), `status ${answer.status}`);
        if (answer.status === 200) assert.match(answer.json.status, /^(PENDING|PAID|EXPIRED|FAILED)$/);
        else assert.match(answer.json.error, /^orderNum: /, 'the refusal names orderNum');
        assertNotEchoed(answer, pairs);
        assert.equal(await probe.version(), before);
      }),
      fcOptions(500),
    );
    watch.assertClean();
  });

  /** Who the POST claims to come from: Sec-Fetch-Site and Origin, as browsers and forgers send them. */
  const provenance = fc.oneof(
    fc.constantFrom({ site: 'same-origin', origin: 'own' }, { site: undefined, origin: 'own' }, { site: undefined, origin: undefined }),
    fc.record({
      site: fc.option(fc.constantFrom('same-origin', 'same-site', 'cross-site', 'none'), { nil: undefined }),
      origin: fc.option(fc.constantFrom('own', 'http://evil.example', 'null', 'other-port', 'garbage'), { nil: undefined }),
    }),
  );

  function provenanceHeaders(p: { site?: string | undefined; origin?: string | undefined }): Record<string, string> {
    const headers: Record<string, string> = {};
    if (p.site) headers['sec-fetch-site'] = p.site;
    if (p.origin === 'own') headers.origin = h.url;
    else if (p.origin === 'other-port') headers.origin = `http://127.0.0.1:${Number(new URL(h.url).port) + 1}`;
    else if (p.origin === 'garbage') headers.origin = '::not a url::';
    else if (p.origin) headers.origin = p.origin;
    return headers;
  }

  /** The gateway's rule: Sec-Fetch-Site must say same-origin; else an Origin must name this host. */
  function crossSite(p: { site?: string | undefined; origin?: string | undefined }): boolean {
    if (p.site) return p.site !== 'same-origin';
    return p.origin !== undefined && p.origin !== 'own';
  }

  function formProperty(path: '/pay/method' | '/pay/method/change' | '/pay/sandbox', keys: readonly string[]) {
    const contentType = fc.oneof({ weight: 5, arbitrary: fc.constant('application/x-www-form-urlencoded') }, { weight: 1, arbitrary: hostileContentType });
    const size = fc.oneof({ weight: 9, arbitrary: fc.constant(0) }, { weight: 1, arbitrary: fc.integer({ min: 4 * 1024, max: 64 * 1024 }) });
    return fc.asyncProperty(encodedPairs(keys), provenance, contentType, size, async ({ pairs, text }, p, type, padding) => {
      const headers = { ...provenanceHeaders(p), ...(type ? { 'content-type': type } : {}) };
      const body = padding ? `${text}&pad=${'x'.repeat(padding)}` : text;
      const before = await probe.version();
      const answer = await send(h.url, path, { method: 'POST', headers, body, fresh: padding > 0 });
      countCase(`POST ${path}`, answer.status);
      record(answer);
      assertPageHeaders(answer);
      const changed = (await probe.version()) !== before;
      if (crossSite(p)) {
        assert.equal(answer.status, 403, 'a cross-site post is refused');
        assert.equal(changed, false);
        return;
      }
      assert.ok([303, 400, 404, 413].includes(answer.status), `status ${answer.status}: ${answer.text.slice(0, 200)}`);
      if (answer.status === 303) {
        const location = String(answer.headers.location);
        // A refusal names its notice; a method fixed sends the page to its instructions.
        assert.match(location, /^\/pay\?orderNum=[A-Za-z0-9]+(&lang=(en|id))?(&notice=[a-z-]+|#method-heading)?$/);
        // A refusal comes back as a notice on the page and changes nothing; otherwise the order moved.
        assert.equal(changed, !location.includes('&notice='), `303 to ${location}`);
        return;
      }
      assert.equal(changed, false, 'a refusal changes nothing');
      if (answer.status === 400) assert.match(answer.text, /(orderNum|method|action|body): /, 'the 400 page names the field');
      assertNotEchoed(answer, pairs);
    });
  }

  test('POST /pay/method with any form, from anywhere', async () => {
    await fc.assert(formProperty('/pay/method', ['orderNum', 'method']), fcOptions(600));
    watch.assertClean();
  });

  test('POST /pay/method/change with any form, from anywhere', async () => {
    await fc.assert(formProperty('/pay/method/change', ['orderNum', 'method', 'lang']), fcOptions(400));
    watch.assertClean();
  });

  test('POST /pay/sandbox with any form, from anywhere', async () => {
    await fc.assert(formProperty('/pay/sandbox', ['orderNum', 'action']), fcOptions(400));
    watch.assertClean();
  });
});

describe('sandbox JSON API', () => {
  const segment = fc.oneof(
    { weight: 2, arbitrary: realOrder },
    { weight: 1, arbitrary: fc.constantFrom('M-TEST-001', '1', '0', '-1', '%ZZ', '%2e%2e', '..', '%00') },
    { weight: 3, arbitrary: hostileString.map((s) => encodeAny(s.slice(0, 300))) },
  );
  const route = fc.oneof(
    fc.tuple(segment, fc.constantFrom('pay', 'expire', 'fail', '')).map(([id, action]) => `/sandbox/orders/${id}${action ? `/${action}` : ''}`),
    fc.constantFrom('/sandbox/clock', '/sandbox/clock/advance', '/sandbox/faults', '/sandbox/deliveries', '/sandbox', '/sandbox/'),
    fc.tuple(fc.constantFrom('orderNum', 'merchantCode', 'platOrderNum', 'limit'), segment).map(([key, v]) => `/sandbox/deliveries?${key}=${v}`),
    segment.map((id) => `/sandbox/deliveries/${id}/resend`),
    fc.tuple(segment, fc.option(segment, { nil: undefined })).map(([code, order]) => `/sandbox/faults/${code}${order ? `/orders/${order}` : ''}`),
  );
  const body = fc.oneof(
    { weight: 2, arbitrary: fc.constant(undefined) },
    { weight: 3, arbitrary: jsonText },
    { weight: 2, arbitrary: fc.record({ minutes: fc.oneof(fc.double(), fc.integer(), hostileString) }, { requiredKeys: [] }).map((v) => JSON.stringify(v)) },
    { weight: 2, arbitrary: fc.constantFrom('{"method":"VA_BCA"}', '{"method":"QRIS"}', '{"notifications":{"drop":true}}', '{"create":{"respond":"UNKNOWN","delayMs":1}}', '{"notifications":{"delayMs":-1}}') },
    { weight: 1, arbitrary: notJsonBody },
  );

  test('any method, path and body', async () => {
    await fc.assert(
      fc.asyncProperty(fc.constantFrom('GET', 'POST', 'PUT', 'DELETE', 'PATCH'), route, body, fc.oneof({ weight: 4, arbitrary: fc.constant(undefined) }, { weight: 1, arbitrary: hostileContentType }), async (method, path, payload, type) => {
        const headers: Record<string, string> = payload === undefined ? {} : { 'content-type': type ?? 'application/json' };
        const before = await probe.version();
        const answer = await send(h.url, path, { method, headers, body: method === 'GET' ? undefined : payload });
        countCase('sandbox API', answer.status);
        record(answer);
        if (answer.status === 431) return;
        assert.match(answer.json?.platRespCode ?? '', /^(SUCCESS|FAIL|NOTEXIST)$/, `${method} ${path}: ${answer.text.slice(0, 200)}`);
        if (answer.status >= 400) {
          assert.equal(await probe.version(), before, `${method} ${path} was refused but changed the store`);
          if (REPEATED_KEY_MESSAGE.test(answer.json.platRespMessage)) return;
          if (answer.status === 400 || answer.status === 415) {
            // A known field and its rule, or an unknown one named (or placeholdered) as unknown; never a quote.
            assert.match(answer.json.platRespMessage, /^(body|path|Content-Type|Content-Encoding|minutes|method|orderNum|merchantCode|platOrderNum|limit|number|notifications|create|id)[\w.]*: |^[^":;]+: is not a field of this request/);
            assert.doesNotMatch(answer.json.platRespMessage, /"/);
          }
        }
      }),
      fcOptions(800),
    );
    watch.assertClean();
  });
});

test('the whole run: no private key in any response or log line; the counts', (t) => {
  const haystack = `${transcript.join('\n')}\n${log.lines.join('')}`;
  for (const keys of [merchantKeys(), platformKeys()]) {
    assert.deepEqual(leakedFragments(haystack, keys.privateKey, keys.publicKey), [], 'a private key leaked');
  }
  const { total, lines } = caseCounts();
  for (const line of lines) t.diagnostic(line);
  t.diagnostic(`hostile cases (gateway pages and sandbox): ${total}`);
  console.log(`[hostile] gateway pages and sandbox: ${total} cases\n  ${lines.join('\n  ')}`);
  assert.ok(total >= runs(2_500), `at least ${runs(2_500)} cases, got ${total}`);
  watch.assertClean();
});
