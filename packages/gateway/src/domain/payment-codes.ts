/**
 * What `vaNumber` holds, per method kind (our decision; the spec only says "the virtual account
 * number"):
 *
 * - virtual account: 16 digits, the bank's prefix (a company/biller code) then 11 to 13 random digits;
 * - retail (Alfamart): a 14-digit payment code told at the till, prefix 8873;
 * - QRIS: the EMVCo/QRIS payload string to encode as a QR image (see `qris.ts`);
 * - e-wallet: a 16-character payment reference, the wallet's name then digits (DANA..., OVO...).
 *
 * Every value is random (not sequential, so not guessable from a neighbour) and unique: the
 * database's unique index on it is the final guard, and the caller draws again on a collision.
 */
import { randomInt } from 'node:crypto';
import { METHODS, type MethodCode } from '@tombolbayar/protocol';
import { buildQrisPayload } from './qris.ts';

/** Per-bank VA prefixes (ours; shaped like the biller codes those banks issue). */
export const VA_PREFIXES: Readonly<Record<string, string>> = Object.freeze({
  VA_BCA: '39010',
  VA_MANDIRI: '88908',
  VA_PERMATA: '8528',
  VA_CIMB: '5919',
  VA_BNI: '988',
  VA_BRI: '26215',
  VA_BNC: '7416',
  VA_SAMPOERNA: '2251',
  VA_MAYBANK: '7828',
  VA_DANAMON: '7915',
});

export const VA_NUMBER_LENGTH = 16;
export const RETAIL_PREFIX = '8873';
export const RETAIL_CODE_LENGTH = 14;
export const EWALLET_REFERENCE_LENGTH = 16;

function randomDigits(count: number): string {
  let out = '';
  while (out.length < count) out += String(randomInt(0, 1_000_000_000)).padStart(9, '0');
  return out.slice(0, count);
}

function withPrefix(prefix: string, length: number): string {
  return prefix + randomDigits(length - prefix.length);
}

export interface PaymentCodeContext {
  readonly merchantCode: string;
  readonly merchantName: string;
  readonly platOrderNum: string;
  readonly amount: number;
}

/** A fresh payment code for the method. */
export function generatePaymentCode(method: MethodCode, context: PaymentCodeContext): string {
  const info = METHODS[method];
  switch (info.kind) {
    case 'virtual-account': {
      const prefix = VA_PREFIXES[method];
      if (!prefix) throw new Error(`no VA prefix for ${method}`);
      return withPrefix(prefix, VA_NUMBER_LENGTH);
    }
    case 'retail':
      return withPrefix(RETAIL_PREFIX, RETAIL_CODE_LENGTH);
    case 'e-wallet':
      return withPrefix(info.alias, EWALLET_REFERENCE_LENGTH);
    case 'qr':
      return buildQrisPayload({
        merchantName: context.merchantName,
        merchantId: context.merchantCode,
        amount: context.amount,
        reference: context.platOrderNum,
        nmid: randomDigits(13),
      });
  }
}
