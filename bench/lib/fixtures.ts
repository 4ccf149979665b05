/**
 * What every benchmark sends: one merchant with fresh key pairs, a realistic customer (field
 * lengths as a real checkout has them, since they decide how many RSA blocks a signature takes),
 * and the request bodies, each with its own idempotency key or orderNum.
 */
import { randomBytes } from 'node:crypto';
import { formatDateTime, generateKeyPair, type SignableFields } from '@tombolbayar/protocol/node';

export const MERCHANT_CODE = 'BENCHSHOP01';
export const MERCHANT_NAME = 'Toko Kopi Bench';

/**
 * The shop's public origin. Not the loopback address the bench server listens on: the gateway
 * runs in production mode (as a merchant's real gateway does), whose callback policy refuses a
 * loopback `notifyUrl`. It is never contacted (no notification is due during the create runs).
 */
export const SHOP_PUBLIC_URL = 'https://toko-kopi.co.id';

/** What `quote()` answers in the bench shop, and what the pre-signed gateway requests carry. */
export const CUSTOMER = {
  payMoney: '150000',
  productDetail: 'Kopi Gayo 250 g x2',
  name: 'Budi Santoso',
  email: 'budi.santoso@example.co.id',
  phone: '081234567890',
} as const;

export interface BenchKeys {
  readonly merchantPrivateKey: string;
  readonly merchantPublicKey: string;
  readonly platformPrivateKey: string;
  readonly platformPublicKey: string;
}

export function generateBenchKeys(): BenchKeys {
  const merchant = generateKeyPair(1024);
  const platform = generateKeyPair(1024);
  return {
    merchantPrivateKey: merchant.privateKey,
    merchantPublicKey: merchant.publicKey,
    platformPrivateKey: platform.privateKey,
    platformPublicKey: platform.publicKey,
  };
}

/** A short random tag that keeps one run's keys and order numbers apart from another's. */
export function runTag(): string {
  return randomBytes(4).toString('hex').toUpperCase();
}

/** `POST /links` bodies of the element: a fresh idempotency key each, no method (the customer picks). */
export function linkBodies(count: number, tag: string, first = 0): string[] {
  return Array.from({ length: count }, (_, index) => JSON.stringify({ idempotencyKey: `bench-${tag}-${String(first + index).padStart(8, '0')}`, item: 'kopi-gayo-250' }));
}

/** Unsigned `/gateway/pay` (Create VA) fields with distinct orderNums. */
export function createVaFields(count: number, prefix: string, first = 0, notifyUrl = `${SHOP_PUBLIC_URL}/pay/notify`): SignableFields[] {
  const dateTime = formatDateTime(Date.now());
  return Array.from({ length: count }, (_, index) => ({
    merchantCode: MERCHANT_CODE,
    orderNum: `${prefix}${String(first + index).padStart(8, '0')}`,
    method: 'VA_BCA',
    ...CUSTOMER,
    notifyUrl,
    expiryPeriod: '60',
    dateTime,
  }));
}

/** Unsigned `/gateway/query` fields, by orderNum. */
export function queryFields(orderNums: readonly string[]): SignableFields[] {
  const dateTime = formatDateTime(Date.now());
  return orderNums.map((orderNum) => ({ merchantCode: MERCHANT_CODE, orderNum, queryType: 'ORDER_QUERY', dateTime }));
}
