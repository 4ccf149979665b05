/**
 * Field-map rules shared by signing and sending. Dependency-free and browser-safe.
 */

/** Values the wire treats as absent: the signature skips them and a sender leaves them out. */
export function isAbsent(value: unknown): value is null | undefined | '' {
  return value === null || value === undefined || value === '';
}

/**
 * The fields as they travel: absent values dropped, so the JSON (or form) sent holds exactly
 * what the signature covers.
 */
export function compactFields<T extends string | number>(fields: Readonly<Record<string, T | null | undefined>>): Record<string, T> {
  const out: Record<string, T> = {};
  for (const [key, value] of Object.entries(fields)) if (!isAbsent(value)) out[key] = value as T;
  return out;
}
