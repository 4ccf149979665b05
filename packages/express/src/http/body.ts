/**
 * Body reading owned by the router, so it works the same with or without the host app's global
 * parsers (stripe-node's most reported problem: a parser that ran first and ate the raw body).
 *
 * - Browser routes take JSON. If a global `express.json()` already parsed it, that object is used
 *   (it is checked by zod anyway); otherwise the raw stream is read here, within the route's limit.
 * - `/notify` takes the gateway's form-urlencoded (or JSON) body. It needs the exact fields, so it
 *   reads the raw stream, with `Content-Encoding` read liberally (`EncodingPolicy`); if a parser consumed it first, a flat object of strings (what
 *   `express.urlencoded()` produces) or a raw Buffer/string is still usable: the signature decides.
 *   Anything else is refused with a message that says which parser to move.
 */
import { bodyEncoding, decodeBody, MAX_JSON_DEPTH, readJsonText, RESERVED_JSON_KEYS, reservedJsonKey, UNSUPPORTED_CONTENT_ENCODING, type JsonBodyProblem } from '@tombolbayar/protocol';
import type { Request } from 'express';
import type { Readable, Transform } from 'node:stream';
import { createGunzip, createInflate } from 'node:zlib';
import { PayButtonError, invalidRequest } from '../errors.ts';

/** True when something before us already read the request stream. */
export function bodyConsumed(req: Request): boolean {
  return req.readableEnded || (req as { _body?: boolean })._body === true || (req.complete && !req.readable);
}

function tooLarge(limit: number): PayButtonError {
  return new PayButtonError('payload_too_large', `The request body is larger than ${limit} bytes.`);
}

/**
 * How a reader treats `Content-Encoding`: browser routes take identity only (browsers never
 * compress a request); `/notify` reads it liberally, by the protocol's `bodyEncoding` rule, because
 * the family's gateways may send `Content-Encoding: UTF-8` (a character set) or a gzip body.
 */
export type EncodingPolicy = 'identity' | 'liberal';

function unsupportedEncoding(policy: EncodingPolicy): PayButtonError {
  return policy === 'identity'
    ? new PayButtonError('unsupported_media_type', 'Content-Encoding: is not accepted; send the body uncompressed.')
    : new PayButtonError('unsupported_media_type', UNSUPPORTED_CONTENT_ENCODING);
}

/** The stream to read the body from: the request itself, or an inflater it is piped through. */
function decodedStream(req: Request, policy: EncodingPolicy): { stream: Readable; inflater?: Transform } | PayButtonError {
  const header = req.headers['content-encoding'];
  const encoding = policy === 'liberal' ? bodyEncoding(header) : header === undefined || header.toLowerCase() === 'identity' ? 'identity' : undefined;
  if (encoding === undefined) return unsupportedEncoding(policy);
  if (encoding === 'identity') return { stream: req };
  const inflater = encoding === 'gzip' ? createGunzip() : createInflate();
  req.pipe(inflater);
  return { stream: inflater, inflater };
}

/**
 * Read the raw body, refusing more than `limit` bytes: by Content-Length up front (a compressed
 * body larger than the limit is refused too), then while reading, counting inflated bytes.
 */
export function readRaw(req: Request, limit: number, policy: EncodingPolicy = 'identity'): Promise<Buffer> {
  const declared = Number(req.headers['content-length']);
  const source = decodedStream(req, policy);
  if (source instanceof PayButtonError) {
    req.resume();
    return Promise.reject(source);
  }
  if (Number.isFinite(declared) && declared > limit) {
    if (source.inflater) {
      req.unpipe(source.inflater);
      source.inflater.destroy();
    }
    req.resume();
    return Promise.reject(tooLarge(limit));
  }
  const { stream, inflater } = source;
  return new Promise<Buffer>((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let done = false;
    const fail = (error: PayButtonError): void => {
      if (done) return;
      done = true;
      cleanup();
      if (inflater) {
        req.unpipe(inflater);
        inflater.destroy();
      }
      // Drain the rest so the connection can still carry our answer.
      req.resume();
      reject(error);
    };
    const onData = (chunk: Buffer): void => {
      size += chunk.length;
      if (size > limit) fail(tooLarge(limit));
      else chunks.push(chunk);
    };
    const onEnd = (): void => {
      if (done) return;
      done = true;
      cleanup();
      resolve(Buffer.concat(chunks));
    };
    const onError = (): void =>
      fail(
        new PayButtonError(
          'invalid_request',
          !inflater ? 'The request body could not be read (the connection broke off).' : 'The request body does not inflate as its Content-Encoding says.',
        ),
      );
    const onAborted = (): void => fail(new PayButtonError('invalid_request', 'The request was aborted before its body arrived.'));
    const cleanup = (): void => {
      stream.off('data', onData);
      stream.off('end', onEnd);
      stream.off('error', onError);
      req.off('error', onError);
      req.off('aborted', onAborted);
    };
    stream.on('data', onData);
    stream.on('end', onEnd);
    stream.on('error', onError);
    if (inflater) req.on('error', onError);
    req.on('aborted', onAborted);
  });
}

