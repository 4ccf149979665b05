/**
 * The shapes in which the family's public clients send a request (issue 22), as data: which fields
 * travel as JSON numbers, how amounts and `dateTime` are written, whether `method` is the short
 * alias, the body's charset, the signature's base64 alphabet and JSON escapes. Each client signs
 * its own values the family's way (`familySign`: values by key, joined, UTF-8, 117-byte chunks), so
 * the gateway must verify over the text as sent, then store and answer canonical values.
 *
 * `shapedRequest` turns a shape and the values a client holds into the bytes it posts.
 */
import { formatDateTime } from '@tombolbayar/protocol';
import { familySign, gsonJson, keyConstant, REQUEST_RULES, type Fields } from './family-client.ts';

export interface ClientShape {
  readonly client: string;
  /** What of that client the shape stands for. */
  readonly represents: string;
  /** Fields sent as JSON numbers (PHP arrays of ints; a create-VA page types payMoney as int64). */
  readonly numberFields: readonly string[];
  /** `payMoney` as digits, or with two zero decimals (a Klikpay client's `number_format`). */
  readonly amount: 'digits' | 'zero-decimals';
  /** `dateTime`: the family's `yyyyMMddHHmmss`, ISO 8601 in UTC, or with an offset (`date('c')`). */
  readonly dateTime: 'compact' | 'iso-utc' | 'iso-offset';
  /** `method` as the canonical code (`VA_BCA`) or the short alias (`BCA`). */
  readonly method: 'code' | 'alias';
  /** The body's bytes: UTF-8, or ISO-8859-1 (Java's `new StringEntity(json)`). */
  readonly charset: 'utf-8' | 'iso-8859-1';
  /** `sign` in standard or URL-safe base64 (without padding). */
  readonly base64: 'standard' | 'url-safe';
  /** How the JSON is written: plain, PHP's `json_encode` (`\/`), or Gson's HTML-safe escapes. */
  readonly json: 'plain' | 'php' | 'gson';
  readonly headers: Readonly<Record<string, string>>;
}

const JSON_HEADERS = { 'Content-Type': 'application/json' };

const base = {
  numberFields: [],
  amount: 'digits',
  dateTime: 'compact',
  method: 'code',
  charset: 'utf-8',
  base64: 'standard',
  json: 'plain',
  headers: JSON_HEADERS,
} as const satisfies Omit<ClientShape, 'client' | 'represents'>;

/**
 * The shapes the family's public clients and documentation send, each named after where it was
 * seen (issue 22 and the family's API pages); a shape stands for every client that writes its
 * request that way. The last one takes every liberty at once.
 */
export const CLIENT_SHAPES: readonly ClientShape[] = [
  { ...base, client: 'TopPay Java demo', represents: 'Gson text through new StringEntity(json): ISO-8859-1 bytes, Content-Encoding UTF-8', json: 'gson', charset: 'iso-8859-1', headers: REQUEST_RULES.headers.rule },
  { ...base, client: 'laravel-bdpay (latest commit)', represents: "date('c') for dateTime, json_encode escaping /", dateTime: 'iso-offset', json: 'php' },
  { ...base, client: 'a PHP client of ints (ThinkPHP, Laravel JayaPay)', represents: 'intval() amounts and minutes, sent as JSON numbers by json_encode', numberFields: ['payMoney', 'expiryPeriod'], json: 'php' },
  { ...base, client: 'Klikpay PHP client', represents: 'number_format(amount, 2) for payMoney', amount: 'zero-decimals', json: 'php' },
  { ...base, client: 'Klikpay client with base64url', represents: 'sign in URL-safe base64 without padding', base64: 'url-safe', json: 'php' },
  { ...base, client: "BDPay's create-VA page example", represents: 'method BCA without its prefix, payMoney typed int64', numberFields: ['payMoney'], method: 'alias' },
  { ...base, client: "BDPay's create-payment-link page example", represents: 'dateTime 2019-08-24T14:15:22Z (ISO 8601 in UTC)', dateTime: 'iso-utc' },
  { ...base, client: 'WordPress BDPay plugin', represents: 'wp_json_encode escaping /', json: 'php' },
  { ...base, client: 'Django, Deno and TypeScript JayaPay clients', represents: 'the canonical form: strings, yyyyMMddHHmmss, codes, UTF-8, standard base64', },
  { ...base, client: 'every liberty at once', represents: 'numbers, ISO 8601 with an offset, the alias, ISO-8859-1, base64url and \\/ escapes together', numberFields: ['payMoney', 'expiryPeriod'], dateTime: 'iso-offset', method: 'alias', charset: 'iso-8859-1', base64: 'url-safe', json: 'php' },
];

/** ISO 8601 forms of an instant: in UTC, and with the +07:00 offset PHP's `date('c')` gives in Jakarta. */
function isoDateTime(at: number, form: 'iso-utc' | 'iso-offset'): string {
  if (form === 'iso-utc') return new Date(at).toISOString().replace(/\.\d{3}Z$/, 'Z');
  return `${new Date(at + 7 * 3_600_000).toISOString().slice(0, 19)}+07:00`;
}

/** The values a client of this shape holds, from canonical ones, for the instant `at`. */
export function shapedValues(shape: ClientShape, canonical: Fields, at: number): Fields {
  const out: Fields = { ...canonical, dateTime: shape.dateTime === 'compact' ? formatDateTime(at) : isoDateTime(at, shape.dateTime) };
  if (shape.amount === 'zero-decimals' && out.payMoney) out.payMoney = `${out.payMoney}.00`;
  if (shape.method === 'alias' && out.method) out.method = out.method.slice(out.method.indexOf('_') + 1);
  return out;
}

function writeJson(shape: ClientShape, fields: Fields): string {
  if (shape.json === 'gson') return gsonJson(fields);
  const present = Object.entries(fields).filter(([, value]) => value !== undefined);
  const members = present.map(([key, value]) => {
    const numeric = shape.numberFields.includes(key) && typeof value === 'string' && /^\d+(\.\d+)?$/.test(value);
    return `${JSON.stringify(key)}:${numeric ? value : JSON.stringify(value)}`;
  });
  const text = `{${members.join(',')}}`;
  return shape.json === 'php' ? text.replace(/\//g, '\\/') : text;
}

/**
 * The bytes a client of this shape posts for `values` (as it holds them; numbers as their text),
 * signed the family's way over those values.
 */
export function shapedRequest(shape: ClientShape, merchantCode: string, privateKeyPem: string, values: Fields): { body: Uint8Array<ArrayBuffer>; text: string } {
  const all: Fields = { merchantCode, ...values };
  let sign = familySign(all, keyConstant(privateKeyPem, REQUEST_RULES.key.rule));
  if (shape.base64 === 'url-safe') sign = sign.replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
  const text = writeJson(shape, { ...all, sign });
  return { text, body: Uint8Array.from(Buffer.from(text, shape.charset === 'utf-8' ? 'utf8' : 'latin1')) };
}
