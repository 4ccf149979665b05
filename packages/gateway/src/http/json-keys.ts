/**
 * Repeated keys in a JSON body are refused (`repeatedJsonKey` of the protocol): `JSON.parse` keeps
 * the last of `{"payMoney":"1","payMoney":"2"}`; a proxy, a WAF or a log parser in front of us may
 * keep the first and see another request. The merchant's signature covers what we parse, so the
 * ambiguity is refused instead (with a fixed message: the caller is not authenticated yet, so
 * nothing it sent is repeated).
 */

/** What `jsonBody()`'s verify step throws; `errorHandler` answers it 400 (`bodyRepeatedKey`). */
export class RepeatedJsonKeyError extends Error {
  readonly type = 'entity.repeated.key';
  readonly status = 400;
  constructor(readonly key: string) {
    super(`the JSON body repeats the key ${JSON.stringify(key.slice(0, 64))}`);
  }
}

/**
 * `__proto__`, `constructor` or `prototype` as a key (the protocol's `RESERVED_JSON_KEYS`): no
 * message of the family has one, and each changes what an object is in JavaScript. 400
 * (`bodyReservedKey`), rather than dropped in silence.
 */
export class ReservedJsonKeyError extends Error {
  readonly type = 'entity.reserved.key';
  readonly status = 400;
  constructor(readonly key: string) {
    super(`the JSON body uses the reserved key ${key}`);
  }
}
