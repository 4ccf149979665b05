/**
 * Issue 12: the gateway never signs bytes an unauthenticated caller chose. The family's signature
 * signs each 117-byte chunk on its own, so a platform-signed block over 117 bytes an attacker chose
 * is a valid `platSign` for a notification of those bytes. Each test plays one oracle as a black
 * box over real HTTP (an unknown path padded so the forged text fills a block, a malformed or
 * oversized body, a request whose `sign` does not verify) and checks that no block of the answer's
 * `platSign` covers the attacker's text: every answer is a fixed refusal, signed in one block.
 */
import assert from 'node:assert/strict';
import { constants, publicDecrypt, randomBytes } from 'node:crypto';
import { countRsaOperations } from '@tombolbayar/test-support/rsa';
import { gzipSync } from 'node:zlib';
import { after, before, describe, test } from 'node:test';
import { canonicalString, formatDateTime, MAX_REQUEST_SIGN_LENGTH, sign } from '@tombolbayar/protocol/node';
import { Writable } from 'node:stream';
import { LOGGED_PATH_CHARS } from '../src/http/request-log.ts';
import { REFUSALS, refusalBody } from '../src/http/refusals.ts';
import { createLogger } from '../src/logger.ts';
import { ENGINES } from './support/engines.ts';
import { startHarness, MERCHANT_CODE, type Harness } from './support/harness.ts';
import { signed, vaRequest } from './support/client.ts';
import { merchantKeys } from './support/keys.ts';

const CHUNK = 117;

/**
 * The canonical string of a forged "paid" notification, exactly one chunk long (padded in `msg`),
 * written with characters that travel raw in a URL path, as the attack of issue 12 builds it.
 */
function forgedNotification(): string {
  const fields = {
    code: '00', email: 'budi@example.com', method: 'VA_BCA', msg: 'SUCCESS', name: 'Budi', orderNum: 'ORD-1',
    payMoney: '150000', platOrderNum: 'PB0123456789ABCDEF', status: 'SUCCESS',
  };
  const short = canonicalString(fields);
  const forged = canonicalString({ ...fields, msg: `SUCCESS${'x'.repeat(CHUNK - short.length)}` });
  assert.equal(Buffer.byteLength(forged), CHUNK);
  return forged;
}

const FORGED = forgedNotification();
/** 95 filler characters put the forged text at the start of the second block of the old 404 message. */
const ORACLE_PATH = `/${'a'.repeat(95)}${FORGED}`;

const FIXED = new Set(Object.values(REFUSALS).map((refusal) => `${refusal.code}\u0000${refusal.message}`));

interface Answer {
  readonly status: number;
  readonly text: string;
  readonly body: Record<string, string>;
}

async function send(url: string, init: RequestInit = {}): Promise<Answer> {
  const response = await fetch(url, init);
  const text = await response.text();
  return { status: response.status, text, body: JSON.parse(text) as Record<string, string> };
}

/** Every block of `platSign`, opened with the platform public key. */
function openedBlocks(platSign: string, publicKey: string): Buffer[] {
  const bytes = Buffer.from(platSign, 'base64');
  const blocks: Buffer[] = [];
  for (let offset = 0; offset < bytes.length; offset += 128) {
    blocks.push(publicDecrypt({ key: publicKey, padding: constants.RSA_PKCS1_PADDING }, bytes.subarray(offset, offset + 128)));
  }
  return blocks;
}

/**
 * The answer gives the attacker nothing: its text repeats none of the forged bytes, no block of its
 * `platSign` is a signature over them (or over any 16 bytes of them), it is one of the fixed
 * refusals, and it cost one short signature (one block).
 */
function assertNoOracle(h: Harness, answer: Answer, attackerText: string, what: string): void {
  assert.ok(!answer.text.includes(attackerText.slice(0, 16)), `${what}: the answer repeats the request`);
  assert.ok(FIXED.has(`${answer.body.platRespCode}\u0000${answer.body.platRespMessage}`), `${what}: not a fixed refusal: ${answer.text}`);
  assert.ok(h.verifies(answer.body), `${what}: the refusal is signed by the platform`);
  const blocks = openedBlocks(answer.body.platSign!, h.gateway.platformPublicKey);
  assert.equal(blocks.length, 1, `${what}: one short signature`);
  const forged = Buffer.from(attackerText, 'utf8');
  for (const block of blocks) {
    assert.ok(!block.equals(forged.subarray(0, CHUNK)), `${what}: a block signs the forged notification`);
    assert.ok(!block.includes(forged.subarray(0, 16)), `${what}: a block covers the attacker's bytes`);
  }
}

const json = { 'content-type': 'application/json' };

