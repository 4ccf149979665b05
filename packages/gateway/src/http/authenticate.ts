/**
 * Who is asking, and did they sign it: the first steps of every merchant request, in this order
 * (our decision; the spec names no order):
 *
 * 1. the body is a JSON object, else FAIL `body`;
 * 2. `merchantCode` is well-formed, else FAIL `merchantCode`;
 * 3. the merchant is registered, else NOTEXIST;
 * 4. `sign` is well-formed and verifies with the merchant's public key over the fields exactly as
 *    received (unknown fields included, so nothing unsigned slips through), else FAIL `sign`;
 * 5. the family clients' liberal forms are mapped to canonical values (the protocol's
 *    `canonicalFields`: whole JSON numbers, `.00` amounts, ISO 8601 `dateTime`), after the
 *    signature verified over what the client sent and before anything is validated or stored;
 * 6. every field passes the request schema, else FAIL naming each field and its rule (U+0000 is
 *    refused in any field first, and in merchantCode already at step 2).
 *
 * So a caller without the merchant's key learns nothing about the field rules. Steps 1 to 4 answer
 * with fixed refusals (`refusals.ts`) that repeat nothing of the request; only an authenticated
 * merchant gets messages built from its request (step 5).
 */
import { canonicalFields, describeIssues, MAX_REQUEST_SIGN_LENGTH, merchantCodeField, parseMessage, parseWith, signField, verify, type SignableFields } from '@tombolbayar/protocol/node';
import type { z } from 'zod';
import type { Merchant } from '../domain/types.ts';
import type { Executor } from '../store/executor.ts';
import { findMerchant } from '../store/merchants.ts';
import { refusalForRule, type RefusalName } from './refusals.ts';

export type Authenticated<T> =
  | { readonly ok: true; readonly merchant: Merchant; readonly value: T }
  /** Refused before the caller was authenticated: a fixed answer. */
  | { readonly ok: false; readonly refusal: RefusalName }
  /** The merchant is authenticated; its fields break a rule. */
  | { readonly ok: false; readonly refusal?: undefined; readonly code: 'FAIL'; readonly message: string };

/**
 * U+0000 is refused in every field, on every engine: PostgreSQL text cannot store it, and no
 * merchant data needs it. Checked before any value reaches the store.
 */
const NUL = '\u0000';
export const NUL_RULE = 'must not contain the character U+0000';

/**
 * A field name the caller chose, as a message may name it: itself when it is 1 to 64 printable
 * ASCII characters without a space, `"` (the family's Java verifier strips it before comparing,
 * issue 14), `\`, `:` or `;` (which would blur the `field: rule; field: rule` form); else a
 * placeholder. Nothing else a caller typed is ever echoed.
 */
const PLAIN_FIELD = /^[\x21\x23-\x39\x3c-\x5b\x5d-\x7e]{1,64}$/;
export const UNNAMED_FIELD = 'a field whose name is not shown';
export function fieldLabel(key: string): string {
  return PLAIN_FIELD.test(key) ? key : UNNAMED_FIELD;
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * The whole rule of `merchantCodeField` and `signField` (the protocol's), checked without zod on
 * every request (issue 24); a value failing it is refused by the zod field's rule identifier.
 */
const isMerchantCode = (value: unknown): value is string => typeof value === 'string' && value.length >= 5 && value.length <= 50;
const SIGN_FORM = /^[A-Za-z0-9+/_-]+={0,2}$/;
const isSign = (value: unknown): value is string => typeof value === 'string' && value.length >= 1 && value.length <= MAX_REQUEST_SIGN_LENGTH && SIGN_FORM.test(value);

/** The fields whose string value holds U+0000, or undefined when none does. */
function fieldsWithNul(body: Record<string, unknown>): string[] | undefined {
  let found: string[] | undefined;
  for (const field in body) {
    const value = body[field];
    if (typeof value === 'string' && value.includes(NUL)) (found ??= []).push(field);
  }
  return found;
}

/**
 * Who sent this and may they: the merchant must exist (NOTEXIST), the signature must verify over
 * the fields as received, and only then are the field rules checked, so a caller without the
 * merchant's key learns nothing about them.
 */
export async function authenticate<S extends z.ZodType>(
  db: Executor,
  body: unknown,
  schema: S,
): Promise<Authenticated<z.output<S>>> {
  if (!isPlainObject(body)) return { ok: false, refusal: 'bodyNotObject' };
  const merchantCode = body.merchantCode;
  if (!isMerchantCode(merchantCode)) {
    const code = parseWith(merchantCodeField, merchantCode);
    return { ok: false, refusal: code.ok ? 'merchantCodeLength' : refusalForRule('merchantCode', code.issues[0]?.rule) };
  }
  if (merchantCode.includes(NUL)) return { ok: false, refusal: 'merchantCodeNul' };
  const merchant = await findMerchant(db, merchantCode);
  if (!merchant) return { ok: false, refusal: 'merchantUnknown' };
  const sign = body.sign;
  if (!isSign(sign)) {
    const signature = parseWith(signField, sign);
    return { ok: false, refusal: signature.ok ? 'signMalformed' : refusalForRule('sign', signature.issues[0]?.rule) };
  }
  if (!verify(body as SignableFields, sign, merchant.publicKey)) return { ok: false, refusal: 'signMismatch' };
  const withNul = fieldsWithNul(body);
  if (withNul) return { ok: false, code: 'FAIL', message: describeIssues([...new Set(withNul.map(fieldLabel))].map((field) => ({ field, message: NUL_RULE }))) };
  const parsed = parseMessage(schema, canonicalFields(body));
  if (!parsed.ok) return { ok: false, code: 'FAIL', message: parsed.message };
  return { ok: true, merchant, value: parsed.value };
}
