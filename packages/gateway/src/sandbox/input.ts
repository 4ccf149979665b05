/**
 * What the sandbox API reads (JSON bodies, the deliveries query string) and how it says what is
 * wrong. Every text names the field and states the rule, contains no `"` and echoes no value: the
 * gateway's texts never do (issue 14). zod's defaults broke all three (`body: Unrecognized key:
 * "x"`, `Invalid input: expected number, received NaN`), and a message given to a whole object
 * also replaced the one of an unknown key, so `{method, x}` read as `body: must be a JSON object`.
 * So every leaf rule here carries its own message, and `parseSandboxInput` words the two issues
 * zod words itself: an unknown field, and a body that is not an object.
 */
import { describeIssues, merchantCodeField, optionalMethodField, orderNumField, platOrderNumField, type FieldIssue } from '@tombolbayar/protocol';
import { z } from 'zod';
import { fieldLabel, NUL_RULE } from '../http/authenticate.ts';

export type SandboxInput<T> = { readonly ok: true; readonly value: T } | { readonly ok: false; readonly message: string };

export const UNKNOWN_FIELD_RULE = 'is not a field of this request';
export const NOT_AN_OBJECT_RULE = 'must be a JSON object';

function issuesOf(issue: z.core.$ZodIssue): FieldIssue[] {
  const at = issue.path.map(String).join('.');
  if (issue.code === 'unrecognized_keys') {
    // A key the caller sent is named only when it is a plain name (`fieldLabel`).
    return issue.keys.map((key) => ({ field: at ? `${at}.${fieldLabel(key)}` : fieldLabel(key), message: UNKNOWN_FIELD_RULE }));
  }
  if (issue.code === 'invalid_type' && issue.expected === 'object') {
    return [{ field: at || 'body', message: NOT_AN_OBJECT_RULE }];
  }
  // Every other rule below carries its own message.
  return [{ field: at || 'body', message: issue.message }];
}

/** `schema.safeParse` with our own texts, `field: rule; field: rule`, one rule per field. */
export function parseSandboxInput<S extends z.ZodType>(schema: S, input: unknown): SandboxInput<z.output<S>> {
  const result = schema.safeParse(input);
  if (result.success) return { ok: true, value: result.data };
  const seen = new Set<string>();
  const first = result.error.issues.flatMap(issuesOf).filter((issue) => !seen.has(issue.field) && seen.add(issue.field));
  return { ok: false, message: describeIssues(first) };
}

/** A rule's message, or `is required` when the field is missing. */
export function rule(message: string) {
  return (issue: { input?: unknown }) => (issue.input === undefined ? 'is required' : message);
}

/** `method` spelled as `prepaidOrder` takes it: a code, its alias (`OVO`, `BCA`), or null, `""` or absent. */
export const payBodySchema = z.strictObject({ method: optionalMethodField });

const MAX_ADVANCE_MINUTES = 10 * 365 * 24 * 60;
const MINUTES_RULE = `must be a number of minutes, more than 0 and at most ${MAX_ADVANCE_MINUTES} (ten years)`;
export const advanceBodySchema = z.strictObject({
  minutes: z
    .number({ error: rule(MINUTES_RULE) })
    .positive({ error: MINUTES_RULE })
    .max(MAX_ADVANCE_MINUTES, { error: MINUTES_RULE }),
});

const LIMIT_RULE = 'must be a whole number from 1 to 500';
const withoutNul = /^[^\u0000]*$/;
export const deliveriesQuerySchema = z.object({
  // The protocol's field rules (orderNum's printable ASCII already excludes U+0000).
  orderNum: orderNumField.optional(),
  merchantCode: merchantCodeField.regex(withoutNul, { error: NUL_RULE }).optional(),
  platOrderNum: platOrderNumField.regex(withoutNul, { error: NUL_RULE }).optional(),
  // A query string holds text: digits, read as a number only once they are known to be one.
  limit: z
    .string({ error: rule(LIMIT_RULE) })
    .regex(/^[1-9][0-9]{0,2}$/, { error: LIMIT_RULE })
    .transform(Number)
    .refine((limit) => limit <= 500, { error: LIMIT_RULE })
    .optional(),
});