for (const engine of ENGINES) {
  describe(`signing oracles are closed on ${engine}`, () => {
    let h: Harness;
    before(async () => {
      h = await startHarness(engine, { notifications: { worker: false } });
    });
    after(() => h.stop());

    test('the 404 oracle: an unknown path padded to put a forged notification in one block', async () => {
      for (const method of ['GET', 'POST', 'DELETE']) {
        const answer = await send(`${h.url}${ORACLE_PATH}`, { method, ...(method === 'POST' ? { headers: json, body: '{}' } : {}) });
        assert.equal(answer.status, 404);
        assertNoOracle(h, answer, FORGED, `${method} ${ORACLE_PATH.slice(0, 20)}...`);
      }
      for (const path of [`/gateway/${FORGED}`, `/sandbox/${FORGED}`, `/gateway/pay/${FORGED}`, `/?q=${FORGED}`]) {
        assertNoOracle(h, await send(`${h.url}${path}`, { method: 'PUT', headers: json, body: '{}' }), FORGED, path);
      }
      // Two different unknown paths get byte-identical answers: nothing of the path is signed.
      const [one, two] = [await send(`${h.url}/a`), await send(`${h.url}${ORACLE_PATH}`)];
      assert.equal(one.text, two.text);
    });

    test('a wrong method on a known path repeats neither the method nor the query', async () => {
      const answer = await send(`${h.url}/gateway/pay?x=${FORGED}`, { method: 'GET' });
      assert.equal(answer.status, 405);
      assertNoOracle(h, answer, FORGED, 'GET /gateway/pay');
    });

    test('malformed, oversized, mis-typed and mis-encoded bodies', async () => {
      const bodies: [string, RequestInit, number][] = [
        ['broken JSON', { headers: json, body: `{"merchantCode":"${FORGED}` }, 400],
        ['a repeated key named by the attacker', { headers: json, body: `{"${FORGED}":"1","${FORGED}":"2"}` }, 400],
        ['over 64 KB', { headers: json, body: JSON.stringify({ merchantCode: FORGED, pad: FORGED.repeat(600) }) }, 413],
        ['over 64 KB once inflated', { headers: { ...json, 'content-encoding': 'gzip' }, body: gzipSync(JSON.stringify({ pad: FORGED.repeat(600) })) }, 413],
        ['not JSON', { headers: { 'content-type': `text/${FORGED.slice(0, 40)}` }, body: FORGED }, 415],
        ['an unknown encoding', { headers: { ...json, 'content-encoding': FORGED.slice(0, 60) }, body: '{}' }, 415],
        ['a body that does not inflate', { headers: { ...json, 'content-encoding': 'gzip' }, body: FORGED }, 400],
        ['a JSON array', { headers: json, body: JSON.stringify([FORGED]) }, 200],
      ];
      for (const [what, init, status] of bodies) {
        const answer = await send(`${h.url}/gateway/pay`, { method: 'POST', ...init });
        assert.equal(answer.status, status, what);
        assertNoOracle(h, answer, FORGED, what);
      }
    });

    test("requests whose sign does not verify, or whose merchant does not exist, learn nothing", async () => {
      const key = merchantKeys().privateKey;
      const stranger = merchantKeys('stranger').privateKey;
      const forgedEmail = `${FORGED.slice(0, 60)}@example.com`;
      const requests: [string, string, Record<string, unknown>][] = [
        ['signed by a stranger', '/gateway/pay', signed(vaRequest(MERCHANT_CODE, { email: forgedEmail, productDetail: FORGED.slice(0, 32) }), stranger)],
        ['a field changed after signing', '/gateway/prepaidOrder', { ...signed(vaRequest(MERCHANT_CODE), key), name: FORGED }],
        ['a malformed sign', '/gateway/query', { merchantCode: MERCHANT_CODE, orderNum: 'X', queryType: 'ORDER_QUERY', dateTime: formatDateTime(), sign: `${FORGED.replace(/[^A-Za-z0-9]/g, '')}!` }],
        ['an unknown merchant', '/gateway/pay', signed(vaRequest('NOBODY-001', { name: FORGED }), key)],
        ['a merchantCode that is the attack itself', '/gateway/query', { merchantCode: FORGED, sign: 'AAAA' }],
      ];
      for (const [what, path, body] of requests) {
        const answer = await send(`${h.url}${path}`, { method: 'POST', headers: json, body: JSON.stringify(body) });
        assert.equal(answer.status, 200, what);
        assert.notEqual(answer.body.platRespCode, 'SUCCESS', what);
        assertNoOracle(h, answer, FORGED, what);
      }
    });
  });
}

test('a 16 KB unknown path is logged cut to a fixed length', async () => {
  const lines: string[] = [];
  const destination = new Writable({
    write(chunk: Buffer, _encoding, done) {
      lines.push(chunk.toString('utf8'));
      done();
    },
  });
  const h = await startHarness('sqlite', { logger: createLogger({ level: 'info', destination }), notifications: { worker: false } });
  try {
    const path = `/${'a'.repeat(15_900)}`;
    const answer = await send(`${h.url}${path}`);
    assert.equal(answer.status, 404);
    const entry = lines.map((line) => JSON.parse(line) as { msg: string; path?: string }).find((line) => line.msg === 'request' && line.path?.startsWith('/aaaa'));
    assert.ok(entry, 'the request was logged');
    assert.equal(entry.path, `${path.slice(0, LOGGED_PATH_CHARS)}...(15901 characters)`);
  } finally {
    await h.stop();
  }
});

