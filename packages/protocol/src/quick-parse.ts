/**
 * `parseMessage`: `parseWith` for the protocol's messages (the three merchant requests, their
 * answers and the notification), with a zod-free check of the common case first (issue 24: zod's
 * per-field machinery was the largest share of the gateway's own code per request, and of the
 * plug-in's per answer it reads). The check accepts only messages every rule of `fields.ts`
 * accepts, and returns the very value zod would (URL fields go through their zod field, which
 * trims); anything it is not sure of, valid or not (every answer that is not a `SUCCESS`), is
 * parsed by zod, so every refusal and its message come from the schema as before.
 * `test/quick-parse.test.ts` holds the two to the same answers over a wide set of inputs.
 */
import { z } from 'zod';
import { PHONE_PATTERN, urlField } from './fields.ts';
import { FEE_PATTERN, parseDateTime, RUPIAH_PATTERN } from './formats.ts';
import { parseWith, type ParseResult } from './issues.ts';
import { isMethodCode, ORDER_STATUSES, resolveMethod, type MethodCode } from './methods.ts';
import {
  createPaymentLinkRequestSchema, createPaymentLinkResponseSchema, createVaRequestSchema, createVaResponseSchema, notificationSchema, queryRequestSchema,
  queryResponseSchema,
} from './schemas.ts';

type Fields = Readonly<Record<string, unknown>>;
/** The schema's output, or `undefined` when zod must decide. */
type Quick = (fields: Fields) => object | undefined;

const isText = (value: unknown, min: number, max: number): value is string => typeof value === 'string' && value.length >= min && value.length <= max;
const PRINTABLE_ASCII = /^[\x21-\x7e]+$/;
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
  if (!isText(phone, 1, 20) || !PHONE_PATTERN.test(phone)) return undefined;
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

const platSign = (value: unknown): value is string => typeof value === 'string' && value.length >= 1 && SIGN.test(value);
const platOrderNum = (value: unknown): value is string => isText(value, 1, 64);
const amount = (value: unknown): value is string => typeof value === 'string' && RUPIAH_PATTERN.test(value);
const fee = (value: unknown): value is string => typeof value === 'string' && FEE_PATTERN.test(value);
const email = (value: unknown): value is string => isText(value, 0, 254) && z.regexes.email.test(value);
const STATUSES: ReadonlySet<unknown> = new Set(ORDER_STATUSES);
const NOTIFIED: ReadonlySet<unknown> = new Set(['SUCCESS', 'FAILED', 'EXPIRED']);
const TWO_DIGITS = /^\d{2}$/;

/** `out` with the fields of `more` that are present (zod leaves an absent optional key out too). */
function withOptional(out: Record<string, unknown>, more: Record<string, unknown>): Record<string, unknown> {
  for (const key in more) if (more[key] !== undefined) out[key] = more[key];
  return out;
}

/** A `SUCCESS` answer's own fields (`resultShape` with a required `platSign`); undefined when zod must decide. */
function success(fields: Fields): Record<string, unknown> | undefined {
  const { platRespCode, platRespMessage } = fields;
  if (platRespCode !== 'SUCCESS' || typeof platRespMessage !== 'string' || !platSign(fields.platSign)) return undefined;
  return { platRespCode, platRespMessage, platSign: fields.platSign };
}

/** The order fields every create answer carries (`createVaSuccessSchema`, `createPaymentLinkSuccessSchema`). */
function createdOrder(fields: Fields): boolean {
  return platOrderNum(fields.platOrderNum) && orderNum(fields.orderNum) && isText(fields.name, 1, 32) && email(fields.email) && amount(fields.payMoney);
}

const createPaymentLinkAnswer: Quick = (fields) => {
  const head = success(fields);
  if (!head || !createdOrder(fields)) return undefined;
  const link = url(fields.url);
  if (link === undefined) return undefined;
  const { platOrderNum: plat, orderNum: order, name, email: mail, payMoney } = fields;
  return { ...head, platOrderNum: plat, orderNum: order, name, email: mail, url: link, payMoney };
};

