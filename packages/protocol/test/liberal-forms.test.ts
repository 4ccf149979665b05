import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { generateKeyPairSync } from 'node:crypto';
import { countPublicDecrypts } from '@tombolbayar/test-support/rsa';
import {
  canonicalFields, canonicalString, decodeBody, parseIsoDateTime, requestKeySizeProblem, sign, verify,
} from '../src/node.ts';
import { loadVectors } from './vectors.ts';

describe('canonicalFields: the family clients liberal forms, mapped', () => {
  const cases: ReadonlyArray<readonly [string, Record<string, unknown>, Record<string, unknown>]> = [
    ['whole JSON numbers as their decimal text', { payMoney: 150000, expiryPeriod: 1200 }, { payMoney: '150000', expiryPeriod: '1200' }],
    ['an amount with zero decimals as the whole number', { payMoney: '150000.00', payFee: '4000.0' }, { payMoney: '150000', payFee: '4000' }],
    ['an amount with a real fraction unchanged (refused by the schema)', { payMoney: '150000.50' }, { payMoney: '150000.50' }],
    ['zero decimals only on amount fields', { orderNum: '12.00' }, { orderNum: '12.00' }],
    ['ISO 8601 UTC as Jakarta time', { dateTime: '2019-08-24T14:15:22Z' }, { dateTime: '20190824211522' }],
    ["PHP date('c') with an offset", { dateTime: '2026-11-25T10:00:00+07:00' }, { dateTime: '20261125100000' }],
    ['an offset without a colon and fractional seconds', { dateTime: '2026-11-25T03:00:00.123+0000' }, { dateTime: '20261125100000' }],
    ['ISO 8601 without an offset unchanged (ambiguous: refused by the schema)', { dateTime: '2026-11-25T10:00:00' }, { dateTime: '2026-11-25T10:00:00' }],
    ['the canonical form unchanged', { dateTime: '20261125100000', payMoney: '150000' }, { dateTime: '20261125100000', payMoney: '150000' }],
    ['a fraction or negative number unchanged (refused by the schema)', { payMoney: 1.5, expiryPeriod: -60 }, { payMoney: 1.5, expiryPeriod: -60 }],
    ['a phone with the country code, with and without +, as 08', { phone: '+6281234567890' }, { phone: '081234567890' }],
    ['a phone without its leading 0 (a deployed client) as 08', { phone: '6281234567890' }, { phone: '081234567890' }],
    ['the canonical phone unchanged', { phone: '081234567890' }, { phone: '081234567890' }],
    ['other phone shapes unchanged (refused by the schema)', { phone: '+62 812-3456-7890' }, { phone: '+62 812-3456-7890' }],
    ['+62 followed by something other than a mobile 8 unchanged', { phone: '+62211234567' }, { phone: '+62211234567' }],
    ['another country code, or 62 without digits after the 8, unchanged', { phone: '+6581234567' }, { phone: '+6581234567' }],
    ['the country code only on phone fields', { name: '+6281234567890' }, { name: '+6281234567890' }],
    ['other types unchanged', { name: null, method: true }, { name: null, method: true }],
  ];
  for (const [what, input, expected] of cases) {
    it(what, () => assert.deepEqual(canonicalFields(input), expected));
  }

  it('offsets at the ends of the range, any zone: the same instant in Jakarta (no DST there)', () => {
    const table: ReadonlyArray<readonly [string, string]> = [
      ['2026-11-25T10:00:00+14:00', '20261125030000'],
      ['2026-11-25T10:00:00-12:00', '20261126050000'],
      // 02:30 does not exist in New York that night; with its offset written it is still one instant.
      ['2026-03-08T02:30:00-05:00', '20260308143000'],
      ['2026-11-25t10:00:00z', '20261125170000'],
      ['2026-12-31T23:59:59-12:00', '20270101185959'],
    ];
    for (const [iso, jakarta] of table) assert.equal(canonicalFields({ dateTime: iso }).dateTime, jakarta, iso);
  });

  it('a leap second, a year beyond four digits or an unknown sign stays as sent (the schema refuses it)', () => {
    for (const value of ['2016-12-31T23:59:60Z', '+002026-11-25T10:00:00Z', '2026-11-25T10:00:00\u221207:00', '2026-11-25 10:00:00+07']) {
      assert.equal(canonicalFields({ dateTime: value }).dateTime, value, value);
    }
  });

  it('a JSON number: what is stored is exactly the text the signature was verified over, or it stays refused', () => {
    // The signature is checked over String(n) (canonicalString); a number the schema takes is that text.
    for (const token of ['150000', '150000.0', '1.5e5', '1E5', '-0', '150000.5', '-150000', '9007199254740993', '1e21']) {
      const sent = JSON.parse(`{"payMoney":${token}}`) as { payMoney: number };
      const mapped = canonicalFields(sent).payMoney;
      if (typeof mapped === 'string') assert.equal(mapped, canonicalString(sent), token);
      else assert.equal(mapped, sent.payMoney, `${token} stays a number: refused by the schema`);
    }
    assert.equal(canonicalFields(JSON.parse('{"payMoney":-150000}')).payMoney, -150000);
    assert.equal(canonicalFields(JSON.parse('{"payMoney":9007199254740993}')).payMoney, 2 ** 53, 'beyond 2^53: not mapped');
  });

  it('a phone as sent verifies; what is stored is the 08 form, which the schema takes', () => {
    const { merchant } = loadVectors();
    for (const sentPhone of ['+6281234567890', '6281234567890']) {
      const sent = { merchantCode: 'S820190101', phone: sentPhone };
      const signature = sign(sent, merchant.privateKey);
      assert.ok(verify(sent, signature, merchant.publicKey), 'verified over what was sent');
      assert.equal(canonicalFields(sent).phone, '081234567890');
    }
    for (const refused of ['62', '+62', '628', '6208123', '+62+81234', '006281234567890', '62812345678901234567890']) {
      const mapped = canonicalFields({ phone: refused }).phone as string;
      assert.ok(mapped === refused || mapped.length > 20, `${refused} stays refused (unchanged, or over the length)`);
    }
  });

  it('parseIsoDateTime refuses what names no real moment', () => {
    for (const value of ['2026-02-30T10:00:00Z', '2026-13-01T10:00:00Z', '2026-01-01T24:00:00Z', '2026-01-01T10:00:00+15:00', '2026-01-01T10:00:00+07:60', '20260101100000']) {
      assert.equal(parseIsoDateTime(value), undefined, value);
    }
  });

  it('a PHP client signing numbers verifies over the text it sent, before any mapping', () => {
    const { merchant } = loadVectors();
    const sent = { merchantCode: 'S820190101', payMoney: 150000, expiryPeriod: 1200, dateTime: '2019-08-24T14:15:22Z' };
    // PHP's implode() of the ksorted values: numbers as their decimal text.
    const theirCanonical = '2019-08-24T14:15:22Z' + '1200' + 'S820190101' + '150000';
    assert.equal(canonicalString(sent), theirCanonical);
    const signature = sign(sent, merchant.privateKey);
    assert.ok(verify(sent, signature, merchant.publicKey));
    assert.equal(verify(canonicalFields(sent) as Record<string, string>, signature, merchant.publicKey), false, 'the mapped values are not what was signed');
  });
});

