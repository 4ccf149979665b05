/// <reference lib="dom" />
/**
 * After payment: counts down visibly, then takes the customer back to the merchant's
 * `redirectUrl`. The link is on the page anyway; "Stay on this page" stops the countdown.
 */

export function startAutoReturn(box: HTMLElement | null): void {
  if (!box) return;
  const target = box.dataset.redirectUrl ?? '';
  let url: URL;
  try {
    url = new URL(target);
  } catch {
    return;
  }
  // The server only renders http(s) URLs; check again so nothing else is ever navigated to.
  if (url.protocol !== 'https:' && url.protocol !== 'http:') return;
  const seconds = box.querySelector<HTMLElement>('.seconds');
  let left = Math.max(0, Math.floor(Number(box.dataset.delaySeconds ?? 5)));
  box.hidden = false;
  let handle: number | undefined;

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
