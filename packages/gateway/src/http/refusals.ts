/**
 * Every answer the gateway gives before it knows who is asking, as fixed texts.
 *
 * The family's signature signs each 117-byte chunk on its own, so any platform-signed block over
 * bytes a caller chose is a valid `platSign` for a message of those bytes (issue 12). An
 * unauthenticated caller therefore never gets a signature over anything of its request: its
 * refusals come from this closed table, repeat nothing it sent, and are signed once per process
 * (memoised), so answering one costs no RSA operation at all, whatever the request's size.
 *
 * They are still signed because every answer of the API is, and the merchants' clients,
 * ours included, treat an unsigned answer as invalid. A fixed text cannot be spliced into a
 * notification or a create/query answer: each is one block shorter than 117 bytes that begins
 * with a refusal code (`FAIL...`, `NOTEXIST...`), where those begin with two digits, an e-mail
 * address or a timestamp and contain `SUCCESS`.
 */
import type { ResultCode, RuleId } from '@tombolbayar/protocol';
import { MAX_JSON_DEPTH, UNSUPPORTED_CONTENT_ENCODING } from '@tombolbayar/protocol';
import type { Response } from 'express';
import type { PlatformSigner } from '../notify/notification.ts';
import { signedBody, type ResponseFields } from './respond.ts';

/** The body limit of every JSON endpoint (inflated bytes, when the body is compressed). */
export const BODY_LIMIT_BYTES = 64 * 1024;

interface Refusal {
  readonly status: number;
  readonly code: Exclude<ResultCode, 'SUCCESS'>;
  readonly message: string;
}

const refusal = (status: number, code: Refusal['code'], message: string): Refusal => Object.freeze({ status, code, message });

/** The closed set. Messages contain no `"` (issue 14: the family's Java verifier strips it). */
export const REFUSALS = Object.freeze({
  notFound: refusal(404, 'NOTEXIST', 'path: no such route'),
  methodNotAllowed: refusal(405, 'FAIL', 'method: is not allowed here; see the Allow header'),
  contentTypeNotJson: refusal(415, 'FAIL', 'Content-Type: must be application/json'),
  charsetNotUtf8: refusal(415, 'FAIL', 'Content-Type: charset must be utf-8'),
  contentEncoding: refusal(415, 'FAIL', UNSUPPORTED_CONTENT_ENCODING),
  bodyRequired: refusal(400, 'FAIL', 'body: must be a JSON object'),
  bodyNotJson: refusal(400, 'FAIL', 'body: must be a valid JSON object'),
  bodyTooLarge: refusal(413, 'FAIL', `body: must be at most ${BODY_LIMIT_BYTES / 1024} KB`),
  bodyTooDeep: refusal(400, 'FAIL', `body: must not nest objects or arrays more than ${MAX_JSON_DEPTH} deep`),
  bodyRepeatedKey: refusal(400, 'FAIL', 'body: must not repeat a key (each field appears only once)'),
  bodyReservedKey: refusal(400, 'FAIL', 'body: must not use the key __proto__, constructor or prototype'),
  bodyAborted: refusal(400, 'FAIL', 'body: the request was aborted'),
  bodyLengthMismatch: refusal(400, 'FAIL', 'body: does not match Content-Length'),
  bodyUnreadable: refusal(400, 'FAIL', 'body: could not be read (does it match its Content-Encoding and Content-Length?)'),
  pathEncoding: refusal(400, 'FAIL', 'path: is not validly percent-encoded'),
  bodyNotObject: refusal(200, 'FAIL', 'body: must be a JSON object'),
  merchantCodeRequired: refusal(200, 'FAIL', 'merchantCode: is required'),
  merchantCodeNotString: refusal(200, 'FAIL', 'merchantCode: must be a string'),
  merchantCodeLength: refusal(200, 'FAIL', 'merchantCode: must be 5 to 50 characters'),
  merchantCodeNul: refusal(200, 'FAIL', 'merchantCode: must not contain the character U+0000'),
  merchantUnknown: refusal(200, 'NOTEXIST', 'merchantCode: no merchant is registered with this code'),
  signRequired: refusal(200, 'FAIL', 'sign: is required'),
  signNotString: refusal(200, 'FAIL', 'sign: must be a string'),
  signTooLong: refusal(200, 'FAIL', 'sign: must be at most 512 characters'),
  signMalformed: refusal(200, 'FAIL', 'sign: must be a base64 signature of at most 512 characters'),
  signMismatch: refusal(200, 'FAIL', "sign: does not verify with the merchant's public key over the fields sent"),
  internal: refusal(500, 'ERROR', 'internal error; the request may be retried, query the order first if it created one'),
  databaseUnavailable: refusal(503, 'ERROR', 'database: is unavailable; retry after Retry-After seconds, query the order first if it created one'),
  overloaded: refusal(503, 'ERROR', 'server: too many requests in progress; retry after Retry-After seconds'),
});

export type RefusalName = keyof typeof REFUSALS;

/** The signed bodies per signer, made on first use: a process signs each refusal once. */
const signedBodies = new WeakMap<PlatformSigner, Map<RefusalName, ResponseFields>>();

/** The signed body of a fixed refusal. */
export function refusalBody(sign: PlatformSigner, name: RefusalName): ResponseFields {
  let bodies = signedBodies.get(sign);
  if (!bodies) signedBodies.set(sign, (bodies = new Map()));
  let body = bodies.get(name);
  if (!body) {
    const { code, message } = REFUSALS[name];
    bodies.set(name, (body = signedBody(sign, code, message)));
  }
  return body;
}

/** Send a fixed refusal with its HTTP status. */
export function sendRefusal(res: Response, sign: PlatformSigner, name: RefusalName): void {
  res.status(REFUSALS[name].status).set('Cache-Control', 'no-store').json(refusalBody(sign, name));
}

/**
 * The fixed refusal for each rule of `merchantCode` and `sign` a caller can break before it is
 * authenticated, keyed on the protocol's rule identifiers (`RuleId`), never on the rule's words: a
 * reworded message cannot change which refusal is sent. `format` of `merchantCode` has no rule
 * (its only rules are type and length); anything unlisted answers the field's general refusal.
 */
const PRE_AUTH_REFUSALS: Readonly<Record<'merchantCode' | 'sign', Partial<Record<RuleId, RefusalName>> & { readonly otherwise: RefusalName }>> = {
  merchantCode: { required: 'merchantCodeRequired', type: 'merchantCodeNotString', too_short: 'merchantCodeLength', too_long: 'merchantCodeLength', otherwise: 'merchantCodeLength' },
  sign: { required: 'signRequired', type: 'signNotString', too_long: 'signTooLong', format: 'signMalformed', otherwise: 'signMalformed' },
};

/** The fixed refusal for a rule of `merchantCode` or `sign` the caller broke before it was authenticated. */
export function refusalForRule(field: 'merchantCode' | 'sign', rule: RuleId | undefined): RefusalName {
  const table = PRE_AUTH_REFUSALS[field];
  return (rule !== undefined ? table[rule] : undefined) ?? table.otherwise;
}
