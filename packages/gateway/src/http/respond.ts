/**
 * Every JSON answer of the gateway's API is a flat map of strings carrying `platRespCode`,
 * `platRespMessage` and `platSign` over all the other fields, whatever the outcome:
 * a merchant can verify a FAIL just like a SUCCESS.
 */
import { compactFields, type ResultCode } from '@tombolbayar/protocol';
import type { Response } from 'express';
import type { PlatformSigner } from '../notify/notification.ts';

export type ResponseFields = Record<string, string>;

export function signedBody(sign: PlatformSigner, code: ResultCode, message: string, fields: Record<string, string | null | undefined> = {}): ResponseFields {
  // Absent values are dropped by the protocol's rule: the body holds exactly what platSign covers.
  const body = compactFields({ platRespCode: code, platRespMessage: message, ...fields });
  return { ...body, platSign: sign(body) };
}

/**
 * Send a signed result. Responses are never cached: each describes one request's outcome.
 * Written straight to Node (issue 24): the very status line, headers and bytes Express's
 * `res.status().set().json()` wrote (headers set earlier, e.g. helmet's, come first), without
 * `res.send`'s per-answer work (content-type parsing, ETag and freshness checks, which never
 * apply to these POST answers).
 */
export function sendSigned(
  res: Response,
  sign: PlatformSigner,
  code: ResultCode,
  message: string,
  fields: Record<string, string | null | undefined> = {},
  httpStatus = 200,
): void {
  const body = JSON.stringify(signedBody(sign, code, message, fields));
  res.writeHead(httpStatus, { 'Cache-Control': 'no-store', 'Content-Type': 'application/json; charset=utf-8', 'Content-Length': String(Buffer.byteLength(body)) });
  res.end(body);
}
