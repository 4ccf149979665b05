/**
 * Typed refusals of the domain. The HTTP layer maps them to `platRespCode` (FAIL / NOTEXIST), the
 * page seam to `PageActionError`, the sandbox API to HTTP statuses. Messages never carry secrets.
 */
import type { MethodCode, OrderStatus } from '@tombolbayar/protocol';

export type DomainErrorCode =
  | 'order-not-found'
  | 'order-not-pending'
  | 'method-required'
  | 'method-already-chosen'
  | 'amount-out-of-range'
  | 'order-num-taken'
  | 'callback-url-refused';

/**
 * Every message a DomainError carries, built here and nowhere else, so that a test can enumerate
 * them all (`test/gateway-texts.test.ts`). They reach signed `platRespMessage`s (create refusals),
 * the sandbox API and the page, so: no `"` (the family's published Java verifier strips it from
 * the string before comparing, so a signature over a message with one fails there: issue 14); the
 * field they are about first, as `field: rule`; and nothing the caller typed, only values the
 * gateway itself produced or validated (a method code, a status, an amount limit).
 */
export const DOMAIN_MESSAGES = {
  orderNotFound: () => 'platOrderNum: no such order',
  orderNotPending: (status: OrderStatus) => `the order is ${status}, not PENDING`,
  orderChanged: () => 'the order changed while it was being updated; try again',
  methodRequired: () => 'method: the order has no payment method yet; choose one before paying',
  methodAlreadyChosen: (chosen: MethodCode) => `method: is already ${chosen}`,
  methodDisagrees: (chosen: MethodCode, asked: MethodCode) =>
    `method: the order is to be paid with ${chosen}, not ${asked}; send ${chosen} or leave method out`,
  amountOutsideMethodLimit: (method: MethodCode, limit: { readonly min: number; readonly max: number }) =>
    `payMoney: must be from ${limit.min} to ${limit.max} rupiah for ${method}`,
  amountOutsideEveryLimit: (range: { readonly min: number; readonly max: number }) => `payMoney: must be from ${range.min} to ${range.max} rupiah`,
  orderNumTaken: () => 'orderNum: is already used by another order of this merchant',
  /** `reason` is one of the callback-URL policy's fixed reasons (`notify/delivery/callback-url.ts`). */
  callbackUrlRefused: (field: 'notifyUrl' | 'redirectUrl', reason: string) => `${field}: ${reason}`,
} as const;

export class DomainError extends Error {
  override readonly name = 'DomainError';
  constructor(
    readonly code: DomainErrorCode,
    message: string,
    /** The request field the refusal is about, when there is one. */
    readonly field?: string,
  ) {
    super(message);
  }
}

/** No such order. The message names no number: what the caller sent is never echoed. */
export class OrderNotFoundError extends DomainError {
  constructor() {
    super('order-not-found', DOMAIN_MESSAGES.orderNotFound(), 'platOrderNum');
  }
}

export class OrderNotPendingError extends DomainError {
  constructor(readonly status: OrderStatus) {
    super('order-not-pending', DOMAIN_MESSAGES.orderNotPending(status));
  }
}
