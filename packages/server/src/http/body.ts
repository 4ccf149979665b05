/**
 * Body reading owned by the plug-in, so it works the same with or without the host app's global
 * parsers (stripe-node's most reported problem: a parser that ran first and ate the raw body).
 *
 * - Browser routes take JSON. If an earlier parser already read it (`RequestFacts.parsedBody`,
 *   e.g. a global `express.json()`), that value is used (it is checked by zod anyway); otherwise
 *   the request's body is read here, within the route's limit.
 * - `/notify` takes the gateway's form-urlencoded (or JSON) body and needs the exact bytes: it
 *   reads the raw body here, with `Content-Encoding` read liberally (`EncodingPolicy`), and
 *   `notify-body.ts` makes the fields of it (or of what an earlier parser left).
 */
import { bodyEncoding, contentTypeOf, inflatedLimit, isUtf8Charset, MAX_INFLATE_RATIO, MAX_JSON_DEPTH, readJsonText, UNSUPPORTED_CONTENT_ENCODING, type JsonBodyProblem } from '@tombolbayar/protocol';
import { gunzipSync, inflateSync } from 'node:zlib';
import { PayButtonError, invalidRequest } from '../errors.ts';
import { readWebBody } from './admission.ts';
import type { CoreRequest, ParsedBody } from './context.ts';

export type { ParsedBody } from './context.ts';

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

/** A compressed body may be this much larger than its inflated limit (gzip's header and trailer). */
const COMPRESSION_SLACK_BYTES = 1024;

/** The name an adapter gives the error its body stream ends with when the client went away. */
const ABORTED = 'AbortError';

const unreadable = (error: unknown): PayButtonError =>
  new PayButtonError('invalid_request', (error as { name?: unknown } | undefined)?.name === ABORTED
    ? 'The request was aborted before its body arrived.'
    : 'The request body could not be read (the connection broke off).');

/**
 * Read the body whole, refusing past `max` bytes (the rest is cancelled, so the answer can still be
 * sent). A `PayButtonError` (the body's deadline) passes as it is; any other failure is the client's.
 */
async function readUpTo(request: CoreRequest, max: number, limit: number): Promise<Buffer> {
  let whole: Buffer | undefined;
  try {
    whole = await (request.readBody ? request.readBody(max) : readWebBody(request.body, max).read);
  } catch (error) {
    throw error instanceof PayButtonError ? error : unreadable(error);
  }
  if (whole === undefined) throw tooLarge(limit);
  return whole;
}

/**
 * Read the raw body, refusing more than `limit` bytes: by Content-Length up front (a compressed
 * body larger than the limit is refused too), then while reading, and once inflated (a small gzip
 * of a large body is refused by what it inflates to, and by how many times its size that is).
 */
export async function readRaw(request: CoreRequest, limit: number, policy: EncodingPolicy = 'identity'): Promise<Buffer> {
  const header = request.headers.get('content-encoding') ?? undefined;
  const encoding = policy === 'liberal' ? bodyEncoding(header) : header === undefined || header.toLowerCase() === 'identity' ? 'identity' : undefined;
  if (encoding === undefined) {
    request.body?.cancel().catch(() => {});
    throw unsupportedEncoding(policy);
  }
  const declared = Number(request.headers.get('content-length') ?? undefined);
  if (Number.isFinite(declared) && declared > limit) {
    request.body?.cancel().catch(() => {});
    throw tooLarge(limit);
  }
  const inflating = encoding !== 'identity';
  const raw = await readUpTo(request, inflating ? limit + COMPRESSION_SLACK_BYTES : limit, limit);
  if (!inflating) return raw;
  // Bounded by what arrived too: a small body that inflates far is refused before it is decoded,
  // parsed or its signature checked, having cost the inflating of a few KB at most.
  const bound = inflatedLimit(raw.length, limit);
  try {
    return encoding === 'gzip' ? gunzipSync(raw, { maxOutputLength: bound }) : inflateSync(raw, { maxOutputLength: bound });
  } catch (error) {
    if ((error as { code?: unknown }).code === 'ERR_BUFFER_TOO_LARGE') {
      throw bound < limit ? new PayButtonError('payload_too_large', `The request body inflates to more than ${MAX_INFLATE_RATIO} times its compressed size.`) : tooLarge(limit);
    }
    throw new PayButtonError('invalid_request', 'The request body does not inflate as its Content-Encoding says.');
  }
}

/** The media type of the request's Content-Type, lower-cased, without parameters (the protocol's rule). */
export function mediaType(request: CoreRequest): string {
  return contentTypeOf(request.headers.get('content-type') ?? undefined).mediaType;
}

export const isPlainObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value) && !Buffer.isBuffer(value);

/**
 * The size of a body an earlier parser already read: its declared Content-Length, or else the
 * size of what it produced (re-serialised), whichever is larger.
 */
function parsedSize(request: CoreRequest, body: unknown): number {
  const declared = Number(request.headers.get('content-length') ?? undefined);
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

const notJson = (type: string) => new PayButtonError('unsupported_media_type', `Send the body as JSON with Content-Type: application/json${type ? ` (got ${type})` : ''}.`);

/** The JSON body of a browser route, as an object (validated by the caller). */
export async function readJsonBody(request: CoreRequest, limit: number, parsed?: ParsedBody): Promise<unknown> {
  const type = mediaType(request);
  const isJson = type === 'application/json' || type.endsWith('+json');
  if (parsed) {
    // Whatever an earlier parser made of it, the browser routes speak JSON only.
    if (!isJson) throw notJson(type);
    // The earlier parser had its own (usually larger) limit: ours still applies.
    const body = parsed.value;
    if (parsedSize(request, body) > limit) throw tooLarge(limit);
    if (isPlainObject(body)) return body;
    if (typeof body === 'string' || Buffer.isBuffer(body)) return parseJson(Buffer.from(body));
    throw new PayButtonError('invalid_request', 'The request body was consumed by another body parser before payButton() could read it; send JSON (Content-Type: application/json).');
  }
  if (!isJson) {
    request.body?.cancel().catch(() => {});
    throw notJson(type);
  }
  const { charset } = contentTypeOf(request.headers.get('content-type') ?? undefined);
  if (charset !== undefined && !isUtf8Charset(charset)) {
    // The body is read as UTF-8; another declared charset would be silently misread.
    request.body?.cancel().catch(() => {});
    throw new PayButtonError('unsupported_media_type', `Content-Type: charset must be utf-8 (got ${charset.slice(0, 40)}).`);
  }
  return parseJson(await readRaw(request, limit));
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
