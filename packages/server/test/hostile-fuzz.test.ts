/**
 * Property-based fuzzing of every route of `payButton()` over real HTTP, against the real gateway:
 * `POST /links`, `POST /va`, `GET /orders/:orderNum`, `POST /notify`, `GET /return`,
 * `GET /return/continue`, and other methods and paths. Hostile bodies (wrong types, huge and
 * control-character strings, `__proto__`/`constructor` keys, price fields, nested objects,
 * repeated keys in the raw text, invalid JSON, wrong content types, oversized bodies), hostile
 * origins, and notifications both forged and signed with the platform key after a mutation.
 *
 * For every case: no 5xx, no unhandled rejection, refusals that name the field, both stores
 * untouched by every refusal, the amount always the catalogue's, a notification acknowledged only
 * when it is genuine and matches the order, `onPaid` at most once per order, no open redirect, and
 * at the end no fragment of a private key in any response, gateway log line or plug-in event.
 */
import assert from 'node:assert/strict';
import { inspect } from 'node:util';
import { after, before, describe, test } from 'node:test';
import fc from 'fast-check';
import { jsonTextProblem, METHOD_CODES } from '@tombolbayar/protocol';
import { sign } from '@tombolbayar/protocol/node';
import { z } from 'zod';
import { returnToken } from '../src/orders/callback-urls.ts';
import { eventually } from '@tombolbayar/test-support/eventually';
import { DATABASE_URL } from './support/engines.ts';
import { MERCHANT_CODE, merchantKeys, platformKeys, strangerKeys } from './support/keys.ts';
import {
  CATALOGUE, caseCounts, countCase, encodeAny, fcOptions, hasMalformedEscape, hostileContentType, hostileKey, hostileString, jsonText, leakedFragments,
  looksLikeMarkup, notJsonBody, objectText, runs, send, startShop, watchProcess, type HostileShop, type RawAnswer,
} from './hostile-support.ts';

const FIELDS = { quantity: z.number().int().min(1).max(10).optional(), note: z.string().max(64).optional() };
const PRICE_KEYS = ['payMoney', 'amount', 'price', 'total', 'payFee', 'discount', 'Amount', 'pay_money'];
const watch = watchProcess();
const transcript: string[] = [];
let shop: HostileShop;

interface RealOrder {
  readonly orderNum: string;
  readonly statusToken: string;
  readonly platOrderNum: string;
  readonly payMoney: string;
}
const orders: RealOrder[] = [];

let keySequence = 0;
const freshKey = () => `hostile-${process.pid}-${(keySequence += 1).toString(36).padStart(8, '0')}`;

before(async () => {
  shop = await startShop({ options: { fields: FIELDS } });
  // The gateway's own notifications are held back: the fuzzer delivers every notification itself.
  const held = await fetch(`${shop.gatewayUrl}/sandbox/faults/${MERCHANT_CODE}`, {
    method: 'PUT', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ notifications: { delayMs: 3_600_000 } }),
  });
  assert.equal(held.status, 200);
  for (let i = 0; i < 20; i++) {
    const item = i % 2 ? 'kopi' : 'teh';
    const created = await call('/links', { method: 'POST', headers: { 'content-type': 'application/json', origin: shop.merchantUrl }, body: JSON.stringify({ idempotencyKey: freshKey(), item, ...(i % 3 ? { returnTo: `${shop.merchantUrl}/checkout` } : {}) }) });
    assert.equal(created.status, 201, created.text);
    const order = await shop.gateway.findOrderByOrderNum(MERCHANT_CODE, created.json.orderNum);
    orders.push({ orderNum: created.json.orderNum, statusToken: created.json.statusToken, platOrderNum: order!.platOrderNum, payMoney: String(CATALOGUE[item]) });
    // A quarter of the orders are really paid at the gateway: only their "paid" can be confirmed.
    if (i % 4 === 0) {
      const paid = await fetch(`${shop.gatewayUrl}/sandbox/orders/${encodeURIComponent(order!.platOrderNum)}/pay`, {
        method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ method: 'VA_BCA' }),
      });
      assert.equal(paid.status, 200, await paid.text());
    }
  }
});
after(async () => {
  watch.stop();
  await shop.close();
});

