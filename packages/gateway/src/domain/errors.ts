/**
 * Typed refusals of the domain. The HTTP layer maps them to `platRespCode` (FAIL / NOTEXIST), the
 * page seam to `PageActionError`, the sandbox API to HTTP statuses. Messages never carry secrets.
 */
import type { OrderStatus } from '@paybutton/protocol';

export type DomainErrorCode =
  | 'order-not-found'
  | 'order-not-pending'
  | 'method-required'
  | 'method-already-chosen'
  | 'amount-out-of-range'
  | 'order-num-taken'
  | 'callback-url-refused';

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

export class OrderNotFoundError extends DomainError {
  constructor(what: string) {
    super('order-not-found', `no order ${what}`);
  }
}

export class OrderNotPendingError extends DomainError {
  constructor(readonly status: OrderStatus) {
    super('order-not-pending', `the order is ${status}, not PENDING`);
  }
}
