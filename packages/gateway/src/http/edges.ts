/**
 * The HTTP edges: content type, content encoding, body size and JSON syntax checked before any
 * route runs, unknown routes, and the last-resort error handler. Every refusal here is one of the
 * fixed, signed-once answers of `refusals.ts` with a meaningful HTTP status: nothing of the request
 * is repeated (or signed), and nothing ever shows a stack trace.
 */
import { bodyEncoding, repeatedJsonKey } from '@tombolbayar/protocol';
import { databaseFault, retryAfterSeconds } from '@tombolbayar/store-kit';
import express, { type ErrorRequestHandler, type RequestHandler } from 'express';
import type { Logger } from 'pino';
import type { PlatformSigner } from '../notify/notification.ts';
import { RepeatedJsonKeyError } from './json-keys.ts';
import { BODY_LIMIT_BYTES, sendRefusal, type RefusalName } from './refusals.ts';

export { BODY_LIMIT_BYTES };

const BODY_METHODS = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

function mediaType(header: string | undefined): string {
  return (header ?? '').split(';')[0]!.trim().toLowerCase();
}

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
    if (mediaType(req.headers['content-type']) === 'application/json') return next();
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
 * JSON bodies up to 64 KB (after inflating), no key repeated; syntax, size and repeat errors reach
 * `errorHandler`.
 */
export function jsonBody(sign: PlatformSigner): RequestHandler[] {
  return [contentEncoding(sign), jsonParser()];
}

function jsonParser(): RequestHandler {
  return express.json({
    limit: BODY_LIMIT_BYTES,
    strict: true,
    type: 'application/json',
    verify: (_req, _res, raw) => {
      const key = repeatedJsonKey(raw.toString('utf8'));
      if (key !== undefined) throw new RepeatedJsonKeyError(key);
    },
  });
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
  'entity.too.large': 'bodyTooLarge',
  'encoding.unsupported': 'contentEncoding',
  'charset.unsupported': 'charsetNotUtf8',
  'request.aborted': 'bodyAborted',
  'request.size.invalid': 'bodyLengthMismatch',
};

/**
 * What a client error without a known body-parser `type` was about: a repeated JSON key, a path
 * parameter the router could not percent-decode, or a body that could not be read (a
 * Content-Encoding whose data does not decode, a stream cut short).
 */
function clientRefusal(error: unknown): RefusalName {
  if (error instanceof RepeatedJsonKeyError) return 'bodyRepeatedKey';
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