function record(answer: RawAnswer): void {
  transcript.push(answer.text, String(answer.headers.location ?? ''));
  assert.ok(answer.status < 500, `HTTP ${answer.status}: ${answer.text.slice(0, 300)}`);
  assert.doesNotMatch(answer.text, /\bat [\w.<>]+ \(|node_modules|\.ts:\d+/, 'no stack trace');
}

/** A request to a route of the router (paths relative to its mount, sent verbatim). */
const call = (path: string, options: Parameters<typeof send>[2] = {}) => send(shop.merchantUrl, `/pay${path}`, options);

async function versions(): Promise<string> {
  return `${await shop.shopProbe.version()}/${await shop.gatewayProbe.version()}`;
}

/** Where a browser request says it comes from. */
const provenance = fc.oneof(
  { weight: 6, arbitrary: fc.constant({ origin: 'own' as const }) },
  { weight: 1, arbitrary: fc.constantFrom({ origin: 'none' as const }, { origin: 'evil' as const }, { origin: 'null' as const }, { origin: 'cross-site' as const }, { origin: 'other-port' as const }) },
);
type Provenance = { origin: 'own' | 'none' | 'evil' | 'null' | 'cross-site' | 'other-port' };

function provenanceHeaders(p: Provenance): Record<string, string> {
  switch (p.origin) {
    case 'own': return { origin: shop.merchantUrl };
    case 'evil': return { origin: 'https://evil.example' };
    case 'null': return { origin: 'null' };
    case 'cross-site': return { 'sec-fetch-site': 'cross-site' };
    case 'other-port': return { origin: `http://127.0.0.1:${Number(new URL(shop.merchantUrl).port) + 1}` };
    default: return {};
  }
}
const refusedOrigin = (p: Provenance) => p.origin !== 'own' && p.origin !== 'none';

// ---------------------------------------------------------------------------------------------
// POST /links and POST /va

const plausibleValue = fc.constantFrom('"kopi"', '"teh"', '"VA_BCA"', '"QRIS"', '"BCA"', 'null', '2', '"a note"', JSON.stringify('x'.repeat(20)));
const value = fc.oneof({ weight: 4, arbitrary: hostileString.map((s) => JSON.stringify(s)) }, { weight: 2, arbitrary: jsonText }, { weight: 2, arbitrary: plausibleValue });

function createProperty(path: '/links' | '/va') {
  const own = path === '/links' ? ['idempotencyKey', 'item', 'method', 'returnTo', 'quantity', 'note'] : ['idempotencyKey', 'item', 'method', 'quantity', 'note'];
  const key = fc.oneof({ weight: 4, arbitrary: fc.constantFrom(...own) }, { weight: 1, arbitrary: fc.constantFrom(...PRICE_KEYS) }, { weight: 1, arbitrary: hostileKey });
  const mutation = fc.record({
    item: fc.constantFrom('kopi', 'teh'),
    method: path === '/va' ? fc.constantFrom('VA_BCA', 'QRIS', 'BNI', 'RETAIL_ALFAMART') : fc.constantFrom(undefined, null, 'VA_MANDIRI', 'DANA'),
    drops: fc.subarray(own, { maxLength: 1 }),
    sets: fc.array(fc.tuple(key, value), { maxLength: 3 }),
    dups: fc.array(fc.tuple(fc.constantFrom(...own), value), { maxLength: 1 }),
  });
  const shape = fc.oneof({ weight: 8, arbitrary: mutation.map((m) => ({ kind: 'object' as const, m })) }, { weight: 1, arbitrary: notJsonBody.map((text) => ({ kind: 'raw' as const, text })) });
  const contentType = fc.oneof({ weight: 8, arbitrary: fc.constant('application/json') }, { weight: 1, arbitrary: hostileContentType });
  const size = fc.oneof({ weight: 15, arbitrary: fc.constant(0) }, { weight: 1, arbitrary: fc.integer({ min: 8 * 1024, max: 100 * 1024 }) });

  return fc.asyncProperty(shape, provenance, contentType, size, async (body, p, type, padding) => {
    let text: string;
    const changed = new Set<string>();
    if (body.kind === 'raw') text = body.text;
    else {
      const { m } = body;
      const entries: Array<[string, string]> = [['idempotencyKey', JSON.stringify(freshKey())], ['item', JSON.stringify(m.item)]];
      if (m.method !== undefined) entries.push(['method', JSON.stringify(m.method)]);
      if (path === '/links' && padding === 0) entries.push(['returnTo', JSON.stringify(`${shop.merchantUrl}/checkout`)]);
      for (const dropped of m.drops) {
        const at = entries.findIndex(([k]) => k === dropped);
        if (at >= 0) entries.splice(at, 1);
        changed.add(dropped);
      }
      for (const [k, v] of m.sets) {
        const at = entries.findIndex(([existing]) => existing === k);
        if (at >= 0) entries[at] = [k, v];
        else entries.push([k, v]);
        changed.add(k);
      }
      for (const [k, v] of m.dups) {
        entries.push([k, v]);
        changed.add(k);
      }
      if (padding) entries.push(['note', JSON.stringify('x'.repeat(padding))]);
      text = objectText(entries);
    }
    const headers = { ...provenanceHeaders(p), ...(type === undefined ? {} : { 'content-type': type }) };
    const before = await versions();
    const answer = await call(path, { method: 'POST', headers, body: text, fresh: padding > 0 });
    countCase(`POST ${path}`, answer.status);
    record(answer);
    const unchanged = async (why: string) => assert.equal(await versions(), before, why);

    if (refusedOrigin(p)) {
      assert.equal(answer.status, 403, 'another site is refused');
      assert.equal(answer.json.error.code, 'origin_not_allowed');
      return unchanged('a refused origin stores nothing');
    }
    // JSON (or +json), UTF-8 or no charset: anything else is a 415 before the body is read.
    const media = (type ?? '').split(';')[0]!.trim().toLowerCase();
    const charset = /;\s*charset\s*=\s*"?([^";\s]*)/i.exec(type ?? '')?.[1]?.toLowerCase();
    const readable = (media === 'application/json' || media.endsWith('+json')) && (charset === undefined || charset === 'utf-8' || charset === 'utf8');
    if (!readable) {
      assert.equal(answer.status, 415, `Content-Type ${type}`);
      return unchanged('a refused content type stores nothing');
    }
    if (answer.status === 201) {
      const parsed = JSON.parse(text) as Record<string, unknown>;
      const unknown = Object.keys(parsed).filter((k) => !own.includes(k));
      assert.deepEqual(unknown, [], 'only known fields are accepted');
      const order = await shop.gateway.findOrderByOrderNum(MERCHANT_CODE, answer.json.orderNum);
      assert.equal(order?.payMoney, CATALOGUE[String(parsed.item)], 'the gateway got the catalogue price, never one from the browser');
      if (path === '/va') assert.equal(answer.json.payMoney, String(CATALOGUE[String(parsed.item)]));
      return;
    }
    await unchanged(`a ${answer.status} stored something`);
    assert.match(String(answer.json?.error?.code), /^(invalid_request|payload_too_large|unsupported_media_type|not_for_sale|idempotency_mismatch)$/, answer.text.slice(0, 300));
    if (answer.status === 400) {
      const issues: Array<{ field: string; message: string }> = answer.json.error.issues;
      // A key repeated anywhere in the text is refused before anything else, naming that key.
      if (issues.length === 1 && issues[0]!.message === 'must appear only once') return;
      // A text nested past MAX_JSON_DEPTH is refused before it is parsed, naming the body.
      if (issues.length === 1 && issues[0]!.field === 'body' && /^must not nest objects or arrays/.test(issues[0]!.message)) {
        assert.equal(jsonTextProblem(text)?.kind, 'too_deep', 'refused as too deep only when it is');
        return;
      }
      const named: string[] = issues.map((issue) => issue.field);
      assert.ok(named.length > 0, 'the refusal names fields');
      if (body.kind === 'object') {
        const parsed = JSON.parse(text) as Record<string, unknown>;
        // The one nameless field is the empty key, named as itself.
        assert.ok(named.every((field) => field !== '' || Object.prototype.hasOwnProperty.call(parsed, '')), 'every issue names a field');
        for (const k of Object.keys(parsed).filter((candidate) => !own.includes(candidate))) assert.ok(named.includes(k), `the unknown field ${k} is named: ${answer.text.slice(0, 300)}`);
        assert.ok(named.some((field) => changed.has(field) || changed.has(field.split('.')[0]!) || field === 'body'), `names a field the case changed (${[...changed].join(', ')}): ${answer.text.slice(0, 300)}`);
      }
    }
  });
}

