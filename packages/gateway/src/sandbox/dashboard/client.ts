/// <reference lib="dom" />
/**
 * The dashboard's one script (bundled by `scripts/build-page-assets.ts`): a page that names what it
 * watches (`<main data-watch data-fingerprint>`) reloads when that changed, so a payment made from
 * the CLI or a resend shows up without a manual refresh. An order page watches its notifications
 * (added, attempted, settled: it computes their fingerprint from `GET /sandbox/deliveries`); the
 * front page watches the gateway's figures (`GET /sandbox/dashboard/figures` says their
 * fingerprint). Polls only while the page is visible, and never reloads under a person typing in
 * one of its forms; the page works without it.
 */
import { deliveriesFingerprint, type DeliveryShape } from './fingerprint.ts';

const INTERVAL_MS = 1500;

/** The fingerprint of what the watched URL answered, however it says it. */
function fingerprintOf(body: { fingerprint?: unknown; deliveries?: unknown }): string | undefined {
  if (typeof body.fingerprint === 'string') return body.fingerprint;
  if (Array.isArray(body.deliveries)) return deliveriesFingerprint(body.deliveries as DeliveryShape[]);
  return undefined;
}

/** Whether a form field differs from what the page rendered. */
function changed(field: Element): boolean {
  if (field instanceof HTMLSelectElement) return field.selectedIndex !== Math.max(0, [...field.options].findIndex((option) => option.defaultSelected));
  if (field instanceof HTMLInputElement && (field.type === 'checkbox' || field.type === 'radio')) return field.checked !== field.defaultChecked;
  return field instanceof HTMLInputElement || field instanceof HTMLTextAreaElement ? field.value !== field.defaultValue : false;
}

/** A field in focus or changed: a reload would throw away what the person is typing or choosing. */
function personIsTyping(): boolean {
  if (document.activeElement?.matches('input, select, textarea')) return true;
  return [...document.querySelectorAll('input:not([type=hidden]), select, textarea')].some(changed);
}

function watch(main: HTMLElement): void {
  const url = main.dataset.watch;
  const shown = main.dataset.fingerprint;
  if (!url || shown === undefined) return;
  let busy = false;
  const check = async () => {
    if (busy || document.visibilityState !== 'visible') return;
    busy = true;
    try {
      const response = await fetch(url, { headers: { accept: 'application/json' }, cache: 'no-store' });
      if (!response.ok) return;
      const current = fingerprintOf((await response.json()) as { fingerprint?: unknown; deliveries?: unknown });
      if (current !== undefined && current !== shown && !personIsTyping()) {
        window.clearInterval(timer);
        window.location.reload();
      }
    } catch {
      // The gateway stopped or the network blinked: try again at the next tick.
    } finally {
      busy = false;
    }
  };
  const timer = window.setInterval(() => void check(), INTERVAL_MS);
}

const main = document.querySelector<HTMLElement>('main[data-watch]');
if (main) watch(main);