describe('decodeBody: UTF-8 first, ISO-8859-1 only when the bytes are not UTF-8', () => {
  it('valid UTF-8 reads as UTF-8, even where it would also be Latin-1', () => {
    assert.deepEqual(decodeBody(Buffer.from('{"name":"Müller ☕"}', 'utf8')), { text: '{"name":"Müller ☕"}', charset: 'utf-8' });
    assert.deepEqual(decodeBody(Buffer.from('Ã¼', 'utf8')), { text: 'Ã¼', charset: 'utf-8' });
  });
  it('a Java StringEntity body (Latin-1 bytes) reads as the strings the client had', () => {
    assert.deepEqual(decodeBody(Buffer.from('{"name":"Müller"}', 'latin1')), { text: '{"name":"Müller"}', charset: 'iso-8859-1' });
    assert.equal(decodeBody(Buffer.from([0x80, 0x9f, 0xff])).text, '\u0080\u009f\u00ff', 'every byte is its code point (not windows-1252)');
    const every = Uint8Array.from({ length: 256 }, (_, i) => i);
    assert.equal(decodeBody(Uint8Array.from([0xff, ...every])).text, String.fromCharCode(0xff, ...every), 'all 256 bytes, a leading 0xFF kept (no BOM taken)');
  });
  it('a 64 KB Latin-1 body is decoded in native passes, never byte by byte in JavaScript', () => {
    // Was String.fromCharCode over the bytes: 150 times the cost of a UTF-8 body, work a stranger
    // could ask for with a 108-byte gzip. Checked by what runs, not by a clock (a loaded machine
    // makes any timing ratio lie): no fromCharCode, and two native decodes (UTF-8 tried, then the
    // widened bytes).
    const latin = Buffer.alloc(64 * 1024, 0xe9);
    const fromCharCode = String.fromCharCode;
    const decoders = TextDecoder.prototype as unknown as { decode(this: unknown, ...args: unknown[]): string };
    const decode = decoders.decode;
    let perCharacter = 0;
    let decodes = 0;
    String.fromCharCode = (...codes: number[]) => ((perCharacter += 1), fromCharCode(...codes));
    decoders.decode = function (this: unknown, ...args: unknown[]) {
      decodes += 1;
      return decode.apply(this, args);
    };
    let decoded: ReturnType<typeof decodeBody>;
    try {
      decoded = decodeBody(latin);
    } finally {
      String.fromCharCode = fromCharCode;
      decoders.decode = decode;
    }
    assert.equal(decoded.text, '\u00e9'.repeat(64 * 1024));
    assert.equal(perCharacter, 0, 'no String.fromCharCode');
    assert.equal(decodes, 2, 'UTF-8 tried once, the widened bytes decoded once');
  });
});

