/**
 * The merchant's `quote()`: the only place a price comes from. Its answer is checked against the
 * gateway's field rules before anything is stored, so a merchant bug (a 40-character product name,
 * a price in floating point) is reported by name instead of surfacing as a gateway `FAIL`.
 */
import { emailField, expiryPeriodField, nameField, phoneField, productDetailField, toRupiahString, amountField } from '@paybutton/protocol';
import { z } from 'zod';
import { PayButtonError, isPayButtonError } from './errors.ts';
import type { PayButtonEvents } from './events.ts';
import { parseStrict } from './validation.ts';

/** What `quote()` returns. */
export interface QuoteResult {
  /** Whole rupiah: a safe integer (150000) or its digits ("150000"). */
  readonly payMoney: number | string;
  /** At most 32 characters; shown on the bill. */
  readonly productDetail: string;
  /** Customer name, at most 32 characters. */
  readonly name: string;
  readonly email: string;
  /** 08 followed by digits. */
  readonly phone: string;
  /** Minutes, 30 to 7200; the router's `expiryPeriod` when absent. */
  readonly expiryPeriod?: number | string;
  /** Anything JSON the merchant wants back in `onPaid` (cart id, customer id). */
  readonly metadata?: Readonly<Record<string, unknown>>;
}

export interface Quote {
  readonly payMoney: string;
  readonly productDetail: string;
  readonly name: string;
  readonly email: string;
  readonly phone: string;
  readonly expiryPeriod: number;
  readonly metadata: Readonly<Record<string, unknown>> | null;
}

const MONEY_RULE = 'must be a positive whole number of rupiah (an integer such as 150000, or "150000")';

const quoteSchema = z
  .object({
    payMoney: z.union([z.number({ error: MONEY_RULE }).int({ error: MONEY_RULE }).positive({ error: MONEY_RULE }), z.string({ error: MONEY_RULE })], { error: MONEY_RULE }).transform((value, ctx) => {
      try {
        const text = typeof value === 'number' ? toRupiahString(value) : value;
        const checked = amountField.safeParse(text);
        if (checked.success) return checked.data;
      } catch {
        // fall through to the issue below
      }
      ctx.addIssue({ code: 'custom', message: MONEY_RULE });
      return z.NEVER;
    }),
    productDetail: productDetailField,
    name: nameField,
    email: emailField,
    phone: phoneField,
    expiryPeriod: z.unknown().transform((value, ctx) => {
      const checked = typeof value === 'number' || typeof value === 'string' ? expiryPeriodField.safeParse(String(value)) : undefined;
      if (checked?.success) return Number(checked.data);
      ctx.addIssue({ code: 'custom', message: 'must be a whole number of minutes from 30 to 7200' });
      return z.NEVER;
    }).optional(),
    metadata: z
      .record(z.string(), z.unknown(), { error: 'must be a plain object' })
      .refine((value) => {
        try {
          return JSON.stringify(value).length <= 4096;
        } catch {
          return false;
        }
      }, { error: 'must be JSON-serialisable and at most 4096 characters as JSON' })
      .optional(),
  }, { error: 'quote() must return an object' })
  .strict();

/**
 * Run `quote()` and check its answer. A `NotForSaleError` (any `PayButtonError`) passes through;
 * anything else thrown becomes `quote_failed`, with the original error kept for events only.
 */
export async function runQuote(call: () => unknown, defaultExpiry: number, events: PayButtonEvents): Promise<Quote> {
  let answer: unknown;
  try {
    answer = await call();
  } catch (error) {
    if (isPayButtonError(error)) throw error;
    events.emit('warning', { code: 'quote_failed', message: 'quote() threw; the customer was told the order could not be priced', error });
    throw new PayButtonError('quote_failed', 'The order could not be priced. Please try again later.', { cause: error });
  }
  const parsed = parseStrict(quoteSchema, answer, 'is not a field quote() may return');
  if (!parsed.ok) {
    const message = `quote() returned an invalid order: ${parsed.message}`;
    events.emit('warning', { code: 'quote_invalid', message });
    throw new PayButtonError('quote_invalid', message, { issues: parsed.issues });
  }
  const value = parsed.value;
  return {
    payMoney: value.payMoney,
    productDetail: value.productDetail,
    name: value.name,
    email: value.email,
    phone: value.phone,
    expiryPeriod: value.expiryPeriod ?? defaultExpiry,
    metadata: value.metadata ?? null,
  };
}
