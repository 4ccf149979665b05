/**
 * Issue 22 at the plug-in's `/notify`: liberal to the family's gateways, hard on strangers.
 * - a `platSign` of 80 copies of one block costs no more public-key operations than a 1-block one
 *   (counted, not timed: a count does not depend on how busy the machine is);
 * - a sender whose `platSign` verifies (another merchant of the same gateway can make one) reads
 *   one fixed text per class: nothing stored, and an unknown order looks like a mismatching one;
 * - `__proto__`, `constructor`, `prototype` are refused with 400, not dropped and answered SUCCESS;
 * - a body nested past the protocol's MAX_JSON_DEPTH is refused with 400 naming the body, at
 *   `/notify` and at create, also when an earlier parser built it (no stack overflow, no 500);
 * - event text that came from outside has its control characters escaped;
 * - a Latin-1 body and a `.00` amount read as the family's clients write them;
 * - a merchant key too large for the 512-character `sign` is refused at start.
 */
import assert from 'node:assert/strict';
import { generateKeyPairSync } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, afterEach, describe, test } from 'node:test';
import { canonicalString, MAX_JSON_DEPTH } from '@tombolbayar/protocol/node';
import { countPublicDecrypts } from '@tombolbayar/test-support/rsa';
import { PayButtonError } from '../src/adapters/express.ts';
import { resolveOptions } from '../src/options.ts';
import { startHarness, type Harness } from './support/harness.ts';
import { platformKeys } from './support/keys.ts';
import { asPlatform, createOrder, notify, paidAtGateway, paidFields, statusOf } from './support/notifications.ts';
import { validOptions } from './support/options.ts';

let shop: Harness | undefined;
afterEach(async () => {
  await shop?.close();
  shop = undefined;
});

const rejected = (harness: Harness) => harness.eventsNamed('notification.rejected');

describe('CPU amplification: the block count is bounded before any RSA operation', () => {
  test('an 80-block platSign costs no more than 1.5 times a 1-block one', async () => {
    shop = await startHarness({ options: { statusRefreshMs: false } });
    const order = await createOrder(shop);
    const fields = paidFields(order);
    // One block the platform signed, freely obtainable (any signed answer of the gateway has one).
    const block = Buffer.from(asPlatform({ code: 'FAIL' }).platSign!, 'base64');
    const oneBlock = { ...fields, platSign: block.toString('base64') };
    const eighty = { ...fields, platSign: Buffer.concat(Array.from({ length: 80 }, () => block)).toString('base64') };
    // A signature of the right length for these fields (the count a genuine one has), but forged.
    const blocks = Math.ceil(Buffer.byteLength(canonicalString(fields)) / 117);
    const rightLength = { ...fields, platSign: Buffer.concat(Array.from({ length: blocks }, () => block)).toString('base64') };
    const cost = async (body: Record<string, string>) => {
      const { count, result } = await countPublicDecrypts(() => notify(shop!, body));
      assert.equal(result.status, 401, result.text);
      return count;
    };
    const costOne = await cost(oneBlock);
    const costRight = await cost(rightLength);
    const costEighty = await cost(eighty);
    assert.ok(costRight >= 1, 'a signature of the right length is opened');
    assert.ok(costEighty <= 1.5 * Math.max(costOne, costRight), `80 blocks: ${costEighty} operations; 1 block: ${costOne}; right length: ${costRight}`);
    assert.equal(costEighty, 0, 'refused by its length alone');
    // Two platform keys during a rotation: still nothing.
    await shop.close();
    shop = await startHarness({ options: { statusRefreshMs: false, platformPublicKey: [platformKeys().publicKey, platformKeys().publicKey] } });
    const rotating = await countPublicDecrypts(() => notify(shop!, { ...paidFields(order), platSign: eighty.platSign }));
    assert.equal(rotating.count, 0);
  });
});

