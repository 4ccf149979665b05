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
 * `02:03:04` below a day, `1 day 02:03:04` / `4 days 23:59:59` above (expiry may be up to
 * 5 days). Negative or non-finite input prints `00:00:00`. Rounds up, so the last second shows
 * `00:00:01` until it has fully passed.
 */
export function formatCountdown(remainingMs: number, days: DayWords): string {
  const total = Number.isFinite(remainingMs) && remainingMs > 0 ? Math.ceil(remainingMs / 1000) : 0;
  const d = Math.floor(total / 86_400);
  const h = Math.floor((total % 86_400) / 3600);
  const m = Math.floor((total % 3600) / 60);
  const s = total % 60;
  const clock = `${two(h)}:${two(m)}:${two(s)}`;
  if (d === 0) return clock;
  return `${d} ${d === 1 ? days.one : days.other} ${clock}`;
}

/** ISO 8601 duration for `<time datetime>`: `P1DT2H3M4S`. */
export function isoDuration(remainingMs: number): string {
  const total = Number.isFinite(remainingMs) && remainingMs > 0 ? Math.ceil(remainingMs / 1000) : 0;
  const d = Math.floor(total / 86_400);
  const h = Math.floor((total % 86_400) / 3600);
  const m = Math.floor((total % 3600) / 60);
  const s = total % 60;
  return `P${d > 0 ? `${d}D` : ''}T${h}H${m}M${s}S`;
}
