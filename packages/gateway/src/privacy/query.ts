/**
 * A request about a person's data (erasure or export), from the CLI's flags or the signed API's
 * fields: `email`, `phone`, `orderNum`, at least one. Pure; a bad value names its field.
 */
import type { PersonQuery } from '../store/personal-data.ts';

/** The longest value each key accepts (the protocol's field widths). */
const LIMITS = { email: 254, phone: 20, orderNum: 64 } as const;
type Key = keyof typeof LIMITS;

export type ParsedQuery = { readonly ok: true; readonly query: PersonQuery } | { readonly ok: false; readonly field: string; readonly message: string };

export function parsePersonQuery(input: Readonly<Record<string, unknown>>): ParsedQuery {
  const query: { -readonly [K in Key]?: string } = {};
  for (const key of Object.keys(LIMITS) as Key[]) {
    const value = input[key];
    if (value === undefined) continue;
    if (typeof value !== 'string') return { ok: false, field: key, message: 'must be a string' };
    const trimmed = value.trim();
    if (trimmed === '' || trimmed.length > LIMITS[key] || trimmed.includes('\u0000')) return { ok: false, field: key, message: `must be 1 to ${LIMITS[key]} characters` };
    query[key] = trimmed;
  }
  if (Object.keys(query).length === 0) return { ok: false, field: 'email', message: 'give at least one of email, phone, orderNum' };
  return { ok: true, query };
}
