import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { jsonTextProblem, MAX_JSON_DEPTH, readJsonText, repeatedJsonKey, reservedJsonKey, type JsonBodyProblem, type JsonTextProblem } from '../src/index.ts';

const nestedArrays = (depth: number) => '['.repeat(depth) + ']'.repeat(depth);
const nestedObjects = (depth: number) => '{"a":'.repeat(depth) + '"x"' + '}'.repeat(depth);
const TOO_DEEP: JsonTextProblem = { kind: 'too_deep', maxDepth: MAX_JSON_DEPTH };

describe('jsonTextProblem: repeated keys and nesting, found in one linear pass', () => {
  const cases: ReadonlyArray<readonly [string, string, JsonTextProblem | undefined]> = [
    ['a flat message', '{"payMoney":"150000","orderNum":"A-1"}', undefined],
    ['a repeated key', '{"payMoney":"1","payMoney":"2"}', { kind: 'repeated_key', key: 'payMoney' }],
    ['a repeat written with an escape', '{"payMoney":"1","pay\\u004doney":"2"}', { kind: 'repeated_key', key: 'payMoney' }],
    ['the same key in two objects', '[{"a":"1"},{"a":"2"}]', undefined],
    ['a key-like string value', '{"a":"b","c":"b"}', undefined],
    ['brackets inside strings do not count', `{"a":"${'['.repeat(100)}"}`, undefined],
    [`arrays ${MAX_JSON_DEPTH} deep`, nestedArrays(MAX_JSON_DEPTH), undefined],
    [`arrays ${MAX_JSON_DEPTH + 1} deep`, nestedArrays(MAX_JSON_DEPTH + 1), TOO_DEEP],
    [`objects ${MAX_JSON_DEPTH} deep`, nestedObjects(MAX_JSON_DEPTH), undefined],
    [`objects ${MAX_JSON_DEPTH + 1} deep`, nestedObjects(MAX_JSON_DEPTH + 1), TOO_DEEP],
    ['32 000 levels of arrays (a 64 KB body)', nestedArrays(32_000), TOO_DEEP],
    ['unclosed brackets, as deep', '['.repeat(MAX_JSON_DEPTH + 1), TOO_DEEP],
    ['a repeat before the depth is exceeded is found first', `{"a":"1","a":${nestedArrays(MAX_JSON_DEPTH + 5)}}`, { kind: 'repeated_key', key: 'a' }],
    ['depth still counted after an unreadable key', `{"\\x":${nestedArrays(MAX_JSON_DEPTH)}}`, TOO_DEEP],
  ];
  for (const [what, text, expected] of cases) {
    it(what, () => assert.deepEqual(jsonTextProblem(text), expected));
  }

  it('repeatedJsonKey does not bound the depth', () => {
    assert.equal(repeatedJsonKey(nestedArrays(10_000)), undefined);
    assert.equal(repeatedJsonKey(`${'['.repeat(10_000)}{"k":"1","k":"2"}${']'.repeat(10_000)}`), 'k');
  });
});

describe('reservedJsonKey', () => {
  it('finds __proto__, constructor and prototype at any depth', () => {
    assert.equal(reservedJsonKey(JSON.parse('{"a":"1","__proto__":{"x":1}}')), '__proto__');
    assert.equal(reservedJsonKey(JSON.parse('{"a":{"constructor":"1"}}')), 'constructor');
    assert.equal(reservedJsonKey(JSON.parse('[{"prototype":"1"}]')), 'prototype');
    assert.equal(reservedJsonKey(JSON.parse('{"proto":"1","Constructor":"2"}')), undefined);
  });

  it('walks a value nested deeper than the call stack without throwing (an earlier parser gave it)', () => {
    // JSON.parse is iterative in V8; a recursive walk of this throws RangeError.
    const deep = (inner: string) => JSON.parse('{"a":'.repeat(100_000) + inner + '}'.repeat(100_000)) as unknown;
    assert.equal(reservedJsonKey(deep('"x"')), undefined);
    assert.equal(reservedJsonKey(deep('{"constructor":"1"}')), 'constructor');
    assert.equal(reservedJsonKey(JSON.parse(nestedArrays(200_000))), undefined);
  });
});

describe('readJsonText: every rule, in the one order every reader uses', () => {
  const cases: ReadonlyArray<readonly [string, string, JsonBodyProblem | undefined]> = [
    ['a flat message', '{"payMoney":"150000"}', undefined],
    ['a syntax error', '{"payMoney":', { kind: 'syntax' }],
    ['too deep, even when it would not parse', `{"a":${'['.repeat(MAX_JSON_DEPTH + 1)}`, TOO_DEEP],
    ['a syntax error before a repeated key is judged', '{"a":"1","a":', { kind: 'syntax' }],
    ['a repeated key', '{"a":"1","a":"2"}', { kind: 'repeated_key', key: 'a' }],
    ['a repeated reserved key is a repeat', '{"__proto__":"1","__proto__":"2"}', { kind: 'repeated_key', key: '__proto__' }],
    ['a reserved key, nested', '{"a":{"constructor":"1"}}', { kind: 'reserved_key', key: 'constructor' }],
  ];
  for (const [what, text, expected] of cases) {
    it(what, () => {
      const read = readJsonText(text);
      assert.deepEqual(read.ok ? undefined : read.problem, expected);
    });
  }
  it('leaves reserved keys to a strict schema when asked, every other rule still applies', () => {
    assert.deepEqual(readJsonText('{"__proto__":{"a":"1"}}', { reservedKeys: 'leave' }).ok, true);
    assert.deepEqual(readJsonText(`{"__proto__":${'['.repeat(MAX_JSON_DEPTH + 1)}`, { reservedKeys: 'leave' }), { ok: false, problem: TOO_DEEP });
  });
  it('gives the parsed value when nothing is wrong', () => assert.deepEqual(readJsonText('{"a":["1"]}'), { ok: true, value: { a: ['1'] } }));
});
