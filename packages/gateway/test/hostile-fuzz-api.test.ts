/**
 * Property-based fuzzing of the merchant API (`/gateway/pay`, `/gateway/prepaidOrder`,
 * `/gateway/query`) over real HTTP against the real app: signed requests with hostile fields
 * (wrong types, huge and control-character strings, `__proto__` keys, nested objects, repeated
 * keys in the raw JSON text, missing fields), unsigned garbage, invalid JSON, wrong content types
 * and encodings, oversized bodies and wrong methods.
 *
 * For every case: no 5xx, a JSON answer whose `platSign` verifies, a refusal that names the
 * field(s) it refuses (when the signature held, one of the fields the case changed), the store
 * untouched by every refusal (SQLite `data_version`), a SUCCESS stored exactly once, and nothing
 * escaping as an unhandled rejection. At the end the whole transcript and the gateway's debug log
 * are searched for fragments of the private keys.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import fc from 'fast-check';
import { METHOD_CODES, sign, verify } from '@tombolbayar/protocol/node';
import { fieldLabel } from '../src/http/authenticate.ts';
import { linkRequest, vaRequest, uniqueOrderNum } from './support/client.ts';
import { ENGINES, type EngineName } from './support/engines.ts';
import { startHarness, type Harness } from './support/harness.ts';
import { merchantKeys, platformKeys } from './support/keys.ts';
import {
  REPEATED_KEY_MESSAGE, caseCounts, looksLikeMarkup, captureLogger, countCase, encodeAny, runs, fcOptions, hostileContentType, hostileKey, hostileString, jsonText, leakedFragments, notJsonBody,
  objectText, postJsonText, send, postgresProbe, sqliteProbe, watchProcess, type CapturedLogger, type RawAnswer, type StoreProbe,
} from './hostile-support.ts';

type Endpoint = 'pay' | 'prepaidOrder' | 'query';

/** The gateway under attack and a probe on its store. */
interface Target {
  readonly h: Harness;
  readonly probe: StoreProbe;
  /** An order the query cases look for. */
  readonly existing: { orderNum: string; platOrderNum: string };
}

let log: CapturedLogger;
let sqlite: Target;
const transcript: string[] = [];
const watch = watchProcess();
/** Signed creates the gateway accepted (the rest were refused). */
let accepted = 0;
const TABLES = ['merchants', 'orders', 'notifications', 'delivery_attempts', 'sandbox_faults'];

async function startTarget(engine: EngineName, logger?: CapturedLogger['logger']): Promise<Target> {
  const h = await startHarness(engine, { logger: logger ?? false, notifications: { worker: false }, expirySweepIntervalMs: 3_600_000 });
  const created = await h.client.createVa();
  const database = h.store.database;
  const probe = database.kind === 'sqlite' ? sqliteProbe(database.file) : await postgresProbe(database.url, database.schema!, TABLES);
  return { h, probe, existing: { orderNum: created.body.orderNum!, platOrderNum: created.body.platOrderNum! } };
}

async function stopTarget(target: Target | undefined): Promise<void> {
  await target?.probe.close();
  await target?.h.stop();
}

before(async () => {
  log = captureLogger();
  sqlite = await startTarget('sqlite', log.logger);
});
after(async () => {
  watch.stop();
  await stopTarget(sqlite);
});

/** Fields named by a refusal message: `field: rule; field: rule`. */
function namedFields(message: string): Array<string | null> {
  // A field name is whatever precedes the first ": " (hostile keys such as "," or "" are named as
  // sent); null for a part that names nothing.
  return message.split('; ').map((segment) => (segment.includes(': ') ? segment.slice(0, segment.indexOf(': ')) : null));
}

