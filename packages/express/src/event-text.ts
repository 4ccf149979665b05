/**
 * Event text that came from outside (a notification's `orderNum`, a field name, a gateway's
 * message) may carry NUL, CR, LF or other control characters: a merchant who logs events as text
 * would let a sender forge log lines (issue 22). Every string field of an event payload is written
 * with those characters escaped as `\uXXXX`; anything else is left as it was.
 */

/** C0 and C1 controls, DEL, and the Unicode line and paragraph separators. */
const CONTROL = /[\u0000-\u001f\u007f-\u009f\u2028\u2029]/g;

export function escapeControl(text: string): string {
  return text.replace(CONTROL, (char) => `\\u${char.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

/** The payload with its string fields escaped (one level: events are flat; errors are left alone). */
export function withEscapedText<T>(payload: T): T {
  if (typeof payload !== 'object' || payload === null || payload instanceof Error) return payload;
  let changed = false;
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(payload)) {
    const escaped = typeof value === 'string' ? escapeControl(value) : value;
    if (escaped !== value) changed = true;
    out[key] = escaped;
  }
  return changed ? (out as T) : payload;
}
