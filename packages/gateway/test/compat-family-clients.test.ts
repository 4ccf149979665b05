/**
 * Issue 14: the family's own public clients work against this gateway unchanged. Requests are built
 * the way a published Java client of the family builds them (Apache HttpClient and Gson), not the
 * way our plug-in does, and both directions are checked: the gateway verifies their `sign`, and
 * their verification rules accept our `platSign` on create, query and notification answers.
 *
 * That client's behaviour is written down below as data (`REQUEST_RULES`, `VERIFY_RULES`), each
 * rule with what it represents; the client here is built from those rules alone, with its own
 * signer and verifier (node:crypto, keys as base64 without PEM headers), not the protocol package's.
 */
import assert from 'node:assert/strict';
import { constants, createPrivateKey, createPublicKey, privateEncrypt, publicDecrypt } from 'node:crypto';
import { deflateSync, gzipSync } from 'node:zlib';
import { after, before, describe, test } from 'node:test';
import { formatDateTime, verify } from '@paybutton/protocol/node';
import { UNSUPPORTED_CONTENT_ENCODING } from '@paybutton/protocol';
import { uniqueOrderNum } from './support/client.ts';
import { ENGINES } from './support/engines.ts';
import { startHarness, MERCHANT_CODE, type Harness } from './support/harness.ts';
import { merchantKeys } from './support/keys.ts';
import { startReceiver, type Receiver } from './support/receiver.ts';

type Fields = Record<string, string | null | undefined>;

/** How that client sends a request. */
const REQUEST_RULES = {
  headers: {
    rule: { 'Content-Type': 'application/json', 'Content-Encoding': 'UTF-8' },
    represents: 'doPost names the character set as the Content-Encoding, and sends no charset parameter on Content-Type',
  },
  json: {
    rule: { '=': '\\u003d', '&': '\\u0026', '<': '\\u003c', '>': '\\u003e', "'": '\\u0027' },
    represents: "Gson's default HTML-safe escaping, inside URLs and text alike",
  },
  extraFields: {
    rule: { orderType: '0' },
    represents: 'fields of its own the spec does not list, sent and signed like the others',
  },
  unsetOptional: {
    rule: ['blank', 'absent'] as const,
    represents: 'method and redirectUrl left unset: "" in one version of the client, left out in another',
  },
  signing: {
    rule: { order: 'TreeMap (UTF-16 code units)', skip: ['sign', 'platSign', '', null], chunkBytes: 117, padding: 'RSA/ECB/PKCS1Padding', key: 'PKCS#8 base64, no PEM headers' },
    represents: 'its sign(): values joined in key order, UTF-8 bytes split into 117-byte chunks, each encrypted with the private key',
  },
} as const;

/** How that client checks an answer's `platSign`. */
const VERIFY_RULES = {
  key: { rule: 'X.509 SubjectPublicKeyInfo, base64 without PEM headers', represents: 'the platform key as the client loads it' },
  canonical: { rule: 'TreeMap order, skipping sign, platSign and empty or null values', represents: 'the same string its signer builds' },
  stripQuotes: { rule: '"', represents: 'verifySign removes every double quote from that string before comparing' },
  blocks: { rule: 128, represents: 'the signature base64-decoded, opened in 128-byte blocks with the public key, joined and compared as UTF-8 text' },
} as const;

const base64Der = (pem: string, kind: 'private' | 'public') =>
  (kind === 'private' ? createPrivateKey(pem).export({ type: 'pkcs8', format: 'der' }) : createPublicKey(pem).export({ type: 'spki', format: 'der' })).toString('base64');

function familyCanonical(fields: Fields): string {
  const skip: readonly unknown[] = REQUEST_RULES.signing.rule.skip;
  return Object.keys(fields)
    .sort()
    .filter((key) => !skip.includes(key) && !skip.includes(fields[key]) && fields[key] !== undefined)
    .map((key) => fields[key])
    .join('');
}

function familySign(fields: Fields, pkcs8Base64: string): string {
  const key = createPrivateKey({ key: Buffer.from(pkcs8Base64, 'base64'), format: 'der', type: 'pkcs8' });
  const plain = Buffer.from(familyCanonical(fields), 'utf8');
  const size = REQUEST_RULES.signing.rule.chunkBytes;
  const blocks: Buffer[] = [];
  for (let offset = 0; offset < plain.length; offset += size) {
    blocks.push(privateEncrypt({ key, padding: constants.RSA_PKCS1_PADDING }, plain.subarray(offset, offset + size)));
  }
  return Buffer.concat(blocks).toString('base64');
}

