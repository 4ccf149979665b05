/**
 * Countdown text, shared by the server (first paint, and the no-JS page) and the client script
 * (which ticks it every second), so both print the same thing.
 */

export interface DayWords {
  readonly one: string;
  readonly other: string;
}

function two(value: number): string {
  return String(value).padStart(2, '0');
}

/**
 * Reads like `<pay-va>`'s countdown (`@tombolbayar/pay-button`): `59:59` under an hour,
 * `1:02:03` under a day, and `1 day 02:03:04` / `4 days 23:59:59` above (expiry may be up to 5
 * days). Whole seconds left, rounded down as `<pay-va>` does, so an hour-long order reads `59:59`
 * on both right after it was created. Negative or non-finite input prints `00:00`.
 */
export function formatCountdown(remainingMs: number, days: DayWords): string {
  const total = wholeSeconds(remainingMs);
  const d = Math.floor(total / 86_400);
  const h = Math.floor((total % 86_400) / 3600);
  const m = Math.floor((total % 3600) / 60);
  const s = total % 60;
  const mmss = `${two(m)}:${two(s)}`;
  if (d > 0) return `${d} ${d === 1 ? days.one : days.other} ${two(h)}:${mmss}`;
  return h > 0 ? `${h}:${mmss}` : mmss;
}

function wholeSeconds(remainingMs: number): number {
  return Number.isFinite(remainingMs) && remainingMs > 0 ? Math.floor(remainingMs / 1000) : 0;
}

/** ISO 8601 duration for `<time datetime>`: `P1DT2H3M4S`. */
export function isoDuration(remainingMs: number): string {
  const total = wholeSeconds(remainingMs);
  const d = Math.floor(total / 86_400);
  const h = Math.floor((total % 86_400) / 3600);
  const m = Math.floor((total % 3600) / 60);
  const s = total % 60;
  return `P${d > 0 ? `${d}D` : ''}T${h}H${m}M${s}S`;
}
