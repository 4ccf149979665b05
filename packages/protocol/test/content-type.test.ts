import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { contentTypeOf, inflatedLimit, isUtf8Charset, MAX_INFLATE_RATIO, type ContentType } from '../src/index.ts';

describe('contentTypeOf: what every body reader judges of a Content-Type', () => {
  const cases: ReadonlyArray<readonly [string | undefined, ContentType]> = [
    [undefined, { mediaType: '', charset: undefined }],
    ['application/json', { mediaType: 'application/json', charset: undefined }],
    ['Application/JSON; charset=UTF-8', { mediaType: 'application/json', charset: 'utf-8' }],
    ['application/json;charset="utf8"', { mediaType: 'application/json', charset: 'utf8' }],
    ['application/x-www-form-urlencoded ; Charset = ISO-8859-1', { mediaType: 'application/x-www-form-urlencoded', charset: 'iso-8859-1' }],
    ['text/plain; format=flowed', { mediaType: 'text/plain', charset: undefined }],
  ];
  for (const [header, expected] of cases) it(String(header), () => assert.deepEqual(contentTypeOf(header), expected));

  it('isUtf8Charset takes both spellings only', () => {
    assert.deepEqual(['utf-8', 'utf8', 'UTF-8', 'utf-16', 'latin1', ''].map(isUtf8Charset), [true, true, true, false, false, false]);
  });
});

describe('inflatedLimit: how far a compressed body may inflate, judged before anything reads it', () => {
  const LIMIT = 64 * 1024;
  const cases: ReadonlyArray<readonly [string, number, number]> = [
    ['a tiny body: at least 4 KB', 20, 4 * 1024],
    ['the 108-byte gzip of 64 KB: 4 KB, not 64', 108, 4 * 1024],
    ['a 1 KB body: 32 times', 1024, 32 * 1024],
    ['a 4 KB body: the body limit', 4 * 1024, LIMIT],
    ['never past the body limit', 1_000_000, LIMIT],
  ];
  for (const [name, compressed, expected] of cases) it(name, () => assert.equal(inflatedLimit(compressed, LIMIT), expected));
  it('a notification compressed as well as JSON compresses (10 times) is never refused', () => {
    for (const size of [200, 600, 2_000, 16_000]) assert.ok(inflatedLimit(size / 10, LIMIT) >= Math.min(size, LIMIT));
    assert.ok(MAX_INFLATE_RATIO >= 10);
  });
});