describe('browser routes that create orders', () => {
  test('POST /links', async () => {
    await fc.assert(createProperty('/links'), fcOptions(1200));
    watch.assertClean();
  });
  test('POST /va', async () => {
    await fc.assert(createProperty('/va'), fcOptions(600));
    watch.assertClean();
  });
});

// ---------------------------------------------------------------------------------------------
// GET /orders/:orderNum

/** A string fetch accepts as a header value (no control characters, no code points above U+00FF). */
function validHeaderValue(value: string): boolean {
  return /^[\x20-\x7e\x80-\xff]*$/.test(value) && value.trim() === value;
}

describe('GET /orders/:orderNum', () => {
  test('any order number, token and origin', async () => {
    const index = fc.nat({ max: 19 });
    const segment = fc.oneof(
      { weight: 3, arbitrary: index.map((i) => ({ real: i, text: orders[i]!.orderNum })) },
      { weight: 2, arbitrary: hostileString.filter((s) => s.length > 0).map((s) => ({ real: -1, text: encodeAny(s.slice(0, 500)) })) },
      { weight: 1, arbitrary: fc.constantFrom('%ZZ', 'PB%', '%E0%A4%A', '%00', '..%2F..', '%2e%2e').map((text) => ({ real: -1, text })) },
    );
    const token = fc.oneof(
      { weight: 3, arbitrary: fc.constant('right') },
      { weight: 1, arbitrary: index.map((i) => orders[i]!.statusToken) },
      { weight: 2, arbitrary: hostileString.map((s) => s.slice(0, 200)).filter(validHeaderValue) },
      { weight: 1, arbitrary: fc.constantFrom('', 'a, b', 'x'.repeat(43), '%ZZ') },
    );
    await fc.assert(
      fc.asyncProperty(segment, token, provenance, async (s, t, p) => {
        const real = s.real >= 0 ? orders[s.real]! : undefined;
        const token = t === 'right' ? (real ? real.statusToken : 'x') : t;
        // The token in the query string as well: it must never count there.
        const path = `/orders/${s.text}?token=${encodeURIComponent(real?.statusToken ?? 'x')}`;
        const before = await versions();
        const answer = await call(path, { headers: { ...provenanceHeaders(p), 'Tombolbayar-Status-Token': token } });
        countCase('GET /orders/:orderNum', answer.status);
        record(answer);
        assert.equal(await versions(), before, 'reading a status changes nothing here (statusRefreshMs: false)');
        assert.equal(answer.headers['cache-control'], 'no-store');
        // A path the router cannot even decode is refused before the origin is looked at.
        if (refusedOrigin(p)) return assert.equal(answer.status, hasMalformedEscape(s.text) ? 404 : 403);
        const allowed = real !== undefined && token === real.statusToken;
        if (allowed) {
          assert.equal(answer.status, 200, answer.text);
          assert.equal(answer.json.orderNum, real.orderNum);
          return;
        }
        assert.ok([400, 404].includes(answer.status), `${path}: ${answer.status} ${answer.text.slice(0, 200)}`);
        if (answer.status === 400) assert.ok(answer.json.error.issues.length > 0, 'a 400 names the field');
        if (answer.status === 404) assert.equal(answer.json.error.code, 'not_found');
      }),
      fcOptions(800),
    );
    watch.assertClean();
  });
});

