/**
 * zod parsing with field-named issues, like the protocol's `parseWith`, plus one thing it leaves
 * out: an unknown key becomes an issue on that key ("pricee: is not allowed") rather than one
 * issue on the whole body, so a typo is named where it is.
 */
import { describeIssues, type FieldIssue, type ParseResult } from '@tombolbayar/protocol';
import type { z } from 'zod';

function fieldName(path: readonly PropertyKey[]): string {
  return path.length === 0 ? 'body' : path.map((part) => String(part)).join('.');
}

export function issuesOf(error: z.ZodError, unknownKeyMessage: string): FieldIssue[] {
  const seen = new Set<string>();
  const issues: FieldIssue[] = [];
  const add = (field: string, message: string): void => {
    if (seen.has(field)) return;
    seen.add(field);
    issues.push({ field, message });
  };
  for (const issue of error.issues) {
    if (issue.code === 'unrecognized_keys') {
      const base = issue.path.length === 0 ? '' : `${fieldName(issue.path)}.`;
      for (const key of issue.keys) add(`${base}${key}`, unknownKeyMessage);
    } else {
      add(fieldName(issue.path), issue.message);
    }
  }
  return issues;
}

export function parseStrict<S extends z.ZodType>(schema: S, input: unknown, unknownKeyMessage = 'is not allowed'): ParseResult<z.output<S>> {
  const result = schema.safeParse(input);
  if (result.success) return { ok: true, value: result.data };
  const issues = issuesOf(result.error, unknownKeyMessage);
  return { ok: false, issues, message: describeIssues(issues) };
}

/** True for a zod schema (v4 classic or mini): what `fields` option entries must be. */
export function isZodSchema(value: unknown): value is z.ZodType {
  return typeof value === 'object' && value !== null && typeof (value as { safeParse?: unknown }).safeParse === 'function' && '_zod' in value;
}