const createVaAnswer: Quick = (fields) => {
  const head = success(fields);
  if (!head || !createdOrder(fields) || !isMethodCode(fields.method) || !isText(fields.vaNumber, 1, Infinity)) return undefined;
  if (!fee(fields.payFee) || !isText(fields.productDetail, 1, 32)) return undefined;
  const { platOrderNum: plat, orderNum: order, method, name, email: mail, vaNumber, payMoney, payFee, productDetail } = fields;
  return { ...head, platOrderNum: plat, orderNum: order, method, name, email: mail, vaNumber, payMoney, payFee, productDetail };
};

const queryAnswer: Quick = (fields) => {
  const head = success(fields);
  if (!head || !platOrderNum(fields.platOrderNum) || !orderNum(fields.orderNum) || !STATUSES.has(fields.status)) return undefined;
  const { method, payFee, vaNumber, paidTime } = fields;
  if (!isText(fields.name, 1, 32) || !email(fields.email) || !amount(fields.payMoney) || !isText(fields.productDetail, 1, 32)) return undefined;
  if ((method !== undefined && !isMethodCode(method)) || (payFee !== undefined && !fee(payFee)) || (vaNumber !== undefined && !isText(vaNumber, 1, Infinity))) return undefined;
  if (!dateTime(fields.createTime) || !dateTime(fields.expireTime) || (paidTime !== undefined && !dateTime(paidTime))) return undefined;
  let link: string | undefined;
  if (fields.url !== undefined && (link = url(fields.url)) === undefined) return undefined;
  return withOptional({ ...head, platOrderNum: fields.platOrderNum, orderNum: fields.orderNum, status: fields.status }, {
    method, name: fields.name, email: fields.email, payMoney: fields.payMoney, payFee, productDetail: fields.productDetail, vaNumber, url: link,
    createTime: fields.createTime, expireTime: fields.expireTime, paidTime,
  });
};

const notification: Quick = (fields) => {
  const { code, msg, status, method, payFee, vaNumber } = fields;
  if (typeof code !== 'string' || !TWO_DIGITS.test(code) || typeof msg !== 'string' || msg.length > 256 || !NOTIFIED.has(status)) return undefined;
  if ((method !== undefined && !isMethodCode(method)) || !isText(fields.name, 1, 32) || !email(fields.email) || !orderNum(fields.orderNum)) return undefined;
  if (!platOrderNum(fields.platOrderNum) || !amount(fields.payMoney) || (payFee !== undefined && !fee(payFee))) return undefined;
  if ((vaNumber !== undefined && !isText(vaNumber, 0, 64)) || !platSign(fields.platSign)) return undefined;
  return withOptional({ code, msg, status }, {
    method, name: fields.name, email: fields.email, orderNum: fields.orderNum, platOrderNum: fields.platOrderNum, payMoney: fields.payMoney, payFee, vaNumber,
    platSign: fields.platSign,
  });
};

const QUICK = new Map<z.ZodType, Quick>([
  [createPaymentLinkResponseSchema, createPaymentLinkAnswer],
  [createVaResponseSchema, createVaAnswer],
  [queryResponseSchema, queryAnswer],
  [notificationSchema, notification],
  [createVaRequestSchema, createVa],
  [createPaymentLinkRequestSchema, createPaymentLink],
  [queryRequestSchema, query],
]);

/** `parseWith(schema, input)`, answered without zod when `schema` is one of the messages above and every rule holds. */
export function parseMessage<S extends z.ZodType>(schema: S, input: unknown): ParseResult<z.output<S>> {
  const quick = typeof input === 'object' && input !== null && !Array.isArray(input) ? QUICK.get(schema) : undefined;
  const value = quick?.(input as Fields);
  if (value !== undefined) return { ok: true, value: value as z.output<S> };
  return parseWith(schema, input);
}

/** Exported for the agreement test only: whether the quick check alone answered. */
export function quickParseAnswers(schema: z.ZodType, input: Fields): boolean {
  return QUICK.get(schema)?.(input) !== undefined;
}