describe('a verified sender learns nothing of the stored order', () => {
  test('unknown order, wrong amount, wrong platOrderNum, another merchant: one status, one fixed text', async () => {
    shop = await startHarness({ options: { statusRefreshMs: false } });
    const order = await createOrder(shop);
    const answers = [
      await notify(shop, asPlatform(paidFields({ ...order, orderNum: 'PBNOSUCHORDER00000' }))),
      await notify(shop, asPlatform(paidFields(order, { payMoney: '1' }))),
      await notify(shop, asPlatform(paidFields(order, { platOrderNum: 'someone-elses-order' }))),
      await notify(shop, asPlatform(paidFields(order, { merchantCode: 'OTHER-MERCHANT' }))),
    ];
    for (const answer of answers) assert.deepEqual(answer, answers[0], 'the same answer, whatever is wrong and whether the order exists');
    assert.equal(answers[0]!.status, 409);
    assert.equal(answers[0]!.text, 'REJECTED not_matched: the notification does not match an order here; nothing was changed');
    assert.ok(!answers[0]!.text.includes('150000'));
    assert.deepEqual(rejected(shop).map((event) => event.reason), ['unknown_order', 'amount_mismatch', 'order_mismatch', 'merchant_mismatch'], 'the merchant still reads the precise reason');
    assert.match(rejected(shop)[1]!.message, /payMoney 1 differs from the order's 150000/);
    assert.equal(await statusOf(shop, order), 'pending');
  });

  test('an outcome the gateway does not confirm: a fixed text, not the gateway\'s status', async () => {
    shop = await startHarness({ options: { statusRefreshMs: false } });
    const order = await createOrder(shop);
    assert.equal((await notify(shop, await paidAtGateway(shop, order))).text, 'SUCCESS');
    const late = await notify(shop, asPlatform(paidFields(order, { code: '02', status: 'EXPIRED', msg: 'EXPIRED' })));
    assert.equal(late.status, 409);
    assert.equal(late.text, 'REJECTED not_confirmed: the gateway does not confirm the outcome this notification reports; the order follows the gateway');
    assert.match(rejected(shop).at(-1)!.message, /reports the order PAID/);
  });

  test('a contradictory code and status is judged before the order is looked up', async () => {
    shop = await startHarness({ options: { statusRefreshMs: false } });
    const order = await createOrder(shop);
    const known = await notify(shop, asPlatform(paidFields(order, { code: '01' })));
    const unknown = await notify(shop, asPlatform(paidFields({ ...order, orderNum: 'PBNOSUCHORDER00000' }, { code: '01' })));
    assert.deepEqual(known, unknown);
    assert.deepEqual([known.status, known.text], [400, 'REJECTED invalid_fields: code and status together report no outcome']);
  });
});

describe('reserved keys, escaped events', () => {
  for (const key of ['__proto__', 'constructor', 'prototype']) {
    test(`${key} as a JSON key or a form field: 400, never SUCCESS`, async () => {
      shop = await startHarness({ options: { statusRefreshMs: false } });
      const order = await createOrder(shop);
      const genuine = await paidAtGateway(shop, order);
      // A string value: the assignment `fields.__proto__ = "x"` was silently ignored, then SUCCESS.
      const text = JSON.stringify(genuine).replace("{", `{"${key}":"x",`);
      const json = await fetch(`${shop.mountUrl}/notify`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: text });
      assert.equal(json.status, 400);
      assert.match(await json.text(), /^REJECTED unreadable_body: field .* is not allowed/);
      const form = await fetch(`${shop.mountUrl}/notify`, {
        method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: `${key}=x&${new URLSearchParams(genuine)}`,
      });
      assert.equal(form.status, 400);
      assert.equal(await statusOf(shop, order), 'pending');
    });
  }

  test('an unverified orderNum with NUL, CR and LF reaches the event escaped', async () => {
    shop = await startHarness({ options: { statusRefreshMs: false } });
    const answer = await notify(shop, { ...paidFields({ orderNum: 'A\r\nB\u0000C\u2028', platOrderNum: 'x', statusToken: '' }), platSign: 'AAAA' });
    assert.equal(answer.status, 401);
    const [event] = rejected(shop);
    assert.equal(event!.orderNum, 'A\\u000d\\u000aB\\u0000C\\u2028');
    assert.ok(!/[\r\n\u0000]/.test(event!.orderNum!));
  });
});

