/**
 * Fees and amount limits per payment method. The spec shows neither ("Minimum and maximum
 * payMoney: not shown"); the defaults below are ours, close to what Indonesian gateways charge
 * and allow, and every one can be overridden through the gateway's `fees` / `limits` options.
 *
 * The fee (`payFee`) is the platform's, added on top of the amount: the customer pays
 * `payMoney + payFee` (the hosted page's total, the amount a QRIS code carries) and the merchant
 * receives `payMoney`. All arithmetic is on integers of rupiah; a percentage fee rounds up to the
 * next rupiah.
 */
import { MAX_RUPIAH, METHOD_CODES, METHODS, type MethodCode, type MethodKind } from '@tombolbayar/protocol';
import { z } from 'zod';

export type FeeRule =
  | { readonly type: 'flat'; readonly amount: number }
  | { readonly type: 'percent'; readonly percent: number; readonly min?: number };

export interface AmountLimit {
  readonly min: number;
  readonly max: number;
}

export type FeeTable = Readonly<Record<MethodCode, FeeRule>>;
export type LimitTable = Readonly<Record<MethodCode, AmountLimit>>;

const FEES_BY_KIND: Record<MethodKind, FeeRule> = {
  'virtual-account': { type: 'flat', amount: 4_000 },
  retail: { type: 'flat', amount: 5_000 },
  // QRIS's merchant discount rate set by Bank Indonesia for regular merchants.
  qr: { type: 'percent', percent: 0.7 },
  'e-wallet': { type: 'percent', percent: 1.5 },
};

const LIMITS_BY_KIND: Record<MethodKind, AmountLimit> = {
  'virtual-account': { min: 10_000, max: 50_000_000 },
  retail: { min: 10_000, max: 5_000_000 },
  qr: { min: 1_000, max: 10_000_000 },
  'e-wallet': { min: 1_000, max: 10_000_000 },
};

function perMethod<T>(byKind: Record<MethodKind, T>): Record<MethodCode, T> {
  return Object.fromEntries(METHOD_CODES.map((code) => [code, byKind[METHODS[code].kind]])) as Record<MethodCode, T>;
}

export const DEFAULT_FEES: FeeTable = Object.freeze(perMethod(FEES_BY_KIND));
export const DEFAULT_LIMITS: LimitTable = Object.freeze(perMethod(LIMITS_BY_KIND));

const rupiah = z.number().int().nonnegative().max(MAX_RUPIAH);

export const feeRuleSchema = z.discriminatedUnion('type', [
  z.object({ type: z.literal('flat'), amount: rupiah }).strict(),
  z
    .object({
      type: z.literal('percent'),
      // At most four decimals, so the arithmetic below stays exact.
      percent: z
        .number()
        .min(0)
        .max(100)
        .refine((value) => Math.abs(value * 10_000 - Math.round(value * 10_000)) < 1e-6, {
          error: 'must have at most four decimals',
        }),
      min: rupiah.optional(),
    })
    .strict(),
]);

export const amountLimitSchema = z
  .object({ min: rupiah.min(1), max: rupiah.min(1) })
  .strict()
  .refine((limit) => limit.min <= limit.max, { error: 'min must not exceed max' });

const methodKey = z.enum(METHOD_CODES);
export const feeTableOptionSchema = z.partialRecord(methodKey, feeRuleSchema);
export const limitTableOptionSchema = z.partialRecord(methodKey, amountLimitSchema);

/** The defaults with the given per-method overrides applied. */
export function buildFeeTable(overrides: Partial<Record<MethodCode, FeeRule>> = {}): FeeTable {
  return Object.freeze({ ...DEFAULT_FEES, ...overrides });
}

export function buildLimitTable(overrides: Partial<Record<MethodCode, AmountLimit>> = {}): LimitTable {
  return Object.freeze({ ...DEFAULT_LIMITS, ...overrides });
}

/** The fee for an amount under a rule: flat, or a percentage rounded up, never below `min`. */
export function computeFee(rule: FeeRule, amount: number): number {
  if (rule.type === 'flat') return rule.amount;
  // percent with four decimals = an integer count of millionths.
  const millionths = BigInt(Math.round(rule.percent * 10_000));
  const product = BigInt(amount) * millionths;
  const fee = Number((product + 999_999n) / 1_000_000n);
  return Math.max(fee, rule.min ?? 0);
}

export function isWithinLimit(limit: AmountLimit, amount: number): boolean {
  return amount >= limit.min && amount <= limit.max;
}


/** Whether some method accepts the amount (a payment link without a method needs one). */
export function anyMethodAccepts(limits: LimitTable, amount: number): boolean {
  return METHOD_CODES.some((code) => isWithinLimit(limits[code], amount));
}

/** The overall range any method accepts, for the message when none does. */
export function overallRange(limits: LimitTable): AmountLimit {
  const all = METHOD_CODES.map((code) => limits[code]);
  return { min: Math.min(...all.map((limit) => limit.min)), max: Math.max(...all.map((limit) => limit.max)) };
}
