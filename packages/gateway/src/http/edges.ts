/**
 * The HTTP edges: content type, content encoding, body size and JSON syntax checked before any
 * route runs, unknown routes, and the last-resort error handler. Every refusal here is one of the
 * fixed, signed-once answers of `refusals.ts` with a meaningful HTTP status: nothing of the request
 * is repeated (or signed), and nothing ever shows a stack trace.
 */
import { bodyEncoding, contentTypeOf, decodeBody, inflatedLimit, isUtf8Charset, readJsonText, type JsonBodyProblem } from '@tombolbayar/protocol';
import { databaseFault, retryAfterSeconds } from '@tombolbayar/store-kit';
import express, { type ErrorRequestHandler, type Request, type RequestHandler } from 'express';
import type { Logger } from 'pino';
import type { PlatformSigner } from '../notify/notification.ts';
import { RepeatedJsonKeyError, ReservedJsonKeyError } from './json-keys.ts';
import { BODY_LIMIT_BYTES, sendRefusal, type RefusalName } from './refusals.ts';

export { BODY_LIMIT_BYTES };

const BODY_METHODS = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

function carriesBody(headers: Record<string, string | string[] | undefined>): boolean {
  const length = headers['content-length'];
  return headers['transfer-encoding'] !== undefined || (length !== undefined && length !== '0');
}

/**
 * 415 unless the request is `application/json`. With `bodyRequired` false (sandbox routes whose
 * body is optional), a request without a body passes.
 */
export function requireJson(sign: PlatformSigner, options: { bodyRequired: boolean }): RequestHandler {
  return (req, res, next) => {
    if (!BODY_METHODS.has(req.method)) return next();
    if (!options.bodyRequired && !carriesBody(req.headers)) return next();
    if (contentTypeOf(req.headers['content-type']).mediaType === 'application/json') return next();
    sendRefusal(res, sign, 'contentTypeNotJson');
  };
}

/**
 * `Content-Encoding` read liberally (the protocol's `bodyEncoding`): a UTF-8 name, which the
 * family's Java client sends, is dropped so the body reads as identity; gzip and deflate go on to
 * `jsonBody`, which inflates them within its limit; anything else is 415.
 */
function contentEncoding(sign: PlatformSigner): RequestHandler {
  return (req, res, next) => {
    if (!carriesBody(req.headers)) return next();
    const encoding = bodyEncoding(req.headers['content-encoding']);
    if (encoding === undefined) {
      req.resume();
      return sendRefusal(res, sign, 'contentEncoding');
    }
    if (encoding === 'identity') delete req.headers['content-encoding'];
    next();
  };
}

/**
 * JSON bodies up to 64 KB (after inflating, and at most `inflatedLimit` of the bytes received),
 * nested at most 32 deep, no key repeated or reserved; syntax, size, depth and key errors reach
 * `errorHandler`.
 */
export function jsonBody(sign: PlatformSigner): RequestHandler[] {
  return [contentEncoding(sign), jsonParser()];
}

/** A client error `errorHandler` answers by its body-parser `type`. */
function parserError(type: string, message: string): Error {
  return Object.assign(new Error(message), { type, status: 400 });
}

/** The error `errorHandler` answers for a body the protocol's `readJsonText` refused. */
function bodyError(problem: JsonBodyProblem): Error {
  switch (problem.kind) {
    case 'syntax':
      return parserError('entity.parse.failed', 'invalid JSON');
    case 'too_deep':
      return parserError('entity.too.deep', 'nested too deep');
    case 'repeated_key':
      return new RepeatedJsonKeyError(problem.key);
    case 'reserved_key':
      return new ReservedJsonKeyError(problem.key);
  }
}

/**
 * The JSON body: raw bytes (inflated, within the limit), read as text by the protocol's
 * `decodeBody` (UTF-8, or ISO-8859-1 when the bytes are not UTF-8: a Java client's
 * `new StringEntity(json)`), then read by the protocol's `readJsonText` (an object or array,
 * nested at most `MAX_JSON_DEPTH` deep, no key repeated, none of `__proto__`, `constructor`,
 * `prototype`). A declared charset other than UTF-8 is refused: the signature is over UTF-8 text.
 */
