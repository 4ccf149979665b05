/**
 * Field rules of spec 2.1/2.3/8, one zod schema per field, each failing with a message that
 * states the rule. The request/response schemas are assembled from these in `schemas.ts`.
 */
import { z } from 'zod';
import { FEE_PATTERN, parseDateTime, RUPIAH_PATTERN } from './formats.ts';
import { METHOD_CODES, resolveMethod, type MethodCode } from './methods.ts';

type IssueLike = { code?: string; input?: unknown };

/** Messages for a wrong type say "is required" or "must be a string"; anything else says `rule`. */
function ruleError(rule: string) {
  return (issue: IssueLike): string => {
    if (issue.code === 'invalid_type') return issue.input === undefined ? 'is required' : 'must be a string';
    return rule;
  };
}

/** A string field; `""` counts as missing, as the signature drops empty values. */
function text(rule: string) {
  return z.string({ error: ruleError(rule) }).min(1, { error: 'is required' });
}

const LENGTH_5_TO_50 = 'must be 5 to 50 characters';

export const merchantCodeField = text(LENGTH_5_TO_50).min(5, { error: LENGTH_5_TO_50 }).max(50, { error: LENGTH_5_TO_50 });

/** Our rule: 1 to 64 printable ASCII characters, so it survives URLs, logs and bank statements. */
export const orderNumField = text('must be 1 to 64 printable ASCII characters without spaces')
  .max(64, { error: 'must be at most 64 characters' })
  .regex(/^[\x21-\x7e]+$/, { error: 'must be printable ASCII characters without spaces' });

export const platOrderNumField = text('must be a platform order number').max(64, { error: 'must be at most 64 characters' });

const AMOUNT_RULE = 'must be a positive whole number of rupiah written as digits, e.g. 150000';
export const amountField = text(AMOUNT_RULE).regex(RUPIAH_PATTERN, { error: AMOUNT_RULE });

/** A fee may be zero, unlike an amount. */
const FEE_RULE = 'must be a whole number of rupiah written as digits, e.g. 4000';
export const feeField = text(FEE_RULE).regex(FEE_PATTERN, { error: FEE_RULE });

export const productDetailField = text('must be 1 to 32 characters').max(32, { error: 'must be at most 32 characters' });
export const nameField = text('must be 1 to 32 characters').max(32, { error: 'must be at most 32 characters' });

const EMAIL_RULE = 'must be an e-mail address';
export const emailField = z
  .email({ error: ruleError(EMAIL_RULE) })
  .max(254, { error: 'must be at most 254 characters' });

/**
 * A phone number in its canonical Indonesian form (the seed's rule). `+628…` and `628…` are mapped
 * to it by `canonicalFields` (liberal-forms.ts) before a receiver validates; this rule stays strict.
 */
export const PHONE_PATTERN = /^08\d+$/;
const PHONE_RULE = 'must be 08 followed by digits, e.g. 081234567890';
export const phoneField = text(PHONE_RULE)
  .max(20, { error: 'must be at most 20 characters' })
  .regex(PHONE_PATTERN, { error: PHONE_RULE });

const URL_RULE = 'must be an absolute http or https URL';
export const urlField = text(URL_RULE)
  .max(2048, { error: 'must be at most 2048 characters' })
  .pipe(z.url({ protocol: /^https?$/, hostname: z.regexes.hostname, error: URL_RULE }));

const EXPIRY_RULE = 'must be a whole number of minutes from 30 to 7200';
export const expiryPeriodField = text(EXPIRY_RULE)
  .regex(/^[1-9]\d{0,3}$/, { error: EXPIRY_RULE })
  .refine((value) => Number(value) >= 30 && Number(value) <= 7200, { error: EXPIRY_RULE });

const DATE_TIME_RULE = 'must be a real date and time written yyyyMMddHHmmss (Asia/Jakarta)';
export const dateTimeField = text(DATE_TIME_RULE).refine((value) => parseDateTime(value) !== undefined, {
  error: DATE_TIME_RULE,
});

const SIGN_RULE = 'must be a base64 signature of at most 512 characters';
export const signField = text(SIGN_RULE)
  .max(512, { error: 'must be at most 512 characters' })
  .regex(/^[A-Za-z0-9+/_-]+={0,2}$/, { error: SIGN_RULE });

/** Platform signatures are not bounded by the request limit: larger platform keys are allowed. */
export const platSignField = text('must be a base64 signature').regex(/^[A-Za-z0-9+/_-]+={0,2}$/, {
  error: 'must be a base64 signature',
});

const METHOD_RULE = `must be one of ${METHOD_CODES.join(', ')}`;
export const methodField = z.enum(METHOD_CODES, { error: ruleError(METHOD_RULE) });

/**
 * A required method given as a code or as its un-prefixed alias (`BCA`), normalised to the code:
 * for inputs from people and browsers, where the alias is friendlier.
 */
export const methodOrAliasField = z
  .string({ error: ruleError(METHOD_RULE) })
  .transform((value, ctx): MethodCode => {
    const code = resolveMethod(value);
    if (code) return code;
    ctx.addIssue({ code: 'custom', message: `${METHOD_RULE} (or the code without its prefix, e.g. BCA)` });
    return z.NEVER;
  });

/**
 * `method` of Create Payment Link: null, absent or `""` (the customer picks on the hosted page),
 * a code, or a code without its prefix (`BCA`), normalised to the canonical code.
 */
export const optionalMethodField = z
  .union([z.null(), z.string({ error: ruleError(METHOD_RULE) })], {
    error: ruleError(`must be null or ${METHOD_RULE.slice('must be '.length)}`),
  })
  .optional()
  .transform((value, ctx): MethodCode | null => {
    if (value === null || value === undefined || value === '') return null;
    const code = resolveMethod(value);
    if (code) return code;
    ctx.addIssue({ code: 'custom', message: `must be null or ${METHOD_RULE.slice('must be '.length)} (or the code without its prefix, e.g. BCA)` });
    return z.NEVER;
  });

/** `redirectUrl`: optional; `""` counts as absent, as the signature drops it. */
export const optionalUrlField = z
  .union([z.null(), z.literal(''), urlField], { error: URL_RULE })
  .optional()
  .transform((value) => (value ? value : undefined));
