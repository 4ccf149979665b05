/**
 * Turning zod failures into errors a merchant's engineer can act on: every issue names the field
 * and the rule ("productDetail: must be at most 32 characters"), never a stack or a zod dump.
 * Values are never echoed back, so a secret sent in the wrong field does not leak into a message.
 */
import type { z } from 'zod';

/**
 * Which kind of rule failed, as an identifier a program keys on (the gateway picks its fixed
 * refusals by it): the words of `message` may be reworded, these may not.
 * - `required`: missing, or `""`;
 * - `type`: present but of another type (a number or `null` where a string belongs);
 * - `too_short` / `too_long`: outside the length (or size) bounds;
 * - `format`: of the right type and length, but not of the field's form (base64, digits, e-mail);
 * - `value`: not one of the allowed values (a method, a status);
 * - `rule`: a rule of its own (a range, a real date, one field or another).
 */
export const RULE_IDS = ['required', 'type', 'too_short', 'too_long', 'format', 'value', 'rule'] as const;
export type RuleId = (typeof RULE_IDS)[number];

export interface FieldIssue {
  /** Dotted path of the field (`payMoney`, `items.0.sku`); `body` for the message as a whole. */
  readonly field: string;
  /** The rule that failed, in words. */
  readonly message: string;
  /** The kind of rule that failed; set on every issue the protocol's schemas report. */
  readonly rule?: RuleId;
}

export type ParseResult<T> =
  | { readonly ok: true; readonly value: T }
  | { readonly ok: false; readonly issues: readonly FieldIssue[]; readonly message: string };

function fieldName(path: readonly PropertyKey[]): string {
  return path.length === 0 ? 'body' : path.map((part) => String(part)).join('.');
}

type ZodIssue = z.ZodError['issues'][number];

/** The rule identifier of a zod issue (see `RuleId`). */
export function ruleOf(issue: ZodIssue): RuleId {
  switch (issue.code) {
    case 'invalid_type':
      return issue.input === undefined ? 'required' : 'type';
    case 'too_small':
      // Every string field of the protocol says `""` "is required" with a minimum of 1.
      return issue.origin === 'string' && Number(issue.minimum) === 1 && issue.input === '' ? 'required' : 'too_short';
    case 'too_big':
      return 'too_long';
    case 'invalid_format':
      return 'format';
    case 'invalid_value':
    case 'invalid_union':
      return 'value';
    default:
      return 'rule';
  }
}

/** One issue per field (the first rule that failed), in the order zod reported them. */
export function fieldIssues(error: z.ZodError): FieldIssue[] {
  const seen = new Set<string>();
  const issues: FieldIssue[] = [];
  for (const issue of error.issues) {
    const field = fieldName(issue.path);
    if (seen.has(field)) continue;
    seen.add(field);
    issues.push({ field, message: issue.message, rule: ruleOf(issue) });
  }
  return issues;
}

/** `field: rule`, one issue as every message of the project writes it. */
export function describeIssue(issue: Pick<FieldIssue, 'field' | 'message'>): string {
  return `${issue.field}: ${issue.message}`;
}

/**
 * `field: rule; field: rule`, the form used in `platRespMessage` and HTTP error bodies: the one
 * formatter of the gateway, the plug-in and the sandbox.
 */
export function describeIssues(issues: ReadonlyArray<Pick<FieldIssue, 'field' | 'message'>>): string {
  return issues.map(describeIssue).join('; ');
}

/**
 * `schema.safeParse` with field-named issues instead of a ZodError. The input is reported to the
 * rule identifiers only (`ruleOf` tells missing from mistyped by it), never copied into an issue.
 */
export function parseWith<S extends z.ZodType>(schema: S, input: unknown): ParseResult<z.output<S>> {
  const result = schema.safeParse(input, { reportInput: true });
  if (result.success) return { ok: true, value: result.data };
  const issues = fieldIssues(result.error);
  return { ok: false, issues, message: describeIssues(issues) };
}