// ---------------------------------------------------------------------------------------------
// POST /notify

const NOTIFY_FIELDS = ['code', 'msg', 'status', 'method', 'name', 'email', 'orderNum', 'platOrderNum', 'payMoney', 'payFee', 'vaNumber', 'merchantCode'];
const REJECTED = /^(REJECTED (bad_signature|invalid_fields|not_matched|not_confirmed|unreadable_body): |RETRY: )/;

function genuineFields(order: RealOrder): Record<string, string> {
  return {
    code: '00', msg: 'SUCCESS', status: 'SUCCESS', method: 'VA_BCA', name: 'Budi Santoso', email: 'budi@example.com',
    orderNum: order.orderNum, platOrderNum: order.platOrderNum, payMoney: order.payMoney, payFee: '4000', vaNumber: '3901012345678901',
  };
}

describe('POST /notify', () => {
  test('forged, tampered, malformed and genuine notifications', async () => {
    const notifyValue = fc.oneof(
      { weight: 4, arbitrary: hostileString },
      { weight: 2, arbitrary: fc.constantFrom('00', '01', '02', 'SUCCESS', 'FAILED', 'EXPIRED', '150000', '50000', '0150000', '4000', ...METHOD_CODES, MERCHANT_CODE, 'OTHER-MERCHANT') },
    );
    const mutation = fc.record({
      order: fc.nat({ max: 19 }),
      signer: fc.constantFrom('platform', 'platform', 'platform', 'stranger', 'none'),
      encoding: fc.constantFrom('form', 'form', 'json', 'text'),
      drops: fc.subarray(NOTIFY_FIELDS, { maxLength: 1 }),
      sets: fc.array(fc.tuple(fc.oneof({ weight: 4, arbitrary: fc.constantFrom(...NOTIFY_FIELDS) }, { weight: 1, arbitrary: hostileKey }), notifyValue), { maxLength: 2 }),
      dup: fc.option(fc.constantFrom(...NOTIFY_FIELDS), { freq: 8, nil: undefined }),
    });
    const raw = fc.record({ text: notJsonBody, type: hostileContentType });
    const shape = fc.oneof({ weight: 6, arbitrary: mutation.map((m) => ({ kind: 'fields' as const, m })) }, { weight: 1, arbitrary: raw.map((r) => ({ kind: 'raw' as const, ...r })) });

    await fc.assert(
      fc.asyncProperty(shape, async (shape) => {
        let text: string;
        let type: string | undefined;
        let platformSigned = false;
        let fields: Record<string, string> | undefined;
        if (shape.kind === 'raw') {
          text = shape.text;
          type = shape.type;
        } else {
          const { m } = shape;
          fields = genuineFields(orders[m.order]!);
          for (const dropped of m.drops) delete fields[dropped];
          for (const [k, v] of m.sets) Object.defineProperty(fields, k, { value: v, enumerable: true, writable: true, configurable: true });
          const signed = { ...fields };
          if (m.signer !== 'none') signed.platSign = sign(fields, (m.signer === 'platform' ? platformKeys() : strangerKeys()).privateKey);
          platformSigned = m.signer === 'platform';
          const entries = Object.entries(signed);
          const repeated = m.dup !== undefined && fields[m.dup] !== undefined;
          if (repeated) entries.push([m.dup!, `${fields[m.dup!]}x`]);
          if (m.encoding === 'json') {
            text = objectText(entries.map(([k, v]) => [k, JSON.stringify(v)]));
            type = 'application/json';
          } else {
            text = entries.map(([k, v]) => `${encodeAny(k)}=${encodeAny(v)}`).join('&');
            type = m.encoding === 'text' ? 'text/plain' : 'application/x-www-form-urlencoded';
          }
          // A repeated form field is refused; a repeated JSON key leaves the last (unsigned) value.
          if (repeated) platformSigned = false;
        }
        const paidBefore = new Set(shop.onPaidCalls);
        const before = await versions();
        const answer = await call('/notify', { method: 'POST', headers: type === undefined ? {} : { 'content-type': type }, body: text });
        countCase('POST /notify', answer.status);
        record(answer);
        if (answer.status === 200) {
          assert.equal(answer.text, 'SUCCESS');
          assert.ok(platformSigned, 'only a notification signed by the platform is acknowledged');
          const order = orders.find((candidate) => candidate.orderNum === fields!.orderNum)!;
          assert.ok(order, 'it names one of our orders');
          assert.equal(fields!.payMoney, order.payMoney, 'an acknowledged notification carries the order amount');
          assert.equal(fields!.platOrderNum, order.platOrderNum);
          const atGateway = await shop.gateway.findOrderByOrderNum(MERCHANT_CODE, order.orderNum);
          assert.equal(atGateway?.status, 'PAID', 'only what the gateway confirms is acknowledged');
          return;
        }
        assert.match(answer.text, REJECTED, answer.text.slice(0, 200));
        assert.equal(await versions(), before, `a rejected notification changed a store: ${answer.text.slice(0, 200)}`);
        assert.deepEqual(new Set(shop.onPaidCalls), paidBefore, 'no onPaid for a rejected notification');
        if (answer.text.startsWith('REJECTED invalid_fields: ')) {
          assert.match(answer.text.slice('REJECTED invalid_fields: '.length), /^([A-Za-z_][\w.]*: |code and status together report no outcome$)/, 'names the field');
        }
      }),
      fcOptions(1200),
    );
    const calls = shop.onPaidCalls;
    assert.equal(new Set(calls).size, calls.length, 'onPaid ran at most once per order');
    for (const order of orders) {
      const stored = await shop.router.getOrder(order.orderNum);
      if (stored?.status === 'paid') assert.ok(calls.includes(order.orderNum), `${order.orderNum} is paid and was fulfilled`);
      else assert.ok(!calls.includes(order.orderNum));
      const atGateway = await shop.gateway.findOrderByOrderNum(MERCHANT_CODE, order.orderNum);
      if (atGateway?.status !== 'PAID') assert.notEqual(stored?.status, 'paid', `${order.orderNum} is pending at the gateway, so it is not paid here`);
    }
    watch.assertClean();
  });
});

