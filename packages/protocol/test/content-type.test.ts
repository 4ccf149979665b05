import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { contentTypeOf, isUtf8Charset, type ContentType } from '../src/index.ts';

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