function jsonParser(): RequestHandler {
  const raw = express.raw({ limit: BODY_LIMIT_BYTES, type: 'application/json' });
  return (req, res, next) => {
    const { mediaType, charset } = contentTypeOf(req.headers['content-type']);
    if (charset !== undefined && !isUtf8Charset(charset) && mediaType === 'application/json') {
      req.resume();
      return next(parserError('charset.unsupported', 'unsupported charset'));
    }
    const length = plainBodyLength(req);
    const read = length === undefined ? raw : (req: Request, _res: unknown, done: (error?: unknown) => void) => readPlainBody(req, length, done);
    const received = req.headers['content-encoding'] === undefined ? undefined : countReceived(req);
    read(req, res, (error?: unknown) => {
      if (error) return next(error);
      if (!Buffer.isBuffer(req.body)) return next();
      // A small compressed body that inflated far is refused before it is decoded, parsed or signed.
      if (received && req.body.length > inflatedLimit(received.bytes, BODY_LIMIT_BYTES)) return next(parserError('entity.too.large', 'inflates too far'));
      const { text } = decodeBody(req.body);
      if (text === '') {
        req.body = {};
        return next();
      }
      if (!/^[\s]*[{[]/.test(text)) return next(parserError('entity.parse.failed', 'not a JSON object or array'));
      const read = readJsonText(text);
      if (!read.ok) return next(bodyError(read.problem));
      req.body = read.value;
      next();
    });
  };
}

/** Counts the bytes of a compressed body as they arrive (body-parser inflates them as it reads). */
function countReceived(req: Request): { bytes: number } {
  const counter = { bytes: 0 };
  const onData = (chunk: Buffer) => void (counter.bytes += chunk.length);
  req.on('data', onData).once('end', () => req.off('data', onData)).once('close', () => req.off('data', onData));
  return counter;
}

/** `Content-Type` values body-parser's `type: 'application/json'` matches for certain (lowercased). */
const PLAIN_JSON_TYPES = new Set(['application/json', 'application/json; charset=utf-8', 'application/json;charset=utf-8']);

/**
 * The Content-Length of a body `readPlainBody` can take in place of body-parser: identity coding,
 * a plain JSON content type, a length within the limit, a stream nobody has read. Anything else
 * (compressed, chunked, too large, unusual headers) goes through body-parser as before.
 */
function plainBodyLength(req: Request): number | undefined {
  const { headers } = req;
  if (headers['content-encoding'] !== undefined || headers['transfer-encoding'] !== undefined) return undefined;
  const type = headers['content-type'];
  if (type === undefined || !PLAIN_JSON_TYPES.has(type.toLowerCase())) return undefined;
  const header = headers['content-length'];
  if (header === undefined || !/^\d{1,5}$/.test(header) || !req.readable || req.readableDidRead || req.socket.destroyed) return undefined;
  const length = Number(header);
  return length <= BODY_LIMIT_BYTES ? length : undefined;
}

/**
 * The whole body of a request `plainBodyLength` accepted, as `req.body`, without body-parser's
 * per-request machinery (issue 24): the same outcomes, a Buffer of exactly Content-Length bytes,
 * or `request.aborted` / `request.size.invalid` as raw-body names them.
 */
function readPlainBody(req: Request, length: number, done: (error?: unknown) => void): void {
  const chunks: Buffer[] = [];
  let received = 0;
  const finish = (error?: Error) => {
    req.off('data', onData).off('end', onEnd).off('aborted', onAborted).off('error', onError).off('close', onClose);
    if (error) return done(error);
    req.body = chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks, received);
    done();
  };
  const onData = (chunk: Buffer) => {
    received += chunk.length;
    chunks.push(chunk);
  };
  const onEnd = () => finish(received === length ? undefined : parserError('request.size.invalid', 'request size did not match content length'));
  const onAborted = () => finish(parserError('request.aborted', 'request aborted'));
  const onError = (error: Error) => finish(Object.assign(error, { status: 400 }));
  const onClose = () => finish(parserError('request.aborted', 'request aborted'));
  req.on('data', onData).on('end', onEnd).on('aborted', onAborted).on('error', onError).on('close', onClose);
}

/** 400 when a route that needs a body got none (the JSON parser would make that `{}`). */
export function requireBody(sign: PlatformSigner): RequestHandler {
  return (req, res, next) => {
    if (carriesBody(req.headers)) return next();
    sendRefusal(res, sign, 'bodyRequired');
  };
}

/** 405 for a known path asked with the wrong method; the Allow header names the right one. */
export function methodNotAllowed(sign: PlatformSigner, allowed: string): RequestHandler {
  return (_req, res) => {
    res.set('Allow', allowed);
    sendRefusal(res, sign, 'methodNotAllowed');
  };
}

/** 404 for anything unrouted: a fixed answer, the path is neither repeated nor signed (issue 12). */
export function notFound(sign: PlatformSigner): RequestHandler {
  return (_req, res) => {
    sendRefusal(res, sign, 'notFound');
  };
}

interface BodyParserError {
  type?: string;
  status?: number;
}

/** Body-parser failures by type: what the client did wrong, as a fixed refusal. */
const CLIENT_ERRORS: Record<string, RefusalName> = {
  'entity.parse.failed': 'bodyNotJson',
  'entity.too.deep': 'bodyTooDeep',
  'entity.too.large': 'bodyTooLarge',
  'encoding.unsupported': 'contentEncoding',
  'charset.unsupported': 'charsetNotUtf8',
  'request.aborted': 'bodyAborted',
  'request.size.invalid': 'bodyLengthMismatch',
};

/**
 * What a client error without a known body-parser `type` was about: a repeated or reserved JSON key, a path
 * parameter the router could not percent-decode, or a body that could not be read (a
 * Content-Encoding whose data does not decode, a stream cut short).
 */
function clientRefusal(error: unknown): RefusalName {
  if (error instanceof RepeatedJsonKeyError) return 'bodyRepeatedKey';
  if (error instanceof ReservedJsonKeyError) return 'bodyReservedKey';
  if (error instanceof URIError) return 'pathEncoding';
  return 'bodyUnreadable';
}

export function errorHandler(sign: PlatformSigner, logger: Logger): ErrorRequestHandler {
  return (error: unknown, req, res, _next) => {
    const parserError = error as BodyParserError;
    const known = parserError?.type ? CLIENT_ERRORS[parserError.type] : undefined;
    if (res.headersSent) {
      logger.error({ err: error, path: req.path }, 'error after the response started');
      res.destroy();
      return;
    }
    if (known) return sendRefusal(res, sign, known);
    const status = typeof parserError?.status === 'number' && parserError.status >= 400 && parserError.status < 500 ? parserError.status : 500;
    if (status < 500) return sendRefusal(res, sign, clientRefusal(error));
    // The database failed under this request (connection lost, timed out, busy): worth a retry.
    const fault = databaseFault(error);
    if (fault) {
      logger.warn({ err: error, fault, method: req.method, path: req.path }, 'database fault during a request');
      res.set('Retry-After', String(retryAfterSeconds(fault)));
      return sendRefusal(res, sign, 'databaseUnavailable');
    }
    logger.error({ err: error, method: req.method, path: req.path }, 'internal error');
    sendRefusal(res, sign, 'internal');
  };
}
