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
import type { ResultCode } from '@tombolbayar/protocol';
import { UNSUPPORTED_CONTENT_ENCODING } from '@tombolbayar/protocol';
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
  bodyRepeatedKey: refusal(400, 'FAIL', 'body: must not repeat a key (each field appears only once)'),
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
 * The fixed refusal for a field rule the caller broke before it was authenticated, by the rule's
 * message (a closed set: the protocol's `merchantCode` and `sign` rules); `fallback` for any other.
 */
export function refusalForRule(field: 'merchantCode' | 'sign', ruleMessage: string | undefined, fallback: RefusalName): RefusalName {
  const wanted = `${field}: ${ruleMessage ?? ''}`;
  const found = (Object.keys(REFUSALS) as RefusalName[]).find((name) => REFUSALS[name].message === wanted);
  return found ?? fallback;
}