describe('fixed refusals', () => {
  test('each is signed once per process, fits one block and carries no double quote', () => {
    let signatures = 0;
    const signer = (fields: Readonly<Record<string, string>>) => {
      signatures += 1;
      return `signature-${canonicalString(fields).length}`;
    };
    for (let round = 0; round < 50; round++) refusalBody(signer, 'notFound');
    assert.equal(signatures, 1, 'answering a refusal again costs no signature');
    for (const [name, refusal] of Object.entries(REFUSALS)) {
      assert.ok(Buffer.byteLength(`${refusal.code}${refusal.message}`) <= CHUNK, `${name}: one RSA block`);
      assert.ok(!refusal.message.includes('"'), `${name}: no double quote`);
      if (name !== 'internal') assert.match(refusal.message, /^[\w-]+: /, `${name}: names its field or header`);
    }
  });
});

describe('what an unauthenticated request costs in RSA operations', () => {
  /**
   * The bound: `sign` is refused above 512 characters before any key is used, 512 base64 characters
   * are 384 bytes, and registered merchant keys are at least 1024 bits (128-byte blocks): at most 3
   * public-key operations, with the one merchant key the request names.
   */
  const MAX_PUBLIC_OPS = Math.floor(((MAX_REQUEST_SIGN_LENGTH / 4) * 3) / 128);

  test('no private-key operation at all, and at most 3 public-key operations, whatever the request', async () => {
    assert.equal(MAX_PUBLIC_OPS, 3);
    const h = await startHarness('sqlite', { sandbox: false, notifications: { worker: false } });
    const rsa = countRsaOperations();
    try {
      const key = merchantKeys().privateKey;
      // Three chunks of canonical string, signed by the merchant's own key: every block opens with
      // it, so checking it costs the most a verification can (then the changed field fails it).
      const long = vaRequest(MERCHANT_CODE, { name: 'n'.repeat(32), productDetail: 'p'.repeat(32), email: `${'e'.repeat(100)}@example.com`, notifyUrl: `https://shop.example.com/${'x'.repeat(60)}` });
      assert.equal(Buffer.from(sign(long, key), 'base64').length, 384, 'a three-block sign');
      const requests: Array<[string, string, string, number]> = [
        ['a 16 KB unknown path', `/${'a'.repeat(16_000)}`, '', 0],
        ['malformed JSON', '/gateway/pay', '{"merchantCode":', 0],
        ['a malformed merchantCode', '/gateway/pay', JSON.stringify({ merchantCode: 'x', sign: 'AAAA' }), 0],
        ['an unknown merchant', '/gateway/pay', JSON.stringify(signed(vaRequest('NOBODY-001'), key)), 0],
        ['a sign over 512 characters', '/gateway/pay', JSON.stringify({ ...vaRequest(MERCHANT_CODE), sign: randomBytes(450).toString('base64') }), 0],
        // Three blocks where the fields need one: refused by the count alone (issue 22).
        ['a random 512-character sign', '/gateway/query', JSON.stringify({ merchantCode: MERCHANT_CODE, orderNum: 'X', queryType: 'ORDER_QUERY', dateTime: formatDateTime(), sign: randomBytes(384).toString('base64') }), 0],
        ['a random one-block sign', '/gateway/query', JSON.stringify({ merchantCode: MERCHANT_CODE, orderNum: 'X', queryType: 'ORDER_QUERY', dateTime: formatDateTime(), sign: randomBytes(128).toString('base64') }), 1],
        ['a three-block sign with a field changed after signing', '/gateway/pay', JSON.stringify({ ...signed(long, key), payMoney: '1' }), 3],
        ['a sign by another key', '/gateway/pay', JSON.stringify(signed(vaRequest(MERCHANT_CODE), merchantKeys('stranger').privateKey)), 1],
      ];
      // Warm-up: each fixed refusal is signed once per process, on its first use.
      for (const [, path, body] of requests) await send(`${h.url}${path}`, body ? { method: 'POST', headers: json, body } : {});
      rsa.take();
      for (const [what, path, body, publicOps] of requests) {
        const answer = await send(`${h.url}${path}`, body ? { method: 'POST', headers: json, body } : {});
        assert.notEqual(answer.body.platRespCode, 'SUCCESS', what);
        const used = rsa.take();
        assert.equal(used.privateEncrypt, 0, `${what}: no private-key operation`);
        assert.ok(used.publicDecrypt <= MAX_PUBLIC_OPS, `${what}: ${used.publicDecrypt} public-key operations`);
        assert.equal(used.publicDecrypt, publicOps, `${what}: public-key operations`);
      }
      // The control: an authenticated create is signed for its caller (private-key operations).
      await send(`${h.url}/gateway/pay`, { method: 'POST', headers: json, body: JSON.stringify(signed(vaRequest(MERCHANT_CODE, { notifyUrl: 'https://shop.example.com/notify' }), key)) });
      const created = rsa.take();
      assert.ok(created.privateEncrypt >= 1 && created.publicDecrypt >= 1, JSON.stringify(created));
    } finally {
      rsa.restore();
      await h.stop();
    }
  });
});
