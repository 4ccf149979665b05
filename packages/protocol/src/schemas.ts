/**
 * zod schemas of every message on the wire: spec 2.1-2.3 and the query and notification the
 * family's clients document. Requests keep unknown fields out of the parsed value, but the
 * signature is always checked over the fields as received (see `verify`), so nothing unsigned
 * slips through.
 */
import { z } from 'zod';
import {
  amountField, dateTimeField, emailField, expiryPeriodField, feeField, merchantCodeField, methodField, methodOrAliasField,
  nameField, optionalMethodField, optionalUrlField, orderNumField, phoneField, platOrderNumField,
  platSignField, productDetailField, signField, urlField,
} from './fields.ts';
import { ORDER_STATUSES, RESULT_CODES } from './methods.ts';

const OBJECT_RULE = { error: 'must be a JSON object' };

/** Fields common to both create requests (spec 2.1 and 2.3). */
const createOrderShape = {
  merchantCode: merchantCodeField,
  orderNum: orderNumField,
  payMoney: amountField,
  productDetail: productDetailField,
  name: nameField,
  email: emailField,
  phone: phoneField,
  notifyUrl: urlField,
  expiryPeriod: expiryPeriodField,
  dateTime: dateTimeField,
  sign: signField,
};

/**
 * `POST /gateway/pay` request (spec 2.1): `method` a code or its un-prefixed alias (`BCA`, as the
 * family's create-VA example sends it), normalised to the code.
 */
export const createVaRequestSchema = z.object({ ...createOrderShape, method: methodOrAliasField }, OBJECT_RULE);
export type CreateVaRequest = z.infer<typeof createVaRequestSchema>;

/** `POST /gateway/prepaidOrder` request (spec 2.3): `method` nullable or an alias, `redirectUrl` optional. */
export const createPaymentLinkRequestSchema = z.object(
  { ...createOrderShape, method: optionalMethodField, redirectUrl: optionalUrlField },
  OBJECT_RULE,
);
export type CreatePaymentLinkRequest = z.infer<typeof createPaymentLinkRequestSchema>;
/** What a merchant passes in before signing: the request without `sign`, `method` possibly an alias. */
export type CreatePaymentLinkInput = z.input<typeof createPaymentLinkRequestSchema>;

/** `POST /gateway/query` request: by `orderNum`, `platOrderNum`, or both. */
export const queryRequestSchema = z
  .object(
    {
      merchantCode: merchantCodeField,
      orderNum: orderNumField.optional(),
      platOrderNum: platOrderNumField.optional(),
      queryType: z.literal('ORDER_QUERY', { error: 'must be ORDER_QUERY' }),
      dateTime: dateTimeField,
      sign: signField,
    },
    OBJECT_RULE,
  )
  .refine((query) => query.orderNum !== undefined || query.platOrderNum !== undefined, {
    path: ['orderNum'],
    error: 'orderNum or platOrderNum is required',
  });
export type QueryRequest = z.infer<typeof queryRequestSchema>;

const resultShape = {
  platRespMessage: z.string({ error: 'must be a string' }),
  platSign: platSignField.optional(),
};

/** Any response that is not `SUCCESS`: only the code and its message (signed when the gateway could). */
export const failureResponseSchema = z.object({
  platRespCode: z.enum(RESULT_CODES.filter((code) => code !== 'SUCCESS') as ['FAIL', 'UNKNOWN', 'NOTEXIST', 'ERROR'], {
    error: `must be one of ${RESULT_CODES.join(', ')}`,
  }),
  ...resultShape,
});
export type FailureResponse = z.infer<typeof failureResponseSchema>;

const successCode = z.literal('SUCCESS');

/** `POST /gateway/pay` response (spec 2.2). */
export const createVaSuccessSchema = z.object({
  platRespCode: successCode,
  ...resultShape,
  platSign: platSignField,
  platOrderNum: platOrderNumField,
  orderNum: orderNumField,
  method: methodField,
  name: nameField,
  email: emailField,
  vaNumber: z.string().min(1, { error: 'is required' }),
  payMoney: amountField,
  payFee: feeField,
  productDetail: productDetailField,
});
export const createVaResponseSchema = z.discriminatedUnion('platRespCode', [createVaSuccessSchema, failureResponseSchema]);
export type CreateVaResponse = z.infer<typeof createVaResponseSchema>;
export type CreateVaSuccess = z.infer<typeof createVaSuccessSchema>;

