/**
 * `parseRequest`: `parseWith` for the three merchant requests (create VA, create payment link,
 * query), with a zod-free check of the common case first (issue 24: zod's per-field machinery was
 * the largest share of the gateway's own code per request). The check accepts only requests every
 * rule of `fields.ts` accepts, and returns the very value zod would (URL fields go through their
 * zod field, which trims); anything it is not sure of, valid or not, is parsed by zod, so every
 * refusal and its message come from the schema as before. `test/quick-parse.test.ts` holds the two
 * to the same answers over a wide set of inputs.
 */
import { z } from 'zod';
import { urlField } from './fields.ts';
import { parseDateTime, RUPIAH_PATTERN } from './formats.ts';
import { parseWith, type ParseResult } from './issues.ts';
import { resolveMethod, type MethodCode } from './methods.ts';
import { createPaymentLinkRequestSchema, createVaRequestSchema, queryRequestSchema } from './schemas.ts';

type Fields = Readonly<Record<string, unknown>>;
/** The schema's output, or `undefined` when zod must decide. */
type Quick = (fields: Fields) => object | undefined;

const isText = (value: unknown, min: number, max: number): value is string => typeof value === 'string' && value.length >= min && value.length <= max;
const PRINTABLE_ASCII = /^[\x21-\x7e]+$/;
const PHONE = /^08\d+$/;
const EXPIRY = /^[1-9]\d{0,3}$/;
const SIGN = /^[A-Za-z0-9+/_-]+={0,2}$/;

const merchantCode = (value: unknown) => isText(value, 5, 50);
const orderNum = (value: unknown) => isText(value, 1, 64) && PRINTABLE_ASCII.test(value);
const dateTime = (value: unknown) => typeof value === 'string' && parseDateTime(value) !== undefined;
const sign = (value: unknown) => isText(value, 1, 512) && SIGN.test(value);

/** The URL as `urlField` outputs it (trimmed), or undefined when it is refused. */
function url(value: unknown): string | undefined {
  if (!isText(value, 1, 2048)) return undefined;
  const parsed = urlField.safeParse(value);
  return parsed.success ? parsed.data : undefined;
}

/** Fields common to both creates (`createOrderShape`), in its order; undefined when one may fail. */
function createCommon(fields: Fields): Record<string, unknown> | undefined {
  const { payMoney, productDetail, name, email, phone, expiryPeriod } = fields;
  if (!merchantCode(fields.merchantCode) || !orderNum(fields.orderNum)) return undefined;
  if (typeof payMoney !== 'string' || !RUPIAH_PATTERN.test(payMoney)) return undefined;
  if (!isText(productDetail, 1, 32) || !isText(name, 1, 32)) return undefined;
  if (!isText(email, 0, 254) || !z.regexes.email.test(email)) return undefined;
  if (!isText(phone, 1, 20) || !PHONE.test(phone)) return undefined;
  const notifyUrl = url(fields.notifyUrl);
  if (notifyUrl === undefined) return undefined;
  if (typeof expiryPeriod !== 'string' || !EXPIRY.test(expiryPeriod) || Number(expiryPeriod) < 30 || Number(expiryPeriod) > 7200) return undefined;
  if (!dateTime(fields.dateTime) || !sign(fields.sign)) return undefined;
  return { merchantCode: fields.merchantCode, orderNum: fields.orderNum, payMoney, productDetail, name, email, phone, notifyUrl, expiryPeriod, dateTime: fields.dateTime, sign: fields.sign };
}

const createVa: Quick = (fields) => {
  const common = createCommon(fields);
  const method = typeof fields.method === 'string' ? resolveMethod(fields.method) : undefined;
  return common && method ? { ...common, method } : undefined;
};

const createPaymentLink: Quick = (fields) => {
  const common = createCommon(fields);
  if (!common) return undefined;
  let method: MethodCode | null = null;
  if (fields.method !== undefined && fields.method !== null && fields.method !== '') {
    const code = typeof fields.method === 'string' ? resolveMethod(fields.method) : undefined;
    if (!code) return undefined;
    method = code;
  }
  const redirect = fields.redirectUrl;
  if (redirect === undefined || redirect === null || redirect === '') return { ...common, method, redirectUrl: undefined };
  const redirectUrl = url(redirect);
  return redirectUrl === undefined ? undefined : { ...common, method, redirectUrl };
};

const query: Quick = (fields) => {
  const { orderNum: byOrderNum, platOrderNum } = fields;
  if (!merchantCode(fields.merchantCode) || fields.queryType !== 'ORDER_QUERY' || !dateTime(fields.dateTime) || !sign(fields.sign)) return undefined;
  if (byOrderNum !== undefined && !orderNum(byOrderNum)) return undefined;
  if (platOrderNum !== undefined && !isText(platOrderNum, 1, 64)) return undefined;
  if (byOrderNum === undefined && platOrderNum === undefined) return undefined;
  return { merchantCode: fields.merchantCode, orderNum: byOrderNum, platOrderNum, queryType: 'ORDER_QUERY', dateTime: fields.dateTime, sign: fields.sign };
};

const QUICK = new Map<z.ZodType, Quick>([
  [createVaRequestSchema, createVa],
  [createPaymentLinkRequestSchema, createPaymentLink],
  [queryRequestSchema, query],
]);

/** `parseWith(schema, input)`, answered without zod when `schema` is a request schema and every rule holds. */
export function parseRequest<S extends z.ZodType>(schema: S, input: unknown): ParseResult<z.output<S>> {
  const quick = typeof input === 'object' && input !== null && !Array.isArray(input) ? QUICK.get(schema) : undefined;
  const value = quick?.(input as Fields);
  if (value !== undefined) return { ok: true, value: value as z.output<S> };
  return parseWith(schema, input);
}

/** Exported for the agreement test only: whether the quick check alone answered. */
export function quickParseAnswers(schema: z.ZodType, input: Fields): boolean {
  return QUICK.get(schema)?.(input) !== undefined;
}