function familyVerify(body: Record<string, string>, x509Base64: string): boolean {
  const key = createPublicKey({ key: Buffer.from(x509Base64, 'base64'), format: 'der', type: 'spki' });
  const signed = Buffer.from(body.platSign ?? '', 'base64');
  const size = VERIFY_RULES.blocks.rule;
  if (signed.length === 0 || signed.length % size !== 0) return false;
  const parts: Buffer[] = [];
  try {
    for (let offset = 0; offset < signed.length; offset += size) {
      parts.push(publicDecrypt({ key, padding: constants.RSA_PKCS1_PADDING }, signed.subarray(offset, offset + size)));
    }
  } catch {
    return false;
  }
  const expected = familyCanonical(body).split(VERIFY_RULES.stripQuotes.rule).join('');
  return Buffer.concat(parts).toString('utf8') === expected;
}

/** Gson's serialisation of a flat map of strings (its HTML-safe escaping included). */
function gsonJson(fields: Fields): string {
  const escapes: Record<string, string> = REQUEST_RULES.json.rule;
  const present = Object.fromEntries(Object.entries(fields).filter(([, value]) => value !== undefined));
  return JSON.stringify(present).replace(/[=&<>']/g, (char) => escapes[char]!);
}

interface Answer {
  readonly status: number;
  readonly body: Record<string, string>;
}

function familyClient(baseUrl: string, merchantCode: string, privateKeyPem: string) {
  const privateKey = base64Der(privateKeyPem, 'private');
  return {
    /** The request body as that client sends it (Gson text) and the fields it signed. */
    build(fields: Fields): { text: string; fields: Fields } {
      const all: Fields = { merchantCode, ...fields };
      return { text: gsonJson({ ...all, sign: familySign(all, privateKey) }), fields: all };
    },
    post(path: string, fields: Fields, headers: Record<string, string> = REQUEST_RULES.headers.rule): Promise<Answer> {
      return this.postText(path, this.build(fields).text, headers);
    },
    async postText(path: string, text: string, headers: Record<string, string> = REQUEST_RULES.headers.rule): Promise<Answer> {
      const response = await fetch(`${baseUrl}${path}`, { method: 'POST', headers, body: text });
      return { status: response.status, body: (await response.json()) as Record<string, string> };
    },
  };
}

/** Our plug-in's way: no Content-Encoding, a charset parameter, plain JSON.stringify. */
async function plainPost(baseUrl: string, path: string, text: string): Promise<Answer> {
  const response = await fetch(`${baseUrl}${path}`, { method: 'POST', headers: { 'content-type': 'application/json; charset=utf-8' }, body: text });
  return { status: response.status, body: (await response.json()) as Record<string, string> };
}

/** A create request as that client fills it, with characters Gson escapes in the URL and the text. */
function createFields(notifyUrl: string, overrides: Fields = {}): Fields {
  return {
    orderNum: uniqueOrderNum('JAVA'),
    payMoney: '150000',
    productDetail: "Kopi <Gayo> & Teh = 'Aceh'",
    name: 'Budi Santoso',
    email: 'budi@example.com',
    phone: '081234567890',
    notifyUrl: `${notifyUrl}?shop=kopi&lang=id`,
    expiryPeriod: '60',
    dateTime: formatDateTime(),
    ...REQUEST_RULES.extraFields.rule,
    ...overrides,
  };
}

/** Whether byte 117 of the UTF-8 canonical string falls inside a multibyte character. */
const straddles = (text: string) => {
  const bytes = Buffer.from(text, 'utf8');
  return bytes.length > 117 && (bytes[117]! & 0xc0) === 0x80;
};

for (const engine of ENGINES) {
  describe(`a public client of the family, unchanged, on ${engine}`, () => {
    let h: Harness;
    let receiver: Receiver;
    let client: ReturnType<typeof familyClient>;
    let platformKey: string;
    before(async () => {
      receiver = await startReceiver();
      h = await startHarness(engine, { notifications: { pollIntervalMs: 20 } });
      client = familyClient(h.url, MERCHANT_CODE, merchantKeys().privateKey);
      platformKey = base64Der(h.gateway.platformPublicKey, 'public');
    });
    after(async () => {
      await h.stop();
      await receiver.close();
    });

    test('Create VA: its sign verifies here, our platSign verifies there; the Gson escapes read as text', async () => {
      const fields = createFields(receiver.url, { method: 'VA_BCA' });
      assert.match(client.build(fields).text, /\\u003d.*\\u0026|\\u0026.*\\u003d/, 'the body really carries Gson escapes');
      const answer = await client.post('/gateway/pay', fields);
      assert.equal(answer.status, 200);
      assert.equal(answer.body.platRespCode, 'SUCCESS', answer.body.platRespMessage);
      assert.equal(answer.body.productDetail, fields.productDetail);
      assert.ok(familyVerify(answer.body, platformKey), 'their verifier accepts our platSign');
      const order = await h.gateway.findOrder(answer.body.platOrderNum!);
      assert.equal(order?.notifyUrl, fields.notifyUrl);
    });

    for (const unset of REQUEST_RULES.unsetOptional.rule) {
      test(`Create Payment Link with method and redirectUrl ${unset}`, async () => {
        const optional: Fields = unset === 'blank' ? { method: '', redirectUrl: '' } : {};
        const answer = await client.post('/gateway/prepaidOrder', createFields(receiver.url, optional));
        assert.equal(answer.body.platRespCode, 'SUCCESS', answer.body.platRespMessage);
        assert.ok(familyVerify(answer.body, platformKey));
        assert.equal((await h.gateway.findOrder(answer.body.platOrderNum!))?.method, null, 'the customer picks on the page');
      });
    }

    test('with or without Content-Encoding: UTF-8, a client gets the same answers, byte for byte', async () => {
      const created = await client.post('/gateway/prepaidOrder', createFields(receiver.url, { method: 'OVO' }));
      assert.equal(created.body.platRespCode, 'SUCCESS', created.body.platRespMessage);
      const query = client.build({ orderNum: created.body.orderNum, queryType: 'ORDER_QUERY', dateTime: formatDateTime() });
      const theirs = await client.postText('/gateway/query', query.text);
      const ours = await plainPost(h.url, '/gateway/query', query.text);
      const bare = await client.postText('/gateway/query', query.text, { 'Content-Type': 'application/json' });
      assert.equal(theirs.body.platRespCode, 'SUCCESS', theirs.body.platRespMessage);
      assert.deepEqual(theirs, ours);
      assert.deepEqual(theirs, bare);
      assert.equal(theirs.body.method, 'EWALLET_OVO');
      assert.ok(familyVerify(theirs.body, platformKey));
      // Refusals too: an unknown merchant, a sign that does not verify.
      const unknown = familyClient(h.url, 'NOBODY-001', merchantKeys().privateKey).build({ orderNum: 'X', queryType: 'ORDER_QUERY', dateTime: formatDateTime() });
      const refusedTheirs = await client.postText('/gateway/query', unknown.text);
      assert.deepEqual(refusedTheirs, await plainPost(h.url, '/gateway/query', unknown.text));
      assert.equal(refusedTheirs.body.platRespCode, 'NOTEXIST');
      assert.ok(familyVerify(refusedTheirs.body, platformKey), 'refusals verify there too');
    });

    test('field-rule refusals carry no double quote, so their platSign verifies there', async () => {
      const refusals = [
        await client.post('/gateway/pay', createFields(receiver.url, { method: 'VA_BCA', payMoney: '150.000', phone: '+62 812' })),
        await client.post('/gateway/prepaidOrder', createFields(receiver.url, { method: 'CASH', expiryPeriod: '5' })),
        await client.post('/gateway/query', { orderNum: 'X', queryType: 'CASH_QUERY', dateTime: formatDateTime() }),
      ];
      for (const answer of refusals) {
        assert.equal(answer.body.platRespCode, 'FAIL');
        assert.match(answer.body.platRespMessage!, /e\.g\.|must be/);
        assert.ok(!answer.body.platRespMessage!.includes('"'), answer.body.platRespMessage);
        assert.ok(familyVerify(answer.body, platformKey), answer.body.platRespMessage);
      }
    });

    test('the notification verifies with their rules', async () => {
      const created = await client.post('/gateway/pay', createFields(receiver.url, { method: 'VA_MANDIRI', name: 'Siti "Kopi" Rahma' }));
      assert.equal(created.body.platRespCode, 'SUCCESS', created.body.platRespMessage);
      // A merchant's own value with a double quote: our verifier accepts it, theirs cannot (README).
      assert.ok(h.verifies(created.body));
      assert.equal(familyVerify(created.body, platformKey), false, 'the quote-stripping verifier fails on a quote in the data');
      const plain = await client.post('/gateway/pay', createFields(receiver.url, { method: 'VA_BNI' }));
      const before = receiver.received.length;
      await h.gateway.pay(plain.body.platOrderNum!);
      const received = await receiver.waitFor(before + 1);
      const notification = received.find((entry) => entry.fields.platOrderNum === plain.body.platOrderNum);
      assert.ok(notification, 'the notification arrived');
      assert.equal(notification.fields.status, 'SUCCESS');
      assert.ok(familyVerify(notification.fields, platformKey));
    });

    test('multibyte text across the 117-byte chunk boundary, both directions', async () => {
      let requestStraddled = 0;
      let answerStraddled = 0;
      for (let pad = 0; pad < 6; pad++) {
        const fields = createFields(receiver.url, {
          method: 'VA_BRI',
          email: `${'b'.repeat(48 + pad)}@contoh.co.id`,
          name: 'Budi 北京 Kopi ☕ Ñandú 日本語テキスト',
          productDetail: 'Kopi Gayo ☕ 北京 ÄÖÜ',
        });
        const built = client.build(fields);
        if (straddles(familyCanonical(built.fields))) requestStraddled += 1;
        const answer = await client.post('/gateway/pay', fields);
        assert.equal(answer.body.platRespCode, 'SUCCESS', answer.body.platRespMessage);
        if (straddles(familyCanonical(answer.body))) answerStraddled += 1;
        assert.ok(familyVerify(answer.body, platformKey), `pad ${pad}: their verifier accepts`);
        assert.ok(verify(built.fields, JSON.parse(built.text).sign, merchantKeys().publicKey), `pad ${pad}: ours accepts theirs`);
      }
      assert.ok(requestStraddled > 0, 'some request split a character between chunks');
      assert.ok(answerStraddled > 0, 'some answer split a character between chunks');
    });

    test('gzip and deflate bodies read like plain ones; any other encoding is refused naming the header', async () => {
      const query = client.build({ orderNum: 'NO-SUCH-ORDER', queryType: 'ORDER_QUERY', dateTime: formatDateTime() });
      const plain = await plainPost(h.url, '/gateway/query', query.text);
      assert.equal(plain.body.platRespCode, 'NOTEXIST');
      for (const [encoding, body] of [['gzip', gzipSync(query.text)], ['deflate', deflateSync(query.text)]] as const) {
        const response = await fetch(`${h.url}/gateway/query`, { method: 'POST', headers: { 'content-type': 'application/json', 'content-encoding': encoding }, body });
        assert.deepEqual(await response.json(), plain.body, encoding);
      }
      for (const encoding of ['br', 'compress', 'ISO-8859-1', 'gzip, gzip']) {
        const response = await fetch(`${h.url}/gateway/query`, { method: 'POST', headers: { 'content-type': 'application/json', 'content-encoding': encoding }, body: query.text });
        const body = (await response.json()) as Record<string, string>;
        assert.deepEqual([response.status, body.platRespMessage], [415, UNSUPPORTED_CONTENT_ENCODING], encoding);
        assert.ok(familyVerify(body, platformKey));
      }
      const bodiless = await fetch(`${h.url}/sandbox/clock`, { headers: { 'content-encoding': 'br' } });
      assert.equal(bodiless.status, 200, 'a request without a body is not refused for its Content-Encoding');
      const inflatesTooFar = gzipSync(JSON.stringify({ merchantCode: MERCHANT_CODE, pad: 'x'.repeat(70 * 1024) }));
      const tooLarge = await fetch(`${h.url}/gateway/query`, { method: 'POST', headers: { 'content-type': 'application/json', 'content-encoding': 'gzip' }, body: inflatesTooFar });
      assert.equal(tooLarge.status, 413, 'the 64 KB limit counts inflated bytes');
    });
  });
}