function record(answer: RawAnswer): void {
  transcript.push(answer.text);
  assert.ok(answer.status < 500, `HTTP ${answer.status}: ${answer.text.slice(0, 300)}`);
  assert.doesNotMatch(answer.text, /\bat [\w.<>]+ \(|node_modules|\.ts:\d+/, 'no stack trace');
}

/** Every JSON answer of the API is a signed `{platRespCode, platRespMessage, ...}`. */
function assertSignedAnswer(h: Harness, answer: RawAnswer): Record<string, string> {
  const body = answer.json as Record<string, string>;
  assert.equal(typeof body, 'object', `not JSON: ${answer.text.slice(0, 200)}`);
  assert.match(body.platRespCode ?? '', /^(SUCCESS|FAIL|NOTEXIST)$/, answer.text.slice(0, 300));
  const { platSign, ...fields } = body;
  assert.ok(verify(fields, platSign, h.gateway.platformPublicKey), 'platSign verifies');
  return body;
}

// ---------------------------------------------------------------------------------------------
// Signed requests with hostile fields

const REQUEST_FIELDS: Record<Endpoint, readonly string[]> = {
  pay: ['merchantCode', 'method', 'orderNum', 'payMoney', 'productDetail', 'name', 'email', 'phone', 'notifyUrl', 'expiryPeriod', 'dateTime'],
  prepaidOrder: ['merchantCode', 'method', 'orderNum', 'payMoney', 'productDetail', 'name', 'email', 'phone', 'notifyUrl', 'redirectUrl', 'expiryPeriod', 'dateTime'],
  query: ['merchantCode', 'orderNum', 'platOrderNum', 'queryType', 'dateTime'],
};

/** Values for a field: hostile ones, and plausible ones so that combinations sometimes succeed. */
const fieldValue: fc.Arbitrary<string> = fc.oneof(
  { weight: 5, arbitrary: hostileString.map((s) => JSON.stringify(s)) },
  { weight: 2, arbitrary: jsonText },
  { weight: 2, arbitrary: fc.constantFrom(...METHOD_CODES, 'BCA', 'DANA', '150000', '1000', '60', '7200', '081234567890', 'a@b.co', 'http://127.0.0.1:9/x').map((s) => JSON.stringify(s)) },
);

interface Mutation {
  readonly drops: string[];
  readonly sets: Array<[string, string]>;
  readonly dups: Array<[string, string]>;
  readonly signMode: 'valid' | 'missing' | 'garbage' | 'stranger';
}

const mutation = (fields: readonly string[], fieldValue: fc.Arbitrary<string>): fc.Arbitrary<Mutation> =>
  fc.record({
    drops: fc.subarray([...fields], { maxLength: 2 }),
    sets: fc.array(fc.tuple(fc.oneof({ weight: 4, arbitrary: fc.constantFrom(...fields) }, { weight: 1, arbitrary: hostileKey }), fieldValue), { maxLength: 3 }),
    dups: fc.array(fc.tuple(fc.constantFrom(...fields), fieldValue), { maxLength: 1 }),
    signMode: fc.constantFrom('valid', 'valid', 'valid', 'valid', 'missing', 'garbage', 'stranger'),
  });

function baseFields({ h, existing }: Target, endpoint: Endpoint, withPlat: boolean): Record<string, string | null | undefined> {
  if (endpoint === 'pay') return vaRequest(h.merchant.merchantCode, { orderNum: uniqueOrderNum('FZ') });
  if (endpoint === 'prepaidOrder') return linkRequest(h.merchant.merchantCode, { orderNum: uniqueOrderNum('FZ') });
  return { merchantCode: h.merchant.merchantCode, orderNum: existing.orderNum, ...(withPlat ? { platOrderNum: existing.platOrderNum } : {}), queryType: 'ORDER_QUERY', dateTime: vaRequest('x').dateTime };
}

/** The raw JSON text of the mutated request, and what the server will parse it into. */
function build(target: Target, endpoint: Endpoint, m: Mutation, withPlat: boolean) {
  const { h } = target;
  const entries: Array<[string, string]> = Object.entries(baseFields(target, endpoint, withPlat))
    .filter(([key, value]) => value !== undefined && !m.drops.includes(key))
    .map(([key, value]) => [key, JSON.stringify(value)]);
  for (const [key, value] of m.sets) {
    const at = entries.findIndex(([existingKey]) => existingKey === key);
    if (at >= 0) entries[at] = [key, value];
    else entries.push([key, value]);
  }
  entries.push(...m.dups);
  const changed = new Set([...m.drops, ...m.sets.map(([key]) => key), ...m.dups.map(([key]) => key)]);
  const parsed = JSON.parse(objectText(entries)) as Record<string, unknown>;
  let signedOk = false;
  if (!Object.prototype.hasOwnProperty.call(parsed, 'sign') && m.signMode !== 'missing') {
    let signature = 'QUJD' + 'A'.repeat(168);
    if (m.signMode !== 'garbage') {
      try {
        signature = sign(parsed as Record<string, string>, m.signMode === 'valid' ? h.merchant.privateKey : merchantKeys('stranger').privateKey);
        signedOk = m.signMode === 'valid';
      } catch {
        // A value that cannot be signed (an object, a boolean): the request goes out with garbage.
      }
    }
    entries.push(['sign', JSON.stringify(signature)]);
  }
  if (!signedOk) changed.add('sign');
  return { text: objectText(entries), parsed, changed, signedOk };
}

function signedProperty(target: Target, endpoint: Endpoint, values: fc.Arbitrary<string> = fieldValue) {
  const { h, probe } = target;
  return fc.asyncProperty(mutation(REQUEST_FIELDS[endpoint], values), fc.boolean(), async (m, withPlat) => {
    const { text, parsed, changed } = build(target, endpoint, m, withPlat);
    const before = await probe.version();
    const answer = await postJsonText(h.url, `/gateway/${endpoint}`, text);
    countCase(`POST /gateway/${endpoint} (signed, hostile fields${h.store.engine === 'postgres' ? ', PostgreSQL' : ''})`, answer.status);
    record(answer);
    const body = assertSignedAnswer(h, answer);
    const stored = (await probe.version()) !== before;
    if (body.platRespCode === 'SUCCESS') {
      if (endpoint === 'query') {
        assert.equal(stored, false, 'a query changes nothing');
        // The order asked for (an earlier case may have created one with a fuzzed orderNum).
        if (typeof parsed.orderNum === 'string') assert.equal(body.orderNum, parsed.orderNum);
        if (typeof parsed.platOrderNum === 'string') assert.equal(body.platOrderNum, parsed.platOrderNum);
        return;
      }
      assert.ok(stored, 'a created order is stored');
      accepted += 1;
      // A whole JSON number is a family client's way of writing the text (issue 22): stored as its decimal text.
      const orderNum = typeof parsed.orderNum === 'number' ? String(parsed.orderNum) : parsed.orderNum;
      assert.equal(await probe.count('orders', 'merchant_code = ? AND order_num = ?', h.merchant.merchantCode, orderNum), 1);
      await assertPageEscapes(h, body, parsed);
      return;
    }
    assert.equal(stored, false, `a refusal stored something: ${body.platRespMessage}`);
    if (endpoint === 'query' && body.platRespCode === 'NOTEXIST' && /^no order with/.test(body.platRespMessage!)) return;
    // A key repeated anywhere in the text, nested ones included, is refused before anything else.
    if (REPEATED_KEY_MESSAGE.test(body.platRespMessage!)) return;
    const named = namedFields(body.platRespMessage!);
    assert.ok(named.every((field) => field !== null), `every part of the refusal names a field: ${body.platRespMessage}`);
    // A changed field with an unusual name is named by a placeholder (`fieldLabel`), never echoed.
    const allowed = new Set([...changed, ...[...changed].map(fieldLabel), 'sign', 'body']);
    assert.ok(
      named.some((field) => field !== null && (allowed.has(field) || allowed.has(field.split('.')[0]!))),
      `the refusal names a field the case changed (${[...changed].join(', ')}): ${body.platRespMessage}`,
    );
  });
}

/** Stored markup from a successful create is shown as text on the hosted page. */
async function assertPageEscapes(h: Harness, body: Record<string, string>, parsed: Record<string, unknown>): Promise<void> {
  const risky = [parsed.name, parsed.productDetail].filter((value): value is string => typeof value === 'string' && looksLikeMarkup(value));
  if (!risky.length) return;
  const page = await send(h.url, `/pay?orderNum=${encodeURIComponent(body.platOrderNum!)}`);
  countCase('GET /pay (order with hostile name/productDetail)', page.status);
  record(page);
  assert.equal(page.status, 200);
  for (const value of risky) if (looksLikeMarkup(value)) assert.ok(!page.text.includes(value), `raw markup on the page: ${value}`);
}

describe('signed requests with hostile fields', () => {
  test('POST /gateway/pay', async () => {
    await fc.assert(signedProperty(sqlite, 'pay'), fcOptions(1100));
    watch.assertClean();
  });
  test('POST /gateway/prepaidOrder', async () => {
    await fc.assert(signedProperty(sqlite, 'prepaidOrder'), fcOptions(900));
    watch.assertClean();
  });
  test('POST /gateway/query', async () => {
    await fc.assert(signedProperty(sqlite, 'query'), fcOptions(500));
    watch.assertClean();
  });
});

// ---------------------------------------------------------------------------------------------
// Unsigned garbage, invalid JSON, content types, encodings, sizes, methods

const ENDPOINTS = ['/gateway/pay', '/gateway/prepaidOrder', '/gateway/query'] as const;
const EDGE_FIELDS = /^(body|Content-Type|Content-Encoding|method|merchantCode|sign)$/;

async function assertEdgeRefusal({ h, probe }: Target, answer: RawAnswer, before: string): Promise<void> {
  record(answer);
  assert.equal(await probe.version(), before, 'nothing stored');
  if (answer.status === 431 || answer.headers['content-length'] === '0') return;
  const body = assertSignedAnswer(h, answer);
  assert.notEqual(body.platRespCode, 'SUCCESS');
  if (REPEATED_KEY_MESSAGE.test(body.platRespMessage!)) return;
  const named = namedFields(body.platRespMessage!);
  assert.ok(named.length > 0 && named.every((field) => field !== null && EDGE_FIELDS.test(field)), `names what is wrong: ${body.platRespMessage}`);
}

const unsignedBody = fc.oneof(
  jsonText,
  fc
    .array(fc.tuple(fc.oneof(hostileKey, fc.constantFrom('merchantCode', 'sign', 'orderNum')), fc.oneof(jsonText, fc.constant(JSON.stringify('M-TEST-001')))), { maxLength: 8 })
    .map(objectText),
);

function unsignedProperty(target: Target, body: fc.Arbitrary<string> = unsignedBody) {
  return fc.asyncProperty(fc.constantFrom(...ENDPOINTS), body, async (path, text) => {
    const before = await target.probe.version();
    const answer = await postJsonText(target.h.url, path, text);
    countCase(`POST ${path} (unsigned JSON${target.h.store.engine === 'postgres' ? ', PostgreSQL' : ''})`, answer.status);
    await assertEdgeRefusal(target, answer, before);
  });
}

describe('bodies that are not a signed request', () => {
  test('any JSON value, and objects with hostile keys and no valid signature', async () => {
    await fc.assert(unsignedProperty(sqlite), fcOptions(700));
    watch.assertClean();
  });

  test('invalid JSON, wrong content types and charsets, compressed and oversized bodies', async () => {
    const size = fc.oneof({ weight: 4, arbitrary: fc.constant(0) }, { weight: 1, arbitrary: fc.integer({ min: 64 * 1024 - 64, max: 300 * 1024 }) });
    const encoding = fc.oneof({ weight: 5, arbitrary: fc.constant(undefined) }, { weight: 1, arbitrary: fc.constantFrom('gzip', 'deflate', 'br', 'x-garbage', 'identity, gzip') });
    await fc.assert(
      fc.asyncProperty(fc.constantFrom(...ENDPOINTS), hostileContentType, notJsonBody, size, encoding, async (path, type, text, padding, contentEncoding) => {
        const payload = padding ? JSON.stringify({ merchantCode: 'M-TEST-001', padding: 'x'.repeat(padding) }) : text;
        const headers: Record<string, string> = {};
        if (type !== undefined) headers['content-type'] = type;
        if (contentEncoding !== undefined) headers['content-encoding'] = contentEncoding;
        const before = await sqlite.probe.version();
        const answer = await send(sqlite.h.url, path, { method: 'POST', headers, body: payload, fresh: padding > 0 });
        countCase(`POST ${path} (raw body, content type, size)`, answer.status);
        await assertEdgeRefusal(sqlite, answer, before);
        if (padding > 64 * 1024 && type === 'application/json' && contentEncoding === undefined) assert.equal(answer.status, 413);
      }),
      fcOptions(700),
    );
    watch.assertClean();
  });

  test('other methods and unknown paths', async () => {
    const path = fc.oneof(
      fc.constantFrom(...ENDPOINTS, '/gateway', '/gateway/', '/gateway/refund', '/gateway/pay/', '/gateway/PAY', '/gateway/pay%00', '/gateway/%ZZ', '/gateway/..%2f..%2fetc/passwd'),
      hostileString.map((s) => `/gateway/${encodeAny(s.slice(0, 200))}`),
    );
    await fc.assert(
      fc.asyncProperty(fc.constantFrom('GET', 'PUT', 'PATCH', 'DELETE', 'OPTIONS', 'POST', 'TRACE'), path, async (method, target) => {
        const before = await sqlite.probe.version();
        const answer = await send(sqlite.h.url, target, { method, headers: { 'content-type': 'application/json' }, body: method === 'GET' || method === 'TRACE' ? undefined : '{}' });
        countCase('other methods and paths under /gateway', answer.status);
        record(answer);
        assert.equal(await sqlite.probe.version(), before, 'nothing stored');
        if (answer.text) assert.notEqual(assertSignedAnswer(sqlite.h, answer).platRespCode, 'SUCCESS');
      }),
      fcOptions(400),
    );
    watch.assertClean();
  });
});

describe('on PostgreSQL', { skip: ENGINES.includes('postgres') ? false : 'DATABASE_URL is not set' }, () => {
  let postgres: Target | undefined;
  before(async () => {
    postgres = await startTarget('postgres');
  });
  after(() => stopTarget(postgres));

  test('signed hostile fields on every endpoint', async () => {
    for (const endpoint of ['pay', 'prepaidOrder', 'query'] as const) {
      await fc.assert(signedProperty(postgres!, endpoint), fcOptions(150));
    }
    watch.assertClean();
  });

  test('unsigned JSON', async () => {
    await fc.assert(unsignedProperty(postgres!), fcOptions(200));
    watch.assertClean();
  });
});

// ---------------------------------------------------------------------------------------------

test('the whole run: no private key in any response or log line; the counts', (t) => {
  const haystack = `${transcript.join('\n')}\n${log.lines.join('')}`;
  assert.ok(log.lines.length > 1000, 'the gateway logged the run');
  for (const keys of [merchantKeys(), merchantKeys('stranger'), platformKeys()]) {
    assert.deepEqual(leakedFragments(haystack, keys.privateKey, keys.publicKey), [], 'a private key leaked');
  }
  const { total, lines } = caseCounts();
  for (const line of lines) t.diagnostic(line);
  t.diagnostic(`hostile cases (gateway API): ${total}`);
  console.log(`[hostile] gateway API: ${total} cases\n  ${lines.join('\n  ')}`);
  assert.ok(total >= runs(4_000), `at least ${runs(4_000)} cases, got ${total}`);
  t.diagnostic(`signed creates accepted: ${accepted}`);
  watch.assertClean();
});
