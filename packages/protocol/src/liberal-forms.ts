/**
 * What the family's public clients send that is not our canonical wire form, and the one place
 * that maps it (issue 22). The gateway and the plug-in's `/notify` apply these rules only after the
 * signature verified over the fields exactly as received, so the client's own text is what was
 * checked; the canonical values are what is then validated, stored and answered.
 *
 * Accepted, each mapped to the canonical form:
 * - a JSON number that is a whole number from 0 to 2^53 - 1 (`"payMoney": 150000`, PHP clients):
 *   `String(n)`, the very text `canonicalString` checks the signature over, so what is stored is
 *   what was verified (`150000.0` and `1.5e5` are 150000, as PHP's `implode()` writes a float
 *   150000.0); a fraction, a negative number or one beyond 2^53 stays a number, refused by the
 *   schema;
 * - an amount written with zero decimals (`"150000.00"`, a Klikpay client): the whole number;
 *   a fraction that is not zero stays refused (rupiah have no cents on the wire);
 * - `dateTime` in ISO 8601 with an offset (`2019-08-24T14:15:22Z`, `date('c')`): the same instant
 *   as `yyyyMMddHHmmss` in Jakarta time; without an offset the instant is ambiguous and refused;
 * - `phone` in the international form, `+6281234567890` or `6281234567890` (a deployed client
 *   drops the leading 0; people write the country code): `081234567890`; any other shape (spaces,
 *   dashes, another country code) stays as sent, refused by the schema's `08` rule;
 * - a body that is not valid UTF-8 (a Java client's `new StringEntity(json)` sends ISO-8859-1):
 *   read as ISO-8859-1, which is what that client's strings were.
 *
 * Browser-safe and dependency-free.
 */
import { formatDateTime } from './formats.ts';

/** Fields holding an amount of rupiah, where `.00` is read as the whole number. */
export const AMOUNT_FIELDS: readonly string[] = ['payMoney', 'payFee'];

/** Fields holding a request's `dateTime`, where ISO 8601 with an offset is read as Jakarta time. */
export const DATE_TIME_FIELDS: readonly string[] = ['dateTime'];

/** Fields holding a customer's phone number, where `+628…` and `628…` are read as `08…`. */
export const PHONE_FIELDS: readonly string[] = ['phone'];

/** Indonesia's country code before a mobile number's 8; the national form puts a 0 there. */
const INTERNATIONAL_PHONE = /^\+?62(8\d+)$/;

const ZERO_DECIMALS = /^(\d{1,12})\.0{1,2}$/;

/** ISO 8601 / RFC 3339 date and time with a `Z` or numeric offset, optional fractional seconds. */
const ISO_DATE_TIME = /^(\d{4})-(\d{2})-(\d{2})[T ](\d{2}):(\d{2}):(\d{2})(?:\.\d{1,9})?(Z|[+-]\d{2}:?\d{2})$/i;

/**
 * The instant an ISO 8601 date-time with an offset names, or undefined when it is not of that shape
 * or names no real moment (month 13, 30 February, offset beyond ±14:00).
 */
export function parseIsoDateTime(value: string): Date | undefined {
  const match = ISO_DATE_TIME.exec(value);
  if (!match) return undefined;
  const [year, month, day, hour, minute, second] = match.slice(1, 7).map(Number) as [number, number, number, number, number, number];
  const zone = match[7]!;
  let offsetMinutes = 0;
  if (zone.toUpperCase() !== 'Z') {
    const digits = zone.replace(':', '');
    offsetMinutes = (digits.startsWith('-') ? -1 : 1) * (Number(digits.slice(1, 3)) * 60 + Number(digits.slice(3, 5)));
    if (Math.abs(offsetMinutes) > 14 * 60 || Number(digits.slice(3, 5)) > 59) return undefined;
  }
  if (year < 1970 || month < 1 || month > 12 || day < 1 || hour > 23 || minute > 59 || second > 59) return undefined;
  const utc = Date.UTC(year, month - 1, day, hour, minute, second);
  const check = new Date(utc);
  if (check.getUTCMonth() !== month - 1 || check.getUTCDate() !== day) return undefined;
  return new Date(utc - offsetMinutes * 60_000);
}

/** One value in its canonical form (or as it was, for the schema to judge). */
function canonicalValue(field: string, value: unknown): unknown {
  if (typeof value === 'number') return Number.isSafeInteger(value) && value >= 0 ? String(value) : value;
  if (typeof value !== 'string') return value;
  if (AMOUNT_FIELDS.includes(field)) {
    const whole = ZERO_DECIMALS.exec(value);
    if (whole) return whole[1]!;
  }
  if (PHONE_FIELDS.includes(field)) {
    const national = INTERNATIONAL_PHONE.exec(value);
    if (national) return `0${national[1]!}`;
  }
  if (DATE_TIME_FIELDS.includes(field)) {
    const instant = parseIsoDateTime(value);
    if (instant) return formatDateTime(instant);
  }
  return value;
}

/**
 * The fields with every liberal form mapped to its canonical value; anything else unchanged (the
 * schema then refuses what is wrong, naming the field). Call it after the signature verified over
 * `fields` as received, never before: the client signed its own text.
 */
export function canonicalFields<T extends Readonly<Record<string, unknown>>>(fields: T): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [field, value] of Object.entries(fields)) out[field] = canonicalValue(field, value);
  return out;
}

const strictUtf8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: false });
/** UTF-16 in this machine's byte order, for `Uint16Array`s (little-endian nearly everywhere). */
const WIDE_DECODER = new TextDecoder(new Uint8Array(new Uint16Array([1]).buffer)[0] === 1 ? 'utf-16le' : 'utf-16be', { ignoreBOM: true });

/** A body's text and how it was read. */
export interface DecodedBody {
  readonly text: string;
  readonly charset: 'utf-8' | 'iso-8859-1';
}

/**
 * A request body's text: UTF-8 when the bytes are valid UTF-8 (always tried first), else
 * ISO-8859-1, the charset of a Java client that sends its JSON through `new StringEntity(json)`.
 * Any byte sequence is valid ISO-8859-1, so a body is never unreadable here; a body in another
 * charset simply fails its signature.
 */
export function decodeBody(bytes: Uint8Array): DecodedBody {
  try {
    return { text: strictUtf8.decode(bytes), charset: 'utf-8' };
  } catch {
    // Each byte is its own code point. TextDecoder('latin1') is windows-1252 (bytes 0x80-0x9f
    // differ), so the bytes are widened to UTF-16 code units and decoded in one native pass: a
    // 64 KB Latin-1 body costs about what a UTF-8 one does (String.fromCharCode over the bytes
    // cost twenty times more, work a stranger could ask for with a 108-byte gzip).
    return { text: WIDE_DECODER.decode(Uint16Array.from(bytes)), charset: 'iso-8859-1' };
  }
}
