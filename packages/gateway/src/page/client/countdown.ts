/// <reference lib="dom" />
/**
 * Ticks the expiry countdown once a second. Time left comes from the server (the gateway's clock,
 * which the sandbox can move); the browser only measures elapsed time, with its monotonic clock.
 */
import { formatCountdown, isoDuration } from '../shared/countdown.ts';

export interface Countdown {
  /** Re-anchors on the server's latest figure (it polls it with the status). */
  resync(remainingMs: number): void;
}

export function startCountdown(timer: HTMLTimeElement, onZero: () => void): Countdown {
  const days = { one: timer.dataset.day ?? 'day', other: timer.dataset.days ?? 'days' };
  let deadline = performance.now() + Number(timer.dataset.remainingMs ?? 0);
  let handle: number | undefined;
  let fired = false;

  function tick(): void {
    const remaining = deadline - performance.now();
    const text = formatCountdown(remaining, days);
    if (timer.textContent !== text) timer.textContent = text;
    timer.dateTime = isoDuration(remaining);
    if (remaining <= 0) {
      if (!fired) {
        fired = true;
        onZero();
      }
      return;
    }
    // Wake just after the next whole second of remaining time.
    handle = window.setTimeout(tick, (remaining % 1000) + 20);
  }

  tick();
  return {
    resync(remainingMs) {
      deadline = performance.now() + remainingMs;
      if (handle !== undefined) window.clearTimeout(handle);
      fired = remainingMs > 0 ? false : fired;
      tick();
    },
  };
}
