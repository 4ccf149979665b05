import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  compactFields, isFeeAmount, methodOrAliasField, notificationIsPaid, notificationOutcome, parseWith,
} from '../src/index.ts';
import { checkSignatureFits, generateKeyPair, maxSignableBytes } from '../src/node.ts';

describe('compactFields', () => {
  it('drops exactly null, undefined and ""', () => {
    assert.deepEqual(compactFields({ a: 'x', b: null, c: undefined, d: '', e: '0', f: ' ' }), { a: 'x', e: '0', f: ' ' });
  });
});

describe('isFeeAmount', () => {
  it('allows zero, unlike an amount', () => {
    for (const good of ['0', '4000', '999999999999']) assert.equal(isFeeAmount(good), true, good);
    for (const bad of ['', '00', '-1', '1.5', '0400', '9999999999999']) assert.equal(isFeeAmount(bad), false, bad);
  });
});

describe('methodOrAliasField', () => {
  it('normalises aliases and refuses the rest, naming the rule', () => {
    const ok = parseWith(methodOrAliasField, 'BCA');
    assert.deepEqual(ok, { ok: true, value: 'VA_BCA' });
    const cases: [unknown, RegExp][] = [['bca', /must be one of VA_BCA/], ['', /must be one of VA_BCA/], [42, /must be a string/], [undefined, /is required/]];
    for (const [bad, rule] of cases) {
      const result = parseWith(methodOrAliasField, bad);
      assert.equal(result.ok, false, String(bad));
      if (!result.ok) assert.match(result.message, rule);
    }
  });
});

describe('notificationOutcome', () => {
  it('reads code and status together', () => {
    assert.equal(notificationOutcome({ code: '00', status: 'SUCCESS' }), 'PAID');
    assert.equal(notificationOutcome({ code: '01', status: 'FAILED' }), 'FAILED');
    assert.equal(notificationOutcome({ code: '02', status: 'EXPIRED' }), 'EXPIRED');
    for (const [code, status] of [['00', 'FAILED'], ['01', 'SUCCESS'], ['02', 'FAILED'], ['99', 'EXPIRED']] as const) {
      assert.equal(notificationOutcome({ code, status }), undefined, `${code}/${status}`);
      assert.equal(notificationIsPaid({ code, status }), false);
    }
  });
});

describe('maxSignableBytes', () => {
  it('is the largest canonical string whose sign fits 512 characters', () => {
    assert.equal(maxSignableBytes(128), 351);
    assert.equal(maxSignableBytes(256), 245);
    const key = generateKeyPair().privateKey;
    const limit = maxSignableBytes(key);
    assert.equal(checkSignatureFits({ a: 'x'.repeat(limit) }, key).fits, true);
    assert.equal(checkSignatureFits({ a: 'x'.repeat(limit + 1) }, key).fits, false);
  });
});
