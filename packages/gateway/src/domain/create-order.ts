/**
 * Creating an order (both endpoints) and fixing the method of a payment link: business rules the
 * request schema cannot express (callback URL policy, amount limits per method), the fee, the
 * payment code, and the insert whose unique indexes settle every race.
 */
import { customAlphabet } from 'nanoid';
import type { MethodCode } from '@tombolbayar/protocol';
import { uniqueViolation } from '../store/errors.ts';
import { findMerchant } from '../store/merchants.ts';
import { assignMethod, insertOrder, releaseMethod } from '../store/orders.ts';
import { activeTraceParent, inTransactionSpan } from '../observability/tracing.ts';
import type { DomainContext } from './context.ts';
import { DOMAIN_MESSAGES, DomainError, OrderNotFoundError, OrderNotPendingError } from './errors.ts';
import { generatePaymentCode } from './payment-codes.ts';
import { anyMethodAccepts, computeFee, isWithinLimit, overallRange } from './pricing.ts';
import { readOrder } from './transitions.ts';
import type { Merchant, Order } from './types.ts';

/** 24 characters of 62: about 143 bits, not guessable, URL- and log-safe. */
export const newPlatOrderNum = customAlphabet('0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz', 24);

/** A random code colliding five times in a row means something else is wrong. */
const CODE_ATTEMPTS = 5;

/** What a create asks for: the order's requested fields, and the merchant it is for. */
export type CreateOrderInput = Pick<
  Order,
  'kind' | 'orderNum' | 'method' | 'payMoney' | 'productDetail' | 'name' | 'email' | 'phone' | 'notifyUrl' | 'redirectUrl' | 'expiryPeriod' | 'requestDateTime'
> & { readonly merchant: Merchant };

function checkCallbackUrls(context: DomainContext, input: CreateOrderInput): void {
  const production = !context.sandbox;
  for (const [field, url] of [['notifyUrl', input.notifyUrl], ['redirectUrl', input.redirectUrl]] as const) {
    if (url === null) continue;
    const verdict = context.checkCallbackUrl(url, { production });
    if (!verdict.ok) throw new DomainError('callback-url-refused', DOMAIN_MESSAGES.callbackUrlRefused(field, verdict.reason), field);
  }
}

function checkAmount(context: DomainContext, method: MethodCode | null, amount: number): void {
  if (method) {
    const limit = context.limits[method];
    if (!isWithinLimit(limit, amount)) throw new DomainError('amount-out-of-range', DOMAIN_MESSAGES.amountOutsideMethodLimit(method, limit), 'payMoney');
    return;
  }
  if (!anyMethodAccepts(context.limits, amount)) {
    throw new DomainError('amount-out-of-range', DOMAIN_MESSAGES.amountOutsideEveryLimit(overallRange(context.limits)), 'payMoney');
  }
}

function paymentTerms(context: DomainContext, merchant: Merchant, platOrderNum: string, method: MethodCode, amount: number) {
  const payFee = computeFee(context.fees[method], amount);
  const vaNumber = generatePaymentCode(method, {
    merchantCode: merchant.merchantCode,
    merchantName: merchant.name ?? merchant.merchantCode,
    platOrderNum,
    // The customer pays the amount plus the fee (see README): a QR code carries that total.
    amount: amount + payFee,
  });
  return { payFee, vaNumber };
}

/** Store a new PENDING order. Throws DomainError for a refused URL, amount, or taken orderNum. */
export async function createOrder(context: DomainContext, input: CreateOrderInput): Promise<Order> {
  checkCallbackUrls(context, input);
  checkAmount(context, input.method, input.payMoney);
  const now = context.clock.now();
  for (let attempt = 1; ; attempt++) {
    const platOrderNum = newPlatOrderNum();
    const terms = input.method ? paymentTerms(context, input.merchant, platOrderNum, input.method, input.payMoney) : undefined;
    const order: Order = {
      platOrderNum,
      merchantCode: input.merchant.merchantCode,
      orderNum: input.orderNum,
      kind: input.kind,
      status: 'PENDING',
      method: input.method,
      vaNumber: terms?.vaNumber ?? null,
      payMoney: input.payMoney,
      payFee: terms?.payFee ?? null,
      productDetail: input.productDetail,
      name: input.name,
      email: input.email,
      phone: input.phone,
      notifyUrl: input.notifyUrl,
      redirectUrl: input.redirectUrl,
      expiryPeriod: input.expiryPeriod,
      requestDateTime: input.requestDateTime,
      createdAt: now,
      expiresAt: now + input.expiryPeriod * 60_000,
      paidAt: null,
      closedAt: null,
    };
    try {
      // The insert is one statement (its own transaction); its span and the stored trace make the
      // notifications of this order part of the trace the create request began.
      const traceParent = activeTraceParent(); // the request's span, not the insert's: notifications hang off the request
      await inTransactionSpan('order.create', context.database.engine, () => insertOrder(context.database.db, order, traceParent));
      context.metrics?.orderCreated(order.kind === 'va' ? 'pay' : 'prepaidOrder', order.method ?? 'none');
      return order;
    } catch (error) {
      const violated = uniqueViolation(error);
      if (violated === 'order_num') {
        throw new DomainError('order-num-taken', DOMAIN_MESSAGES.orderNumTaken(), 'orderNum');
      }
      if (violated !== undefined && attempt < CODE_ATTEMPTS) continue;
      throw error;
    }
  }
}

