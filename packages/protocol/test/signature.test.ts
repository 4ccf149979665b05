import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { createPrivateKey, createPublicKey } from 'node:crypto';
import fc from 'fast-check';
import {
  canonicalString, checkSignatureFits, generateKeyPair, sign, signatureLength, SignatureKeyError, toPrivateKey,
  toPublicKey, verify,
} from '../src/node.ts';
import { loadVectors } from './vectors.ts';

const file = loadVectors();
const keysOf = (who: 'merchant' | 'platform') => file[who];

describe('known-answer vectors (test/fixtures/signature-vectors.json)', () => {
  it('holds the six vectors', () => {
    assert.ok(file.vectors.length >= 6, 'expected the six vectors');
  });

  for (const vector of file.vectors) {
    const expected = vector[vector.signatureField]!;
    it(`${vector.id}: canonical string, signature byte for byte, length, verification`, () => {
      const keys = keysOf(vector.signedBy);
      assert.equal(canonicalString(vector.fields), vector.canonical);
      assert.equal(sign(vector.fields, keys.privateKey), expected);
      assert.equal(expected.length, vector.signLength);
      assert.equal(signatureLength(vector.fields, keys.privateKey), vector.signLength);
      assert.equal(verify({ ...vector.fields, [vector.signatureField]: expected }, expected, keys.publicKey), true);
    });

    it(`${vector.id}: one changed field or one changed signature byte verifies false`, () => {
      const keys = keysOf(vector.signedBy);
      for (const field of Object.keys(vector.fields)) {
        if (!vector.fields[field]) continue;
        const tampered = { ...vector.fields, [field]: `${vector.fields[field]}x` };
        assert.equal(verify(tampered, expected, keys.publicKey), false, `tampered ${field} must not verify`);
      }
      const bytes = Buffer.from(expected, 'base64');
      for (const position of [0, 64, bytes.length - 1]) {
        const flipped = Buffer.from(bytes);
        flipped[position] = flipped[position]! ^ 0x01;
        assert.equal(verify(vector.fields, flipped.toString('base64'), keys.publicKey), false);
      }
    });

    it(`${vector.id}: the other party's key does not verify it`, () => {
      const other = keysOf(vector.signedBy === 'merchant' ? 'platform' : 'merchant');
      assert.equal(verify(vector.fields, expected, other.publicKey), false);
    });
  }
});

describe('verify never throws', () => {
  const vector = file.vectors[0]!;
  const signature = vector.sign!;
  const publicKey = file.merchant.publicKey;

  const garbage: unknown[] = [
    '', 'not base64 at all!', '====', 'A', 'AAAA', signature.slice(0, 172), signature.slice(0, -4), `${signature}AAAA`,
    signature.replace(/[A-Z]/g, 'z'), 42, null, undefined, {}, ['x'], '\u0000\u0001', '😀'.repeat(100),
  ];
  for (const [index, input] of garbage.entries()) {
    it(`garbage signature #${index} is false`, () => {
      assert.equal(verify(vector.fields, input, publicKey), false);
    });
  }

  it('an unusable key is false, not an exception', () => {
    assert.equal(verify(vector.fields, signature, 'not a pem'), false);
    assert.equal(verify(vector.fields, signature, ''), false);
    assert.equal(verify(vector.fields, signature, []), false);
  });

  it('fields that cannot be signed are false', () => {
    assert.equal(verify({ nested: { a: 1 } } as never, signature, publicKey), false);
  });
});