// ---------------------------------------------------------------------------------------------
// GET /return, GET /return/continue, other methods and paths

function safeDecode(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}

describe('return routes and the rest', () => {
  test('GET /return and /return/continue: no open redirect, no status token in a page or a URL', async () => {
    const index = fc.nat({ max: 19 });
    const order = fc.oneof({ weight: 2, arbitrary: index.map((i) => i) }, { weight: 1, arbitrary: fc.constant(-1) });
    const rt = fc.oneof({ weight: 2, arbitrary: fc.constant('right') }, { weight: 1, arbitrary: index.map((i) => `rt=${returnToken(orders[i]!.statusToken)}`) }, { weight: 2, arbitrary: hostileString.map((s) => `rt=${encodeAny(s.slice(0, 300))}`) }, { weight: 1, arbitrary: fc.constantFrom('', 'rt[]=x', 'rt=a&rt=b', 'rt=%ZZ') });
    const hostileOrder = hostileString.map((s) => encodeAny(s.slice(0, 300)));
    await fc.assert(
      fc.asyncProperty(fc.constantFrom('/return', '/return/continue'), order, hostileOrder, rt, fc.option(fc.constantFrom('returnTo=https%3A%2F%2Fevil.example%2F', 'next=//evil.example', 'order=PB1'), { nil: undefined }), async (route, i, junk, r, extra) => {
        const real = i >= 0 ? orders[i]! : undefined;
        const secret = r === 'right' ? (real ? `rt=${returnToken(real.statusToken)}` : '') : r;
        const query = [`order=${real ? real.orderNum : junk}`, secret, extra].filter(Boolean).join('&');
        const returnedWithSecret = real !== undefined && route === '/return' && secret === `rt=${returnToken(real.statusToken)}`;
        const stored = returnedWithSecret && !(extra ?? '').startsWith('order=') ? await shop.router.getOrder(real.orderNum) : undefined;
        const asksGateway = stored?.status === 'pending' && stored.method === null;
        const before = await versions();
        const answer = await call(`${route}?${query}`);
        countCase(`GET ${route}`, answer.status);
        record(answer);
        if (asksGateway) {
          // The return page asks the gateway about the order it names (holding its secret) and
          // records what the gateway confirms, possibly just after answering: wait for that, and
          // allow only that change.
          const atGateway = await shop.gateway.findOrderByOrderNum(MERCHANT_CODE, real!.orderNum);
          if (atGateway?.status === 'PAID') await eventually(async () => (await shop.router.getOrder(real!.orderNum))?.status === 'paid' || undefined, 20_000, `${real!.orderNum} recorded paid`);
          else assert.equal(await versions(), before, 'a pending order stays as it was');
        } else {
          assert.equal(await versions(), before);
        }
        const decoded = safeDecode(junk);
        if (!real && looksLikeMarkup(decoded)) assert.ok(!answer.text.includes(decoded), 'no markup echoed');
        if (real && route === '/return') assert.ok(!answer.text.includes(real.statusToken), 'the status token is never in the return page');
        if (answer.status === 303) {
          const location = new URL(String(answer.headers.location));
          assert.equal(location.origin, shop.merchantUrl, `never redirects off the shop: ${location.href}`);
          for (const order of orders) assert.ok(!location.href.includes(order.statusToken), 'a status token is never put in a URL');
          const rightSecret = real !== undefined && secret === `rt=${returnToken(real.statusToken)}` && !(extra ?? '').startsWith('order=');
          // Where the customer came from is told only to the holder of the order's own return link.
          if (!rightSecret) assert.equal(location.pathname, '/', `without the order's secret, the shop's root: ${location.href}`);
          return;
        }
        assert.ok([200, 400, 404].includes(answer.status), `${route}?${query.slice(0, 200)}: ${answer.status}`);
      }),
      fcOptions(500),
    );
    watch.assertClean();
  });

  test('other methods and paths under the mount', async () => {
    const path = fc.oneof(
      fc.constantFrom('/links', '/va', `/orders/x`, '/notify', '/return', '/return.js', '/pay-button.js', '/', '/links/', '/admin', '/%ZZ', '/orders/', '/orders/a/b'),
      hostileString.map((s) => `/${encodeAny(s.slice(0, 300))}`),
    );
    await fc.assert(
      fc.asyncProperty(fc.constantFrom('GET', 'PUT', 'PATCH', 'DELETE', 'OPTIONS', 'HEAD'), path, provenance, async (method, target, p) => {
        const before = await versions();
        const answer = await call(target, { method, headers: { ...provenanceHeaders(p), 'content-type': 'application/json' }, ...(method === 'GET' || method === 'HEAD' ? {} : { body: '{}' }) });
        countCase('other methods and paths', answer.status);
        record(answer);
        assert.equal(await versions(), before);
      }),
      fcOptions(200),
    );
    watch.assertClean();
  });
});

