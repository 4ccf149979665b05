/**
 * The merchant's `quote()`: the only place a price comes from. Its answer is checked against the
 * gateway's field rules before anything is stored, so a merchant bug (a 40-character product name,
 * a price in floating point) is reported by name instead of surfacing as a gateway `FAIL`.
 */
import { emailField, expiryPeriodField, nameField, phoneField, productDetailField, toRupiahString, amountField } from '@tombolbayar/protocol';
import { STATUS_CODES } from 'node:http';
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
  /**
   * The merchant's id of the purchase (a cart or order id), 1 to 64 letters, digits, `.`, `_`,
   * `:` or `-`. While an order of this reference, amount and method can still be paid, a new
   * request for it (another tab, a reload, another device) gets that order back; once paid, the
   * paid order. Take it from the customer's session, never from the request alone: whoever sends a
   * reference gets that purchase's order (its status and payment details).
   */
  readonly reference?: string;
}

export interface Quote {
  readonly payMoney: string;
  readonly productDetail: string;
  readonly name: string;
  readonly email: string;
  readonly phone: string;
  readonly expiryPeriod: number;
  readonly metadata: Readonly<Record<string, unknown>> | null;
  readonly reference: string | null;
}

const MONEY_RULE = 'must be a positive whole number of rupiah (an integer such as 150000, or "150000")';

const REFERENCE_RULE = 'must be the purchase\'s id: 1 to 64 letters, digits, ".", "_", ":" or "-", starting with a letter or digit';

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
    reference: z
      .string({ error: REFERENCE_RULE })
      .regex(/^[A-Za-z0-9][A-Za-z0-9._:-]{0,63}$/, { error: REFERENCE_RULE })
      .optional(),
  }, { error: 'quote() must return an object' })
  .strict();

/** A 4xx that `quote()` threw the way Express apps do (`http-errors`, or `{ status, expose }` by hand). */
export interface QuoteHttpRefusal {
  readonly status: number;
  /** The error's own message when it says it may be shown (`expose: true`), else the status text. */
  readonly message: string;
}

/**
 * Does this thrown value follow the `http-errors` convention with a client-error status? Its
 * `status` (or `statusCode`) must be an integer 400 to 499; 5xx and anything else stay
 * `quote_failed`. The message reaches the browser only when `expose === true`, as `http-errors`
 * sets it for 4xx: an error that does not say so may carry internals.
 */
export function quoteHttpRefusal(error: unknown): QuoteHttpRefusal | undefined {
  if (typeof error !== 'object' || error === null) return undefined;
  const { status, statusCode, expose, message } = error as { status?: unknown; statusCode?: unknown; expose?: unknown; message?: unknown };
  const code = status ?? statusCode;
  if (typeof code !== 'number' || !Number.isInteger(code) || code < 400 || code > 499) return undefined;
  const shown = expose === true && typeof message === 'string' && message.trim() !== '' ? message.slice(0, 500) : undefined;
  return { status: code, message: shown ?? STATUS_CODES[code] ?? 'The order was refused.' };
}

/**
 * Run `quote()` and check its answer. A `NotForSaleError` (any `PayButtonError`) passes through;
 * an `http-errors`-style 4xx becomes `quote_refused` with that status; anything else thrown
 * becomes `quote_failed`, with the original error kept for events only.
 */
export async function runQuote(call: () => unknown, defaultExpiry: number, events: PayButtonEvents): Promise<Quote> {
  let answer: unknown;
  try {
    answer = await call();
  } catch (error) {
    if (isPayButtonError(error)) throw error;
    const refusal = quoteHttpRefusal(error);
    if (refusal) {
      throw new PayButtonError('quote_refused', refusal.message, { httpStatus: refusal.status, retryable: refusal.status === 408 || refusal.status === 429, cause: error });
    }
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
    reference: value.reference ?? null,
  };
}