describe('keys and encodings', () => {
  const vector = file.vectors[0]!;
  const signature = vector.sign!;

  it('accepts URL-safe base64, with or without padding', () => {
    const urlSafe = signature.replace(/\+/g, '-').replace(/\//g, '_');
    assert.equal(verify(vector.fields, urlSafe, file.merchant.publicKey), true);
    assert.equal(verify(vector.fields, urlSafe.replace(/=+$/, ''), file.merchant.publicKey), true);
  });

  it('takes KeyObjects as well as PEM, and parses each PEM once', () => {
    const privateKey = createPrivateKey(file.merchant.privateKey);
    const publicKey = createPublicKey(file.merchant.publicKey);
    assert.equal(sign(vector.fields, privateKey), signature);
    assert.equal(verify(vector.fields, signature, publicKey), true);
    assert.equal(toPrivateKey(file.merchant.privateKey), toPrivateKey(file.merchant.privateKey));
    assert.equal(toPublicKey(file.merchant.publicKey), toPublicKey(file.merchant.publicKey));
  });

  it('verifies against a list of keys (rotation)', () => {
    const next = generateKeyPair();
    const signedByNew = sign(vector.fields, next.privateKey);
    const keys = [file.platform.publicKey, next.publicKey];
    assert.equal(verify(vector.fields, signedByNew, keys), true);
    assert.equal(verify(vector.fields, signature, keys), false);
    assert.equal(verify(vector.fields, signature, [...keys, file.merchant.publicKey]), true);
  });

  it('refuses a key that is not RSA, without echoing it', () => {
    assert.throws(() => sign(vector.fields, 'secret-material'), (error: unknown) => {
      assert.ok(error instanceof SignatureKeyError);
      assert.doesNotMatch(error.message, /secret-material/);
      return true;
    });
  });

  it('derives the chunk size from the key: 2048-bit keys use 245-byte chunks', () => {
    const big = generateKeyPair(2048);
    const fields = { a: 'x'.repeat(245) };
    assert.equal(Buffer.from(sign(fields, big.privateKey), 'base64').length, 256);
    assert.equal(Buffer.from(sign({ a: 'x'.repeat(246) }, big.privateKey), 'base64').length, 512);
    assert.equal(verify({ a: 'x'.repeat(246) }, sign({ a: 'x'.repeat(246) }, big.privateKey), big.publicKey), true);
  });

  it('round-trips multibyte UTF-8 that straddles the 117-byte chunk boundary', () => {
    for (let pad = 110; pad <= 118; pad++) {
      const fields = { a: 'x'.repeat(pad), b: '☕é—日本' };
      const signature = sign(fields, file.merchant.privateKey);
      assert.equal(verify(fields, signature, file.merchant.publicKey), true, `pad ${pad}`);
      assert.equal(verify({ ...fields, b: '☕é—日本!' }, signature, file.merchant.publicKey), false);
    }
  });

  it('signs an all-empty field map as one block', () => {
    const signature = sign({ a: '', b: null }, file.merchant.privateKey);
    assert.equal(verify({}, signature, file.merchant.publicKey), true);
  });
});

describe('the 512-character limit, told before sending', () => {
  it('351 bytes fit a 1024-bit key, 352 do not', () => {
    assert.deepEqual(checkSignatureFits({ a: 'x'.repeat(351) }, file.merchant.privateKey), { fits: true, length: 512, limit: 512 });
    assert.deepEqual(checkSignatureFits({ a: 'x'.repeat(352) }, file.merchant.privateKey), { fits: false, length: 684, limit: 512 });
    assert.equal(sign({ a: 'x'.repeat(352) }, file.merchant.privateKey).length, 684);
  });

  it('works from the key size alone and from a public key', () => {
    assert.equal(checkSignatureFits({ a: 'x'.repeat(200) }, 128).length, 344);
    assert.equal(checkSignatureFits({ a: 'x'.repeat(200) }, file.merchant.publicKey).length, 344);
  });
});

describe('properties', () => {
  const value = fc.oneof(fc.string({ unit: 'grapheme' }), fc.string(), fc.constant(''), fc.constant(null));
  const fieldMap = fc.dictionary(fc.string({ minLength: 1, maxLength: 12 }).filter((key) => key !== '__proto__'), value, {
    maxKeys: 12,
  });

  it('sign then verify round-trips for arbitrary field maps', () => {
    fc.assert(
      fc.property(fieldMap, (fields) => {
        const signature = sign(fields, file.merchant.privateKey);
        return verify(fields, signature, file.merchant.publicKey) && !verify(fields, signature, file.platform.publicKey);
      }),
      { numRuns: 150 },
    );
  });

  it('canonicalString ignores key order', () => {
    fc.assert(
      fc.property(fieldMap, fc.integer(), (fields, seed) => {
        const entries = Object.entries(fields);
        const shuffled = entries
          .map((entry, index) => ({ entry, order: (index * 7919 + seed) % 104729 }))
          .sort((a, b) => a.order - b.order)
          .map(({ entry }) => entry);
        return canonicalString(Object.fromEntries(shuffled)) === canonicalString(fields);
      }),
      { numRuns: 300 },
    );
  });

  it('canonicalString drops exactly the signature fields and the empty values', () => {
    fc.assert(
      fc.property(fieldMap, fc.string(), fc.string(), (fields, signValue, platSignValue) => {
        return canonicalString({ ...fields, sign: signValue, platSign: platSignValue }) === canonicalString(fields);
      }),
    );
  });
});
