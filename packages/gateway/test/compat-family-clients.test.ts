/**
 * Issue 14: the family's own public clients work against this gateway unchanged, in sandbox and in
 * production mode. Requests are built the way a published Java client of the family builds them
 * (`support/family-client.ts`: its behaviour as data, each rule driving the emulation), not the
 * way our plug-in does, and both directions are checked: the gateway verifies their `sign`, and
 * their verification rules accept our `platSign` on create, query and notification answers.
 *
 * Production mode takes an https `notifyUrl` on a public-looking name; the harness's resolver
 * names nothing beyond loopback and production refuses loopback, so no notification is sent there
 * (tests never leave the machine): its signed fields are read from the gateway's delivery log,
 * which holds exactly what would be posted.
 */
import assert from 'node:assert/strict';
import { deflateSync, gzipSync } from 'node:zlib';
import { after, before, describe, test } from 'node:test';
import { formatDateTime, verify } from '@tombolbayar/protocol/node';
import { UNSUPPORTED_CONTENT_ENCODING } from '@tombolbayar/protocol';
import { simulationsFor } from '../src/internal.ts';
import { uniqueOrderNum } from './support/client.ts';
import { ENGINES } from './support/engines.ts';
import { CLIENT_SHAPES, shapedRequest, shapedValues, type ClientShape } from './support/family-shapes.ts';
import { familyCanonical, familyClient, familyVerify, keyConstant, REQUEST_RULES, VERIFY_RULES, type Answer, type Fields } from './support/family-client.ts';
import { startHarness, MERCHANT_CODE, type Harness } from './support/harness.ts';
import { merchantKeys } from './support/keys.ts';
import { eventually, startReceiver, type Receiver } from './support/receiver.ts';
import { watchConnections } from '@tombolbayar/test-support/network';

const connections = watchConnections();
after(() => assert.deepEqual(connections.outsideLoopback(), [], 'no socket of this file connected beyond loopback'));

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

/** What differs between the modes: where notifications go, and how a test reads one. */
interface Mode {
  readonly name: 'sandbox' | 'production';
  readonly sandbox: boolean;
}
const MODES: readonly Mode[] = [
  { name: 'sandbox', sandbox: true },
  { name: 'production', sandbox: false },
];

