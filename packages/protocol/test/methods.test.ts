import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { METHOD_CODES, METHODS, methodsOfKind, resolveMethod, RESULT_CODES } from '../src/methods.ts';

describe('method table', () => {
  it('has the 14 codes of spec 2.4 with their kinds', () => {
    assert.equal(METHOD_CODES.length, 14);
    assert.equal(methodsOfKind('virtual-account').length, 10);
    assert.deepEqual(methodsOfKind('retail').map((m) => m.code), ['RETAIL_ALFAMART']);
    assert.deepEqual(methodsOfKind('qr').map((m) => m.code), ['QRIS']);
    assert.deepEqual(methodsOfKind('e-wallet').map((m) => m.code), ['EWALLET_DANA', 'EWALLET_OVO']);
    assert.ok(!('EWALLET_OVOOVO_PLACEHOLDER' in METHODS));
  });
  it('maps aliases to codes', () => {
    assert.equal(resolveMethod('BCA'), 'VA_BCA');
    assert.equal(resolveMethod('DANA'), 'EWALLET_DANA');
    assert.equal(resolveMethod('ALFAMART'), 'RETAIL_ALFAMART');
    assert.equal(resolveMethod('QRIS'), 'QRIS');
    assert.equal(resolveMethod('VA_MANDIRI'), 'VA_MANDIRI');
    assert.equal(resolveMethod('bca'), undefined);
    assert.equal(resolveMethod('__proto__'), undefined);
    assert.equal(resolveMethod('toString'), undefined);
  });
  it('every method has a display name and a unique alias', () => {
    const aliases = new Set(METHOD_CODES.map((code) => METHODS[code].alias));
    assert.equal(aliases.size, 14);
    for (const code of METHOD_CODES) assert.ok(METHODS[code].displayName.length > 0);
  });
  it('has the five result codes', () => {
    assert.deepEqual([...RESULT_CODES], ['SUCCESS', 'FAIL', 'UNKNOWN', 'NOTEXIST', 'ERROR']);
  });
});
