/**
 * Wire formats for time and money. Browser-safe and dependency-free.
 *
 * - `dateTime` is `yyyyMMddHHmmss` in Asia/Jakarta time (WIB, UTC+7, no daylight saving), our
 *   decision where the spec gives only the pattern.
 * - Amounts are strings of a positive whole number of rupiah (`"150000"`); in code they are plain
 *   integers, never floating point arithmetic on fractions.
 */

/** Jakarta is UTC+7 all year round, so a fixed offset is exact and needs no time-zone database. */
const JAKARTA_OFFSET_MS = 7 * 60 * 60 * 1000;

const DATE_TIME_PATTERN = /^(\d{4})(\d{2})(\d{2})(\d{2})(\d{2})(\d{2})$/;

function pad(value: number, width: number): string {
  return String(value).padStart(width, '0');
}

/** `yyyyMMddHHmmss` in Asia/Jakarta time for the given instant (default: now). */
export function formatDateTime(at: Date | number = Date.now()): string {
  const ms = typeof at === 'number' ? at : at.getTime();
  if (!Number.isFinite(ms)) throw new RangeError('formatDateTime needs a valid date');
  const local = new Date(ms + JAKARTA_OFFSET_MS);
  return (
    pad(local.getUTCFullYear(), 4) +
    pad(local.getUTCMonth() + 1, 2) +
    pad(local.getUTCDate(), 2) +
    pad(local.getUTCHours(), 2) +
    pad(local.getUTCMinutes(), 2) +
    pad(local.getUTCSeconds(), 2)
  );
}

/**
 * The instant a `yyyyMMddHHmmss` Asia/Jakarta string names, or `undefined` when it is not of that
 * shape or names no real moment (`20260230...`, hour 24, minute 60).
 */
export function parseDateTime(value: string): Date | undefined {
  const match = DATE_TIME_PATTERN.exec(value);
  if (!match) return undefined;
  const [year, month, day, hour, minute, second] = match.slice(1).map(Number) as [
    number, number, number, number, number, number,
  ];
  if (year < 1970 || month < 1 || month > 12 || day < 1 || hour > 23 || minute > 59 || second > 59) {
    return undefined;
  }
  const utc = Date.UTC(year, month - 1, day, hour, minute, second);
  const check = new Date(utc);
  // Date.UTC rolls 30 February over into March; a real date survives the round trip.
  if (check.getUTCMonth() !== month - 1 || check.getUTCDate() !== day) return undefined;
  return new Date(utc - JAKARTA_OFFSET_MS);
}

/** Largest amount we accept: far above any real order, and exactly representable as a number. */
export const MAX_RUPIAH = 999_999_999_999;

/** Digits of a positive whole number of rupiah, no sign, no leading zero, at most 12 digits. */
export const RUPIAH_PATTERN = /^[1-9]\d{0,11}$/;

/** Digits of a fee: like an amount, but zero is allowed. */
export const FEE_PATTERN = /^(0|[1-9]\d{0,11})$/;

/** True when the string is a fee: a whole number of rupiah, zero or more. */
export function isFeeAmount(value: string): boolean {
  return FEE_PATTERN.test(value);
}

/** True when the string is a positive whole number of rupiah without sign, spaces or leading zeros. */
export function isRupiahAmount(value: string): boolean {
  return RUPIAH_PATTERN.test(value);
}

/**
 * The integer amount of a wire amount (`"150000"` -> 150000), or `undefined` when the string is not
 * a positive whole number of rupiah within {@link MAX_RUPIAH}.
 */
export function parseRupiah(value: string): number | undefined {
  return isRupiahAmount(value) ? Number(value) : undefined;
}

/** The wire form of an integer amount (150000 -> `"150000"`). */
export function toRupiahString(amount: number): string {
  if (!Number.isSafeInteger(amount) || amount < 0 || amount > MAX_RUPIAH) {
    throw new RangeError(`amount must be a whole number of rupiah from 0 to ${MAX_RUPIAH}, got ${amount}`);
  }
  return String(amount);
}

/**
 * Display form as Indonesians write it: `Rp 150.000` (dot as thousands separator, no decimals).
 * Hand-written rather than `Intl` so that server, browser and tests print the same bytes.
 */
export function formatRupiah(amount: number | string): string {
  const value = typeof amount === 'string' ? Number(amount) : amount;
  if (!Number.isSafeInteger(value)) throw new RangeError(`not a whole number of rupiah: ${String(amount)}`);
  const digits = String(Math.abs(value)).replace(/\B(?=(\d{3})+(?!\d))/g, '.');
  return `${value < 0 ? '-' : ''}Rp ${digits}`;
}
