/// <reference lib="dom" />
/**
 * The dashboard's one script (bundled by `scripts/build-page-assets.ts`): an order page watches
 * its notifications and reloads when one is added, attempted or settled, so a payment made from
 * the CLI or a resend shows up without a manual refresh. Polls only while the page is visible;
 * the page works without it.
 */
import { deliveriesFingerprint, type DeliveryShape } from './fingerprint.ts';

const INTERVAL_MS = 1500;

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
      const body = (await response.json()) as { deliveries?: DeliveryShape[] };
      if (Array.isArray(body.deliveries) && deliveriesFingerprint(body.deliveries) !== shown) {
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