function mediaType(req: Request): string {
  return (req.headers['content-type'] ?? '').split(';')[0]!.trim().toLowerCase();
}

/** The `charset` parameter of Content-Type, lower-cased and unquoted; undefined when absent. */
function charsetOf(req: Request): string | undefined {
  const match = /;\s*charset\s*=\s*"?([^";\s]*)"?/i.exec(req.headers['content-type'] ?? '');
  return match ? match[1]!.toLowerCase() : undefined;
}

const isPlainObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value) && !Buffer.isBuffer(value);

/**
 * The size of a body an earlier parser already read: its declared Content-Length, or else the
 * size of what it produced (re-serialised), whichever is larger.
 */
function parsedSize(req: Request): number {
  const declared = Number(req.headers['content-length']);
  const body: unknown = req.body;
  let produced = 0;
  if (typeof body === 'string') produced = Buffer.byteLength(body, 'utf8');
  else if (Buffer.isBuffer(body)) produced = body.length;
  else if (body !== undefined) {
    try {
      produced = Buffer.byteLength(JSON.stringify(body) ?? '', 'utf8');
    } catch {
      produced = 0; // not serialisable (a cycle): zod refuses it anyway
    }
  }
  return Math.max(Number.isFinite(declared) ? declared : 0, produced);
}

/** The JSON body of a browser route, as an object (validated by the caller). */
export async function readJsonBody(req: Request, limit: number): Promise<unknown> {
  const type = mediaType(req);
  const isJson = type === 'application/json' || type.endsWith('+json');
  if (bodyConsumed(req)) {
    // Whatever an earlier parser made of it, the browser routes speak JSON only.
    if (!isJson) throw new PayButtonError('unsupported_media_type', `Send the body as JSON with Content-Type: application/json${type ? ` (got ${type})` : ''}.`);
    // The earlier parser had its own (usually larger) limit: ours still applies.
    if (parsedSize(req) > limit) throw tooLarge(limit);
    if (isPlainObject(req.body)) return req.body;
    if (typeof req.body === 'string' || Buffer.isBuffer(req.body)) return parseJson(Buffer.from(req.body));
    throw new PayButtonError('invalid_request', 'The request body was consumed by another body parser before payButton() could read it; send JSON (Content-Type: application/json).');
  }
  if (!isJson) {
    req.resume();
    throw new PayButtonError('unsupported_media_type', `Send the body as JSON with Content-Type: application/json${type ? ` (got ${type})` : ''}.`);
  }
  const charset = charsetOf(req);
  if (charset !== undefined && charset !== 'utf-8' && charset !== 'utf8') {
    // The body is read as UTF-8; another declared charset would be silently misread.
    req.resume();
    throw new PayButtonError('unsupported_media_type', `Content-Type: charset must be utf-8 (got ${charset.slice(0, 40)}).`);
  }
  return parseJson(await readRaw(req, limit));
}

const TOO_DEEP = `must not nest objects or arrays more than ${MAX_JSON_DEPTH} deep`;

/** The 400 naming what is wrong with a browser route's JSON body (the protocol's `readJsonText`). */
function jsonBodyError(problem: JsonBodyProblem): PayButtonError {
  switch (problem.kind) {
    case 'syntax':
      return new PayButtonError('invalid_request', 'body: is not valid JSON', { issues: [{ field: 'body', message: 'is not valid JSON' }] });
    case 'too_deep':
      return invalidRequest([{ field: 'body', message: TOO_DEEP }]);
    case 'repeated_key':
      return invalidRequest([{ field: problem.key.slice(0, 64), message: 'must appear only once' }]);
    case 'reserved_key':
      return invalidRequest([{ field: problem.key, message: 'is not allowed' }]);
  }
}

function parseJson(raw: Buffer): unknown {
  if (raw.length === 0) throw new PayButtonError('invalid_request', 'body: is required (a JSON object)', { issues: [{ field: 'body', message: 'is required (a JSON object)' }] });
  const read = readJsonText(raw.toString('utf8'));
  if (!read.ok) throw jsonBodyError(read.problem);
  return read.value;
}

