/**
 * The HTTP edges: content type, body size and JSON syntax checked before any route runs, unknown
 * routes, and the last-resort error handler. Every refusal is a signed `{platRespCode,
 * platRespMessage}` body with a meaningful HTTP status; nothing ever shows a stack trace.
 */
import express, { type ErrorRequestHandler, type RequestHandler } from 'express';
import type { Logger } from 'pino';
import type { PlatformSigner } from '../notify/notification.ts';
import { repeatedJsonKey } from '@paybutton/protocol';
import { RepeatedJsonKeyError } from './json-keys.ts';
import { sendSigned } from './respond.ts';

/** The body limit of every JSON endpoint. */
export const BODY_LIMIT_BYTES = 64 * 1024;

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
    sendSigned(res, sign, 'FAIL', 'Content-Type: must be application/json', {}, 415);
  };
}

/** JSON bodies up to 64 KB, no key repeated; syntax, size and repeat errors reach `errorHandler`. */
export function jsonBody(): RequestHandler {
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
    sendSigned(res, sign, 'FAIL', 'body: must be a JSON object', {}, 400);
  };
}

/** 405 for a known path asked with the wrong method. */
export function methodNotAllowed(sign: PlatformSigner, allowed: string): RequestHandler {
  return (req, res) => {
    res.set('Allow', allowed);
    sendSigned(res, sign, 'FAIL', `method: ${req.method} is not allowed here; use ${allowed}`, {}, 405);
  };
}

export function notFound(sign: PlatformSigner): RequestHandler {
  return (req, res) => {
    sendSigned(res, sign, 'NOTEXIST', `no route ${req.method} ${req.path}`, {}, 404);
  };
}

interface BodyParserError {
  type?: string;
  status?: number;
}

/** Body-parser failures by type: what the client did wrong, in the response's words. */
const CLIENT_ERRORS: Record<string, { status: number; message: string }> = {
  'entity.parse.failed': { status: 400, message: 'body: must be a valid JSON object' },
  'entity.too.large': { status: 413, message: `body: must be at most ${BODY_LIMIT_BYTES / 1024} KB` },
  'encoding.unsupported': { status: 415, message: 'Content-Encoding: is not supported' },
  'charset.unsupported': { status: 415, message: 'Content-Type: charset must be utf-8' },
  'request.aborted': { status: 400, message: 'body: the request was aborted' },
  'request.size.invalid': { status: 400, message: 'body: does not match Content-Length' },
  'stream.encoding.set': { status: 500, message: 'internal error' },
};

/**
 * What a client error without a known body-parser `type` was about, named like every refusal:
 * the router could not percent-decode a path parameter, or the body could not be read (a
 * Content-Encoding whose data does not decode, a stream cut short).
 */
function clientErrorMessage(error: unknown): string {
  if (error instanceof RepeatedJsonKeyError) return `${error.key.slice(0, 64)}: must appear only once in the JSON body`;
  if (error instanceof URIError) return 'path: is not validly percent-encoded';
  return 'body: could not be read (does it match its Content-Encoding and Content-Length?)';
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
    if (known && known.status < 500) {
      sendSigned(res, sign, 'FAIL', known.message, {}, known.status);
      return;
    }
    const status = typeof parserError?.status === 'number' && parserError.status >= 400 && parserError.status < 500 ? parserError.status : 500;
    if (status < 500) {
      sendSigned(res, sign, 'FAIL', clientErrorMessage(error), {}, status);
      return;
    }
    logger.error({ err: error, method: req.method, path: req.path }, 'internal error');
    sendSigned(res, sign, 'ERROR', 'internal error; the request may be retried, query the order first if it created one', {}, 500);
  };
}