// ---------------------------------------------------------------------------------------------

describe('on PostgreSQL', { skip: DATABASE_URL ? false : 'DATABASE_URL is not set' }, () => {
  test('POST /links and POST /va with the plug-in on PostgreSQL', async () => {
    const sqliteShop = shop;
    shop = await startShop({ engine: 'postgres', options: { fields: FIELDS } });
    try {
      await fc.assert(createProperty('/links'), fcOptions(200));
      await fc.assert(createProperty('/va'), fcOptions(100));
    } finally {
      transcript.push(...shop.gatewayLog, inspect(shop.events, { depth: 8 }));
      await shop.close();
      shop = sqliteShop;
    }
    watch.assertClean();
  });
});

test('the whole run: no private key in any response, log line or event; the counts', (t) => {
  const haystack = [...transcript, ...shop.gatewayLog, inspect(shop.events, { depth: 10, maxStringLength: Infinity })].join('\n');
  assert.ok(shop.gatewayLog.length > 100, 'the gateway logged the run');
  assert.ok(shop.events.length > 100, 'the plug-in emitted events');
  for (const keys of [merchantKeys(), platformKeys(), strangerKeys()]) {
    assert.deepEqual(leakedFragments(haystack, keys.privateKey, keys.publicKey), [], 'a private key leaked');
  }
  const { total, lines } = caseCounts();
  for (const line of lines) t.diagnostic(line);
  t.diagnostic(`hostile cases (plug-in): ${total}`);
  console.log(`[hostile] plug-in: ${total} cases\n  ${lines.join('\n  ')}`);
  assert.ok(total >= runs(4_000), `at least ${runs(4_000)} cases, got ${total}`);
  watch.assertClean();
});
