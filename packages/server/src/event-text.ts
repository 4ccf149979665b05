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

/** Whether `text` has a character `escapeControl` rewrites (no match, no copy). */
const HAS_CONTROL = /[\u0000-\u001f\u007f-\u009f\u2028\u2029]/;

/** The payload with its string fields escaped (one level: events are flat; errors are left alone); the payload itself when none needs it. */
export function withEscapedText<T>(payload: T): T {
  if (typeof payload !== 'object' || payload === null || payload instanceof Error) return payload;
  let out: Record<string, unknown> | undefined;
  for (const key of Object.keys(payload)) {
    const value = (payload as Record<string, unknown>)[key];
    if (typeof value !== 'string' || !HAS_CONTROL.test(value)) continue;
    out ??= { ...(payload as Record<string, unknown>) };
    out[key] = escapeControl(value);
  }
  return (out ?? payload) as T;
}
