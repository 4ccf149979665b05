/// <reference lib="dom" />
/**
 * After payment: counts down visibly, then takes the customer back to the merchant's
 * `redirectUrl`. The link is on the page anyway; "Stay on this page" stops the countdown.
 *
 * Only once: a page reached again through the history (Back from the shop after the return) shows
 * the outcome and its link and sends nobody anywhere, whether the browser loads it again or
 * restores it from the back/forward cache. The return already happened; running it again would
 * land on the shop a second time, with nothing new to say.
 */

/** Whether this document was loaded by a Back or Forward. */
function fromHistory(): boolean {
  return (performance.getEntriesByType('navigation')[0] as PerformanceNavigationTiming | undefined)?.type === 'back_forward';
}

export function startAutoReturn(box: HTMLElement | null): void {
  if (!box) return;
  const target = box.dataset.redirectUrl ?? '';
  let url: URL;
  try {
    // The gateway's own way back (`/pay/leave?…`, which checks the shop answers first): relative.
    url = new URL(target, location.href);
  } catch {
    return;
  }
  // The server only renders http(s) URLs; check again so nothing else is ever navigated to.
  if (url.protocol !== 'https:' && url.protocol !== 'http:') return;
  if (fromHistory()) return;
  const seconds = box.querySelector<HTMLElement>('.seconds');
  let left = Math.max(0, Math.floor(Number(box.dataset.delaySeconds ?? 5)));
  box.hidden = false;
  let handle: number | undefined;
  addEventListener('pageshow', (event) => {
    if (!event.persisted) return;
    window.clearTimeout(handle);
    box.hidden = true;
  });

  function tick(): void {
    if (seconds) seconds.textContent = String(left);
    if (left <= 0) {
      window.location.assign(url.href);
      return;
    }
    left -= 1;
    handle = window.setTimeout(tick, 1000);
  }

  box.querySelector('button.stay')?.addEventListener('click', () => {
    if (handle !== undefined) window.clearTimeout(handle);
    box.hidden = true;
    document.getElementById('return-link')?.focus();
  });
  tick();
}