/** A notification's fields as received: every value a string (numbers from JSON are stringified). */
export type ReceivedFields = Record<string, string>;

export class NotifyBodyError extends Error {
  constructor(readonly reason: 'body_consumed' | 'unreadable_body', readonly httpStatus: number, message: string) {
    super(message);
  }
}

/** `__proto__`, `constructor` or `prototype` as a field: refused, rather than dropped in silence. */
function reservedFieldError(key: string): NotifyBodyError {
  return new NotifyBodyError('unreadable_body', 400, `field ${key} is not allowed (__proto__, constructor and prototype are refused)`);
}

function fromForm(text: string): ReceivedFields {
  const fields: ReceivedFields = {};
  for (const [key, value] of new URLSearchParams(text)) {
    if (RESERVED_JSON_KEYS.includes(key)) throw reservedFieldError(key);
    if (Object.prototype.hasOwnProperty.call(fields, key)) throw new NotifyBodyError('unreadable_body', 400, `field ${key.slice(0, 64)} appears more than once`);
    fields[key] = value;
  }
  return fields;
}

function fromObject(value: unknown, what: string): ReceivedFields {
  if (!isPlainObject(value)) throw new NotifyBodyError('unreadable_body', 400, `${what} is not a flat object of fields`);
  const reserved = reservedJsonKey(value);
  if (reserved !== undefined) throw reservedFieldError(reserved);
  const fields: ReceivedFields = {};
  for (const [key, field] of Object.entries(value)) {
    if (typeof field === 'string') fields[key] = field;
    else if (typeof field === 'number' && Number.isFinite(field)) fields[key] = String(field);
    else if (field === null) continue;
    else throw new NotifyBodyError('unreadable_body', 400, `field ${key.slice(0, 64)} is not a string`);
  }
  return fields;
}

/** Why a JSON notification cannot be read (the protocol's `readJsonText`), as `/notify` words it. */
function notifyJsonError(problem: JsonBodyProblem): NotifyBodyError {
  switch (problem.kind) {
    case 'syntax':
      return new NotifyBodyError('unreadable_body', 400, 'the JSON body does not parse');
    case 'too_deep':
      return new NotifyBodyError('unreadable_body', 400, `the JSON body ${TOO_DEEP}`);
    case 'repeated_key':
      return new NotifyBodyError('unreadable_body', 400, `field ${problem.key.slice(0, 64)} appears more than once`);
    case 'reserved_key':
      return reservedFieldError(problem.key);
  }
}

function parseNotifyText(text: string, type: string): ReceivedFields {
  if (type === 'application/json' || type.endsWith('+json')) {
    const read = readJsonText(text);
    if (!read.ok) throw notifyJsonError(read.problem);
    return fromObject(read.value, 'the JSON body');
  }
  return fromForm(text);
}

/** Read a notification's fields from the raw body, or from what an earlier parser left. */
export async function readNotifyFields(req: Request, limit: number): Promise<ReceivedFields> {
  const type = mediaType(req);
  if (type && type !== 'application/x-www-form-urlencoded' && type !== 'application/json' && !type.endsWith('+json') && type !== 'text/plain') {
    req.resume();
    throw new NotifyBodyError('unreadable_body', 415, `content type ${type} is not a notification (expected application/x-www-form-urlencoded)`);
  }
  if (!bodyConsumed(req)) {
    let raw: Buffer;
    try {
      raw = await readRaw(req, limit, 'liberal');
    } catch (error) {
      const status = error instanceof PayButtonError ? error.httpStatus : 400;
      throw new NotifyBodyError('unreadable_body', status, error instanceof Error ? error.message : 'unreadable body');
    }
    // UTF-8, or ISO-8859-1 when the bytes are not UTF-8 (the protocol's one rule for bodies).
    return parseNotifyText(decodeBody(raw).text, type);
  }
  const body: unknown = req.body;
  if (Buffer.isBuffer(body)) return parseNotifyText(decodeBody(body).text, type);
  if (typeof body === 'string') return parseNotifyText(body, type);
  if (isPlainObject(body) && Object.keys(body).length > 0) return fromObject(body, 'the body parsed by an earlier parser');
  throw new NotifyBodyError(
    'body_consumed',
    500,
    'The notification body was consumed by a body parser that ran before payButton() and left nothing usable. ' +
      'Mount payButton() before global body parsers (app.use("/pay", payButton(...)) first), or exclude its /notify route from them.',
  );
}
