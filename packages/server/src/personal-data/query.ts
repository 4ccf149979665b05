/**
 * A request about a person's data (erasure or export): by e-mail, phone or order number, at least
 * one; an order matches when it matches every one given. Bad input is a `PayButtonError`
 * (`invalid_request`) naming the field.
 */
import { PayButtonError } from '../errors.ts';
import type { PersonQuery } from '../store/personal-data.ts';

export type { PersonQuery };

/** The longest value each key accepts (the order columns' widths). */
const LIMITS = { email: 254, phone: 20, orderNum: 64 } as const;
type Key = keyof typeof LIMITS;

/** Check `input` and return the query with its values trimmed; throws naming the field. */
export function parsePersonQuery(input: unknown): PersonQuery {
  if (typeof input !== 'object' || input === null || Array.isArray(input)) {
    throw invalid('query', 'must be an object { email?, phone?, orderNum? }');
  }
  const query: { -readonly [K in Key]?: string } = {};
  for (const [key, value] of Object.entries(input)) {
    if (!(key in LIMITS)) throw invalid(key, 'is not a key of the query (email, phone, orderNum)');
    if (value === undefined) continue;
    const limit = LIMITS[key as Key];
    if (typeof value !== 'string') throw invalid(key, 'must be a string');
    const trimmed = value.trim();
    if (trimmed === '' || trimmed.length > limit || trimmed.includes('\u0000')) throw invalid(key, `must be 1 to ${limit} characters`);
    query[key as Key] = trimmed;
  }
  if (Object.keys(query).length === 0) throw invalid('query', 'give at least one of email, phone, orderNum');
  return query;
}

function invalid(field: string, message: string): PayButtonError {
  return new PayButtonError('invalid_request', `${field}: ${message}`, { issues: [{ field, message }] });
}