/**
 * Fix the method of a payment link created without one: method, payment code and fee in one
 * compare-and-set. Throws OrderNotFoundError, OrderNotPendingError, or DomainError with
 * `method-already-chosen` / `amount-out-of-range`.
 */
export async function chooseMethod(context: DomainContext, platOrderNum: string, method: MethodCode): Promise<Order> {
  for (let attempt = 1; ; attempt++) {
    const order = await readOrder(context, platOrderNum);
    if (!order) throw new OrderNotFoundError();
    if (order.status !== 'PENDING') throw new OrderNotPendingError(order.status);
    if (order.method !== null) throw new DomainError('method-already-chosen', DOMAIN_MESSAGES.methodAlreadyChosen(order.method), 'method');
    checkAmount(context, method, order.payMoney);
    const merchant = await findMerchant(context.database.db, order.merchantCode);
    if (!merchant) throw new OrderNotFoundError();
    const terms = paymentTerms(context, merchant, platOrderNum, method, order.payMoney);
    try {
      const updated = await assignMethod(context.database.db, platOrderNum, { method, ...terms }, context.clock.now());
      if (updated) {
        context.logger.info({ platOrderNum, orderNum: updated.orderNum, method }, 'method chosen');
        return updated;
      }
      // Lost a race (another choice, a payment, expiry): the next round reports what happened.
    } catch (error) {
      if (uniqueViolation(error) !== 'va_number' || attempt >= CODE_ATTEMPTS) throw error;
    }
    if (attempt >= CODE_ATTEMPTS) throw new DomainError('order-not-pending', DOMAIN_MESSAGES.orderChanged());
  }
}

/**
 * Take back the method choice of a payment link before it is paid, so the customer can pick
 * another one on the hosted page. Only for links (`/gateway/prepaidOrder`): their code is shown
 * to the customer on our page, which can tell them it stops working. An order created with a
 * method (`/gateway/pay`) keeps it: the merchant may have shown that VA number in its own
 * screens. The released code stops being payable at once; nothing is notified, since the
 * merchant's notification only ever reports a final status with the method it was paid by.
 * `current` is the method the customer's page shows: a page that is out of date is refused.
 * Throws OrderNotFoundError, OrderNotPendingError (a final status), DomainError
 * `method-already-chosen` (a `/gateway/pay` order) or `order-not-pending` with the "changed"
 * message (the method is no longer `current`).
 */
export async function changeMethod(context: DomainContext, platOrderNum: string, current: MethodCode): Promise<Order> {
  const order = await readOrder(context, platOrderNum);
  if (!order) throw new OrderNotFoundError();
  if (order.status !== 'PENDING') throw new OrderNotPendingError(order.status);
  if (order.kind !== 'link' && order.method !== null) {
    throw new DomainError('method-already-chosen', DOMAIN_MESSAGES.methodAlreadyChosen(order.method), 'method');
  }
  // Another tab chose, changed or released it since the customer's page was drawn.
  if (order.method !== current) throw new DomainError('order-not-pending', DOMAIN_MESSAGES.orderChanged());
  const released = await releaseMethod(context.database.db, platOrderNum, current, context.clock.now());
  if (!released) {
    // Paid, expired or changed between the read and the update: report what it is now.
    const now = await readOrder(context, platOrderNum);
    if (now && now.status !== 'PENDING') throw new OrderNotPendingError(now.status);
    throw new DomainError('order-not-pending', DOMAIN_MESSAGES.orderChanged());
  }
  context.logger.info({ platOrderNum, orderNum: released.orderNum, released: current }, 'method released for another choice');
  return released;
}