describe('verify: the block count is bounded by the canonical string before any RSA operation', () => {
  const { platform } = loadVectors();
  const fields = { code: '00', orderNum: 'ORDER-1', payMoney: '150000', status: 'SUCCESS' };
  const oneBlock = sign(fields, platform.privateKey);
  const eighty = Buffer.concat(Array.from({ length: 80 }, () => Buffer.from(oneBlock, 'base64'))).toString('base64');

  it('a 1-block signature costs one public-key operation; 80 copies of it cost none', async () => {
    const single = await countPublicDecrypts(() => verify(fields, oneBlock, platform.publicKey));
    assert.deepEqual([single.result, single.count], [true, 1]);
    const repeated = await countPublicDecrypts(() => verify(fields, eighty, platform.publicKey));
    assert.equal(repeated.result, false);
    assert.ok(repeated.count <= single.count * 1.5, `80 blocks cost ${repeated.count} operations, 1 block ${single.count}`);
    const rotating = await countPublicDecrypts(() => verify(fields, eighty, [platform.publicKey, platform.publicKey]));
    assert.equal(rotating.count, 0, 'two keys during a rotation: still none');
  });

  it('a long canonical string padded with copied blocks stops at the first wrong block', async () => {
    // Exactly 80 chunks of 117 bytes: the count matches, so the blocks themselves are opened.
    const long = { ...fields, productDetail: 'x'.repeat(80 * 117 - canonicalString(fields).length) };
    const { count, result } = await countPublicDecrypts(() => verify(long, eighty, platform.publicKey));
    assert.deepEqual([result, count], [false, 1]);
  });
});

describe('requestKeySizeProblem: key sizes that cannot sign a create within 512 characters', () => {
  it('a 4096-bit key is refused naming the sizes that work; 1024 to 3072 bits pass', () => {
    const { merchant } = loadVectors();
    assert.equal(requestKeySizeProblem(merchant.privateKey), undefined);
    for (const bits of [2048, 3072]) {
      const { privateKey } = generateKeyPairSync('rsa', { modulusLength: bits });
      assert.equal(requestKeySizeProblem(privateKey), undefined, `${bits}`);
    }
    const { privateKey } = generateKeyPairSync('rsa', { modulusLength: 4096 });
    assert.equal(
      requestKeySizeProblem(privateKey),
      'a 4096-bit RSA key cannot sign a request within the 512-character sign of the BDPay family; use a 1024-, 2048- or 3072-bit key',
    );
  });
});
