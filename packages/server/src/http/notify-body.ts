/**
 * A notification's fields, as received: from the raw body `body.ts` reads (form-urlencoded or
 * JSON, UTF-8 or ISO-8859-1 by the protocol's `decodeBody`), or from the bytes an earlier parser
 * left or kept (`express.raw()`, `express.text()`, `req.rawBody`). An object an earlier parser
 * made without keeping the bytes is refused, with a message that says which parser to move.
 */
import { decodeBody, readJsonText, RESERVED_JSON_KEYS, reservedJsonKey, type JsonBodyProblem } from '@tombolbayar/protocol';
import { PayButtonError } from '../errors.ts';
import { isPlainObject, mediaType, readRaw, TOO_DEEP, type ParsedBody } from './body.ts';
import type { CoreRequest } from './context.ts';

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
export async function readNotifyFields(request: CoreRequest, limit: number, parsed?: ParsedBody): Promise<ReceivedFields> {
  const type = mediaType(request);
  if (type && type !== 'application/x-www-form-urlencoded' && type !== 'application/json' && !type.endsWith('+json') && type !== 'text/plain') {
    request.body?.cancel().catch(() => {});
    throw new NotifyBodyError('unreadable_body', 415, `content type ${type} is not a notification (expected application/x-www-form-urlencoded)`);
  }
  if (!parsed) {
    let raw: Buffer;
    try {
      raw = await readRaw(request, limit, 'liberal');
    } catch (error) {
      const status = error instanceof PayButtonError ? error.httpStatus : 400;
      throw new NotifyBodyError('unreadable_body', status, error instanceof Error ? error.message : 'unreadable body');
    }
    // UTF-8, or ISO-8859-1 when the bytes are not UTF-8 (the protocol's one rule for bodies).
    return parseNotifyText(decodeBody(raw).text, type);
  }
  // Only bytes will do: an object a parser made has lost what the bytes said (a repeated field
  // kept once, in silence), so it is refused unless the parser kept the bytes too.
  const raw = parsed.raw ?? (Buffer.isBuffer(parsed.value) || typeof parsed.value === 'string' ? parsed.value : undefined);
  if (raw !== undefined) {
    const bytes = typeof raw === 'string' ? Buffer.from(raw, 'utf8') : raw;
    if (bytes.length > limit) throw new NotifyBodyError('unreadable_body', 413, `the notification body is larger than ${limit} bytes`);
    return parseNotifyText(typeof raw === 'string' ? raw : decodeBody(raw).text, type);
  }
  const parsedSomething = isPlainObject(parsed.value) && Object.keys(parsed.value).length > 0;
  throw new NotifyBodyError(
    'body_consumed',
    500,
    parsedSomething
      ? 'The notification body was parsed by a body parser that ran before payButton(), and its raw bytes were not kept: /notify checks the bytes as sent (a field sent twice), not an object made of them. ' +
        'Mount payButton() before global body parsers (app.use("/pay", payButton(...)) first), keep them off its path, or keep the bytes: express.json({ verify: (req, _res, buf) => { req.rawBody = buf } }).'
      : 'The notification body was consumed by a body parser that ran before payButton() and left nothing usable. ' +
        'Mount payButton() before global body parsers (app.use("/pay", payButton(...)) first), or exclude its /notify route from them.',
  );
}
