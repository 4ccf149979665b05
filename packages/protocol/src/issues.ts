/**
 * Turning zod failures into errors a merchant's engineer can act on: every issue names the field
 * and the rule ("productDetail: must be at most 32 characters"), never a stack or a zod dump.
 * Values are never echoed back, so a secret sent in the wrong field does not leak into a message.
 */
import type { z } from 'zod';

export interface FieldIssue {
  /** Dotted path of the field (`payMoney`, `items.0.sku`); `body` for the message as a whole. */
  readonly field: string;
  /** The rule that failed, in words. */
  readonly message: string;
}

export type ParseResult<T> =
  | { readonly ok: true; readonly value: T }
  | { readonly ok: false; readonly issues: readonly FieldIssue[]; readonly message: string };

function fieldName(path: readonly PropertyKey[]): string {
  return path.length === 0 ? 'body' : path.map((part) => String(part)).join('.');
}

/** One issue per field (the first rule that failed), in the order zod reported them. */
export function fieldIssues(error: z.ZodError): FieldIssue[] {
  const seen = new Set<string>();
  const issues: FieldIssue[] = [];
  for (const issue of error.issues) {
    const field = fieldName(issue.path);
    if (seen.has(field)) continue;
    seen.add(field);
    issues.push({ field, message: issue.message });
  }
  return issues;
}

/** `field: rule; field: rule`, the form used in `platRespMessage` and HTTP error bodies. */
export function describeIssues(issues: readonly FieldIssue[]): string {
  return issues.map((issue) => `${issue.field}: ${issue.message}`).join('; ');
}

/** `schema.safeParse` with field-named issues instead of a ZodError. */
export function parseWith<S extends z.ZodType>(schema: S, input: unknown): ParseResult<z.output<S>> {
  const result = schema.safeParse(input);
  if (result.success) return { ok: true, value: result.data };
  const issues = fieldIssues(result.error);
  return { ok: false, issues, message: describeIssues(issues) };
}