/** `POST /gateway/prepaidOrder` response (spec 2.3). */
export const createPaymentLinkSuccessSchema = z.object({
  platRespCode: successCode,
  ...resultShape,
  platSign: platSignField,
  platOrderNum: platOrderNumField,
  orderNum: orderNumField,
  name: nameField,
  email: emailField,
  url: urlField,
  payMoney: amountField,
});
export const createPaymentLinkResponseSchema = z.discriminatedUnion('platRespCode', [
  createPaymentLinkSuccessSchema,
  failureResponseSchema,
]);
export type CreatePaymentLinkResponse = z.infer<typeof createPaymentLinkResponseSchema>;
export type CreatePaymentLinkSuccess = z.infer<typeof createPaymentLinkSuccessSchema>;

const orderStatusField = z.enum(ORDER_STATUSES, { error: `must be one of ${ORDER_STATUSES.join(', ')}` });

/** `POST /gateway/query` response: the order as the gateway holds it. `method` is absent until chosen. */
export const querySuccessSchema = z.object({
  platRespCode: successCode,
  ...resultShape,
  platSign: platSignField,
  platOrderNum: platOrderNumField,
  orderNum: orderNumField,
  status: orderStatusField,
  method: methodField.optional(),
  name: nameField,
  email: emailField,
  payMoney: amountField,
  payFee: feeField.optional(),
  productDetail: productDetailField,
  vaNumber: z.string().min(1).optional(),
  url: urlField.optional(),
  createTime: dateTimeField,
  expireTime: dateTimeField,
  paidTime: dateTimeField.optional(),
});
export const queryResponseSchema = z.discriminatedUnion('platRespCode', [querySuccessSchema, failureResponseSchema]);
export type QueryResponse = z.infer<typeof queryResponseSchema>;
export type QuerySuccess = z.infer<typeof querySuccessSchema>;

/**
 * How each final state is told in a notification (`code` "00" + `status` "SUCCESS" is the
 * family's public "paid"; the other two pairs are our decision).
 */
export const NOTIFICATION_OUTCOMES = {
  PAID: { code: '00', status: 'SUCCESS', msg: 'SUCCESS' },
  FAILED: { code: '01', status: 'FAILED', msg: 'FAILED' },
  EXPIRED: { code: '02', status: 'EXPIRED', msg: 'EXPIRED' },
} as const;
export type NotifiedStatus = keyof typeof NOTIFICATION_OUTCOMES;

/** The payment notification POSTed form-urlencoded to `notifyUrl`. */
export const notificationSchema = z.object(
  {
    code: z.string({ error: 'is required' }).regex(/^\d{2}$/, { error: 'must be two digits, 00 for paid' }),
    msg: z.string({ error: 'is required' }).max(256, { error: 'must be at most 256 characters' }),
    status: z.enum(['SUCCESS', 'FAILED', 'EXPIRED'], { error: 'must be SUCCESS, FAILED or EXPIRED' }),
    method: methodField.optional(),
    name: nameField,
    email: emailField,
    orderNum: orderNumField,
    platOrderNum: platOrderNumField,
    payMoney: amountField,
    payFee: feeField.optional(),
    vaNumber: z.string().max(64, { error: 'must be at most 64 characters' }).optional(),
    platSign: platSignField,
  },
  OBJECT_RULE,
);
export type Notification = z.infer<typeof notificationSchema>;

/**
 * The final state a notification reports, read from `code` and `status` together; undefined for a
 * pair that is not one of NOTIFICATION_OUTCOMES (contradictory, so it proves nothing).
 */
export function notificationOutcome(notification: Pick<Notification, 'code' | 'status'>): NotifiedStatus | undefined {
  for (const [status, outcome] of Object.entries(NOTIFICATION_OUTCOMES) as [NotifiedStatus, (typeof NOTIFICATION_OUTCOMES)[NotifiedStatus]][]) {
    if (notification.code === outcome.code && notification.status === outcome.status) return status;
  }
  return undefined;
}

/** True when a notification reports a payment: `code` "00" and `status` "SUCCESS" together. */
export function notificationIsPaid(notification: Pick<Notification, 'code' | 'status'>): boolean {
  return notificationOutcome(notification) === 'PAID';
}
