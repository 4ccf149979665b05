/**
 * The countdown `<pay-va>` shows under a pending order: when the order expires, and the time left
 * by the hosted page's rule.
 */
import { parseDateTime } from './formats.ts';

/**
 * `expiresAt` in epoch ms: the wire's `yyyyMMddHHmmss` in Jakarta time (the protocol's
 * `parseDateTime`), or ISO 8601; NaN when it is neither (or names no real moment).
 */
export function expiryOf(expiresAt: string): number {
  return parseDateTime(expiresAt)?.getTime() ?? Date.parse(expiresAt);
}

/**
 * Time left until `until`, by the hosted page's rule (the gateway's `formatCountdown`), so the
 * shop and the payment page never disagree: `HH:MM:SS` (an hour reads `01:00:00`), `1 day
 * 02:03:04` above a day, rounded up (the last second shows `00:00:01` until it has passed), never
 * negative; empty for an unknown expiry. `days`: the words for one day and for more.
 */
export function countdown(until: number, now: number, days: [one: string, other: string] = ['day', 'days']): string {
  if (!(until > 0)) return '';
  const s = Math.max(0, Math.ceil((until - now) / 1000));
  const d = Math.floor(s / 86_400);
  const two = (n: number) => String(n).padStart(2, '0');
  const clock = `${two(Math.floor(s / 3600) % 24)}:${two(Math.floor(s / 60) % 60)}:${two(s % 60)}`;
  return d ? `${d} ${days[d === 1 ? 0 : 1]} ${clock}` : clock;
}
