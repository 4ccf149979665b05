/**
 * Body reading owned by the router, so it works the same with or without the host app's global
 * parsers (stripe-node's most reported problem: a parser that ran first and ate the raw body).
 *
 * - Browser routes take JSON. If a global `express.json()` already parsed it, that object is used
 *   (it is checked by zod anyway); otherwise the raw stream is read here, within the route's limit.
 * - `/notify` takes the gateway's form-urlencoded (or JSON) body and needs the exact fields: it
 *   reads the raw stream here, with `Content-Encoding` read liberally (`EncodingPolicy`), and
 *   `notify-body.ts` makes the fields of it (or of what an earlier parser left).
 */
import { bodyEncoding, contentTypeOf, isUtf8Charset, MAX_JSON_DEPTH, readJsonText, UNSUPPORTED_CONTENT_ENCODING, type JsonBodyProblem } from '@tombolbayar/protocol';
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

/** The media type of the request's Content-Type, lower-cased, without parameters (the protocol's rule). */
export function mediaType(req: Request): string {
  return contentTypeOf(req.headers['content-type']).mediaType;
}

export const isPlainObject = (value: unknown): value is Record<string, unknown> =>
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
  const { charset } = contentTypeOf(req.headers['content-type']);
  if (charset !== undefined && !isUtf8Charset(charset)) {
    // The body is read as UTF-8; another declared charset would be silently misread.
    req.resume();
    throw new PayButtonError('unsupported_media_type', `Content-Type: charset must be utf-8 (got ${charset.slice(0, 40)}).`);
  }
  return parseJson(await readRaw(req, limit));
}

/** The rule a body nested past the protocol's `MAX_JSON_DEPTH` breaks. */
export const TOO_DEEP = `must not nest objects or arrays more than ${MAX_JSON_DEPTH} deep`;

/** The 400 naming what is wrong with a browser route's JSON body (the protocol's `readJsonText`). */
function jsonBodyError(problem: JsonBodyProblem): PayButtonError {
  switch (problem.kind) {
    case 'syntax':
      return new PayButtonError('invalid_request', 'body: is not valid JSON', { issues: [{ field: 'body', message: 'is not valid JSON' }] });
    case 'too_deep':
      return invalidRequest([{ field: 'body', message: TOO_DEEP }]);
    case 'repeated_key':
      return invalidRequest([{ field: problem.key.slice(0, 64), message: 'must appear only once' }]);
    case 'reserved_key': // not asked for: the strict schema names it
      return invalidRequest([{ field: problem.key, message: 'is not allowed' }]);
  }
}

function parseJson(raw: Buffer): unknown {
  if (raw.length === 0) throw new PayButtonError('invalid_request', 'body: is required (a JSON object)', { issues: [{ field: 'body', message: 'is required (a JSON object)' }] });
  // Reserved keys are left to the route's strict schema, which names them with every other unknown key.
  const read = readJsonText(raw.toString('utf8'), { reservedKeys: 'leave' });
  if (!read.ok) throw jsonBodyError(read.problem);
  return read.value;
}