for (const engine of ENGINES) {
  for (const mode of MODES) {
    describe(`a public client of the family, unchanged, on ${engine}, ${mode.name} mode`, () => {
      let h: Harness;
      let receiver: Receiver | undefined;
      let notifyUrl: string;
      let client: ReturnType<typeof familyClient>;
      let platformKey: string;
      before(async () => {
        if (mode.sandbox) receiver = await startReceiver();
        // Production: https to a public name (Gson escapes its query all the same).
        notifyUrl = receiver?.url ?? 'https://shop.example.com/notify';
        h = await startHarness(engine, { sandbox: mode.sandbox, notifications: { pollIntervalMs: 20 } });
        client = familyClient(h.url, MERCHANT_CODE, merchantKeys().privateKey);
        platformKey = keyConstant(h.gateway.platformPublicKey, VERIFY_RULES.key.rule);
      });
      after(async () => {
        await h.stop();
        await receiver?.close();
      });

      /** Pay in either mode: the sandbox's own simulation, composed by the test onto a production gateway. */
      const pay = (platOrderNum: string) => simulationsFor(h.gateway).pay(platOrderNum);

      /** The notification as signed for `platOrderNum`: as received (sandbox), as logged to be sent (production). */
      async function notificationOf(platOrderNum: string): Promise<Record<string, string>> {
        if (receiver) {
          const received = await eventually(async () => receiver!.received.find((entry) => entry.fields.platOrderNum === platOrderNum), 20_000, 'the notification');
          return received.fields;
        }
        const [delivery] = await eventually(async () => {
          const list = await h.gateway.deliveries.list({ platOrderNum });
          return list[0]?.attempts.length ? list : undefined;
        }, 20_000, 'the first delivery attempt');
        // Failed before any socket: the test resolver knows no such name (and names nothing beyond
        // loopback, which production refuses anyway).
        assert.equal(delivery!.attempts[0]!.httpStatus, null);
        return delivery!.fields;
      }

      test('Create VA: its sign verifies here, our platSign verifies there; the Gson escapes read as text', async () => {
        const fields = createFields(notifyUrl, { method: 'VA_BCA' });
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
          const answer = await client.post('/gateway/prepaidOrder', createFields(notifyUrl, optional));
          assert.equal(answer.body.platRespCode, 'SUCCESS', answer.body.platRespMessage);
          assert.ok(familyVerify(answer.body, platformKey));
          assert.equal((await h.gateway.findOrder(answer.body.platOrderNum!))?.method, null, 'the customer picks on the page');
        });
      }

      test('with or without Content-Encoding: UTF-8, a client gets the same answers, byte for byte', async () => {
        const created = await client.post('/gateway/prepaidOrder', createFields(notifyUrl, { method: 'OVO' }));
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

      test('field-rule and policy refusals carry no double quote, so their platSign verifies there', async () => {
        const refusals = [
          await client.post('/gateway/pay', createFields(notifyUrl, { method: 'VA_BCA', payMoney: '150.000', phone: '+62 812' })),
          await client.post('/gateway/prepaidOrder', createFields(notifyUrl, { method: 'CASH', expiryPeriod: '5' })),
          await client.post('/gateway/query', { orderNum: 'X', queryType: 'CASH_QUERY', dateTime: formatDateTime() }),
          await client.post('/gateway/pay', createFields(notifyUrl, { method: 'VA_BCA', payMoney: '1000' })),
          ...(mode.sandbox
            ? []
            : [
                await client.post('/gateway/pay', createFields('https://printer.local/notify', { method: 'VA_BCA' })),
                await client.post('/gateway/pay', createFields('http://shop.example.com/notify', { method: 'VA_BCA' })),
                await client.post('/gateway/prepaidOrder', createFields(notifyUrl, { redirectUrl: 'https://10.0.0.1/back' })),
              ]),
        ];
        for (const answer of refusals) {
          assert.equal(answer.body.platRespCode, 'FAIL');
          assert.match(answer.body.platRespMessage!, /e\.g\.|must/);
          assert.ok(!answer.body.platRespMessage!.includes('"'), answer.body.platRespMessage);
          assert.ok(familyVerify(answer.body, platformKey), answer.body.platRespMessage);
        }
      });

      test('the notification verifies with their rules', async () => {
        const created = await client.post('/gateway/pay', createFields(notifyUrl, { method: 'VA_MANDIRI', name: 'Siti "Kopi" Rahma' }));
        assert.equal(created.body.platRespCode, 'SUCCESS', created.body.platRespMessage);
        // A merchant's own value with a double quote: our verifier accepts it, theirs cannot (README).
        assert.ok(h.verifies(created.body));
        assert.equal(familyVerify(created.body, platformKey), false, 'the quote-stripping verifier fails on a quote in the data');
        const plain = await client.post('/gateway/pay', createFields(notifyUrl, { method: 'VA_BNI' }));
        await pay(plain.body.platOrderNum!);
        const notification = await notificationOf(plain.body.platOrderNum!);
        assert.equal(notification.status, 'SUCCESS');
        assert.ok(familyVerify(notification, platformKey));
      });

      test('multibyte text across the 117-byte chunk boundary, both directions', async () => {
        let requestStraddled = 0;
        let answerStraddled = 0;
        for (let pad = 0; pad < 6; pad++) {
          const fields = createFields(notifyUrl, {
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

      /** Post a request as a client of `shape` writes it. */
      async function postShaped(shape: ClientShape, path: string, values: Fields): Promise<Answer> {
        const { body } = shapedRequest(shape, MERCHANT_CODE, merchantKeys().privateKey, values);
        const response = await fetch(`${h.url}${path}`, { method: 'POST', headers: shape.headers, body });
        return { status: response.status, body: (await response.json()) as Record<string, string> };
      }

      for (const shape of CLIENT_SHAPES) {
        test(`${shape.client} (${shape.represents}): verified as sent, stored and answered canonical`, async () => {
          const at = Date.now() - (Date.now() % 1000);
          const canonical = createFields(notifyUrl, { method: 'VA_BCA', name: 'Müller', productDetail: 'Kopi Gayo' });
          const answer = await postShaped(shape, '/gateway/pay', shapedValues(shape, canonical, at));
          assert.equal(answer.status, 200);
          assert.equal(answer.body.platRespCode, 'SUCCESS', answer.body.platRespMessage);
          assert.ok(familyVerify(answer.body, platformKey), 'their verifier accepts our platSign');
          assert.deepEqual(
            [answer.body.payMoney, answer.body.method, answer.body.name],
            ['150000', 'VA_BCA', 'Müller'],
            'the answer holds canonical values',
          );
          const order = await h.gateway.findOrder(answer.body.platOrderNum!);
          assert.deepEqual(
            [order?.payMoney, order?.expiryPeriod, order?.method, order?.name, order?.requestDateTime],
            [150000, 60, 'VA_BCA', 'Müller', formatDateTime(at)],
            'the order holds canonical values',
          );
          const query = await postShaped(shape, '/gateway/query', shapedValues(shape, { orderNum: canonical.orderNum, queryType: 'ORDER_QUERY' }, at));
          assert.equal(query.body.platRespCode, 'SUCCESS', query.body.platRespMessage);
          assert.deepEqual([query.body.payMoney, query.body.method, query.body.name], ['150000', 'VA_BCA', 'Müller']);
          assert.ok(familyVerify(query.body, platformKey));
          const link = await postShaped(shape, '/gateway/prepaidOrder', shapedValues(shape, createFields(notifyUrl, { method: 'VA_BNI', name: 'Müller' }), at));
          assert.equal(link.body.platRespCode, 'SUCCESS', link.body.platRespMessage);
          assert.equal((await h.gateway.findOrder(link.body.platOrderNum!))?.method, 'VA_BNI');
        });
      }

      test('what stays refused, and why: each a signed FAIL (or 4xx) naming the field', async () => {
        const php = CLIENT_SHAPES.find((shape) => shape.json === 'php')!;
        const java = CLIENT_SHAPES.find((shape) => shape.client === 'TopPay Java demo')!;
        const fields = () => createFields(notifyUrl, { method: 'VA_BCA' });
        const cases: ReadonlyArray<readonly [string, Promise<Answer>, RegExp]> = [
          ['an amount with a fraction that is not zero', client.post('/gateway/pay', { ...fields(), payMoney: '150000.50' }), /^payMoney: must be a positive whole number/],
          ['ISO 8601 without an offset (which instant?)', client.post('/gateway/pay', { ...fields(), dateTime: '2026-11-25T10:00:00' }), /^dateTime: must be a real date/],
          ['a number with a fraction', postShaped({ ...php, numberFields: ['payMoney'] }, '/gateway/pay', { ...fields(), payMoney: '1500.5' }), /^payMoney: must be a string/],
          ['an unknown method alias', client.post('/gateway/pay', { ...fields(), method: 'CASH' }), /^method: must be one of VA_BCA/],
        ];
        for (const [what, pending, message] of cases) {
          const answer = await pending;
          assert.equal(answer.body.platRespCode, 'FAIL', what);
          assert.match(answer.body.platRespMessage!, message, what);
          assert.ok(familyVerify(answer.body, platformKey), what);
        }
        // Java's StringEntity writes a character outside ISO-8859-1 as ?, so what arrives is not what was signed.
        const latin1Signed = shapedRequest(java, MERCHANT_CODE, merchantKeys().privateKey, { ...fields(), name: 'Kopi ☕' });
        const mismatch = await fetch(`${h.url}/gateway/pay`, { method: 'POST', headers: java.headers, body: Uint8Array.from(Buffer.from(latin1Signed.text.replace('☕', '?'), 'latin1')) });
        assert.match(((await mismatch.json()) as Record<string, string>).platRespMessage!, /^sign: does not verify/);
        // A declared charset other than UTF-8, and keys that change what an object is in JavaScript.
        const declared = await fetch(`${h.url}/gateway/pay`, { method: 'POST', headers: { 'content-type': 'application/json; charset=iso-8859-1' }, body: latin1Signed.body });
        assert.equal(declared.status, 415);
        for (const key of ['__proto__', 'constructor', 'prototype']) {
          const text = client.build(fields()).text.replace('{', `{"${key}":{"payMoney":"1"},`);
          const reserved = await client.postText('/gateway/pay', text);
          assert.deepEqual([reserved.status, reserved.body.platRespCode], [400, 'FAIL'], key);
          assert.match(reserved.body.platRespMessage!, /__proto__, constructor or prototype/);
        }
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
        const bodiless = await fetch(`${h.url}/gateway/query`, { headers: { 'content-encoding': 'br' } });
        assert.equal(bodiless.status, 405, 'a request without a body is judged by its method, not refused for its Content-Encoding');
        const inflatesTooFar = gzipSync(JSON.stringify({ merchantCode: MERCHANT_CODE, pad: 'x'.repeat(70 * 1024) }));
        const tooLarge = await fetch(`${h.url}/gateway/query`, { method: 'POST', headers: { 'content-type': 'application/json', 'content-encoding': 'gzip' }, body: inflatesTooFar });
        assert.equal(tooLarge.status, 413, 'the 64 KB limit counts inflated bytes');
        // Within 64 KB, but from 108 bytes: 64 KB of Latin-1 is refused before it is decoded or verified.
        const bomb = gzipSync(Buffer.concat([Buffer.from('{"merchantCode":"'), Buffer.alloc(60 * 1024, 0xe9), Buffer.from('"}')]), { level: 9 });
        assert.ok(bomb.length < 200, `${bomb.length} bytes`);
        const inflatesFar = await fetch(`${h.url}/gateway/query`, { method: 'POST', headers: { 'content-type': 'application/json', 'content-encoding': 'gzip' }, body: bomb });
        const refusal = (await inflatesFar.json()) as Record<string, string>;
        assert.equal(inflatesFar.status, 413, 'a tiny body may not inflate to 64 KB');
        assert.ok(familyVerify(refusal, platformKey));
      });
    });
  }
}