describe('bodies nested deeper than MAX_JSON_DEPTH', () => {
  const arrays = (depth: number) => '['.repeat(depth) + ']'.repeat(depth);
  const TOO_DEEP = `must not nest objects or arrays more than ${MAX_JSON_DEPTH} deep`;
  const MIB = 1_048_576;

  test('at /notify and at create: 400 naming the body, never a 500', async () => {
    shop = await startHarness({ options: { statusRefreshMs: false, notifyBodyLimitBytes: MIB, bodyLimitBytes: MIB } });
    const order = await createOrder(shop);
    const genuine = await paidAtGateway(shop, order);
    for (const depth of [MAX_JSON_DEPTH + 1, 100_000]) {
      const text = JSON.stringify(genuine).replace('{', `{"extra":${arrays(depth)},`);
      const answer = await fetch(`${shop.mountUrl}/notify`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: text });
      assert.deepEqual([answer.status, await answer.text()], [400, `REJECTED unreadable_body: the JSON body ${TOO_DEEP}`], `depth ${depth}`);
      const created = await shop.post('/links', `{"item":"kopi","extra":${arrays(depth)}}`);
      assert.equal(created.status, 400, `create, depth ${depth}: ${JSON.stringify(created.body)}`);
      assert.deepEqual(created.body.error.issues, [{ field: 'body', message: TOO_DEEP }]);
    }
    assert.equal(await statusOf(shop, order), 'pending');
    assert.equal(shop.eventsNamed('warning').length, 0, 'no internal error');
  });

  test("at /notify behind the app's own express.json() that keeps the bytes: 400, never a 500", async () => {
    // (Without the bytes kept, /notify refuses the parsed object outright: parsers.test.ts.)
    shop = await startHarness({ options: { statusRefreshMs: false }, parsers: 'both-keeping-raw' });
    const order = await createOrder(shop);
    const genuine = await paidAtGateway(shop, order);
    // Within /notify's 16 KB and parsed by express.json(); /notify reads the bytes it kept, with its own depth limit.
    const text = JSON.stringify(genuine).replace('{', `{"extra":${arrays(5_000)},`);
    const answer = await fetch(`${shop.mountUrl}/notify`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: text });
    assert.deepEqual([answer.status, await answer.text()], [400, `REJECTED unreadable_body: the JSON body ${TOO_DEEP}`]);
    assert.equal(shop.eventsNamed('warning').length, 0, 'no internal error');
  });
});

describe("the family's liberal forms at /notify", () => {
  test('a Latin-1 body and an amount with zero decimals, signed over their text, pay the order', async () => {
    shop = await startHarness({ options: { statusRefreshMs: false } });
    const order = await createOrder(shop);
    await paidAtGateway(shop, order);
    const fields = paidFields(order, { name: 'Müller', payMoney: '150000.00', payFee: '4000.00' });
    const signed = asPlatform(fields);
    const answer = await fetch(`${shop.mountUrl}/notify`, {
      method: 'POST', headers: { 'content-type': 'application/json' }, body: Uint8Array.from(Buffer.from(JSON.stringify(signed), 'latin1')),
    });
    assert.equal(answer.status, 200, await answer.clone().text());
    assert.equal(await answer.text(), 'SUCCESS');
    assert.equal(await statusOf(shop, order), 'paid');
  });
});

describe('a merchant key that cannot sign a create within 512 characters', () => {
  const dir = mkdtempSync(join(tmpdir(), 'pb-keysize-'));
  after(() => rmSync(dir, { recursive: true, force: true }));
  test('is refused at start, naming the sizes that work', () => {
    const { privateKey } = generateKeyPairSync('rsa', { modulusLength: 4096, privateKeyEncoding: { type: 'pkcs8', format: 'pem' }, publicKeyEncoding: { type: 'spki', format: 'pem' } });
    assert.throws(() => resolveOptions(validOptions(dir, { privateKey })), (error: unknown) => {
      assert.ok(error instanceof PayButtonError);
      assert.equal(error.code, 'config_invalid');
      assert.match(error.message, /privateKey: a 4096-bit RSA key cannot sign a request within the 512-character sign of the BDPay family; use a 1024-, 2048- or 3072-bit key/);
      return true;
    });
  });
});
