/// <reference lib="dom" />
/**
 * The hosted page's one script (bundled by esbuild, served from the page router). Everything it
 * does is an enhancement of a page that already works without it.
 */
import { setUpCopyButtons } from './copy.ts';
import { startCountdown } from './countdown.ts';
import { startAutoReturn } from './redirect.ts';
import { watchStatus, type StatusWatcher } from './status.ts';

/** A second submit of the same form (double click, impatient Enter) is dropped. */
function guardDoubleSubmit(root: ParentNode): void {
  for (const form of root.querySelectorAll<HTMLFormElement>('form.js-once')) {
    form.addEventListener('submit', (event) => {
      if (form.dataset.submitting) {
        event.preventDefault();
        return;
      }
      form.dataset.submitting = 'true';
      (event.submitter as HTMLElement | null)?.setAttribute('aria-busy', 'true');
    });
  }
  // Back from the back/forward cache, the forms must work again.
  window.addEventListener('pageshow', () => {
    for (const form of root.querySelectorAll<HTMLFormElement>('form.js-once')) delete form.dataset.submitting;
  });
}

/**
 * After an action the page came back at `#id` (see `act` in routes.ts): focus goes there, so a
 * keyboard or screen-reader user goes on from the next thing to do (the instructions after
 * choosing a method), not from the top of the page. Focused once; the address keeps no fragment.
 */
function focusNext(): void {
  const target = location.hash.length > 1 ? document.getElementById(decodeURIComponent(location.hash.slice(1))) : null;
  if (!target) return;
  history.replaceState(history.state, '', location.pathname + location.search);
  target.tabIndex = -1;
  target.focus();
}

function main(): void {
  document.documentElement.classList.add('js');
  for (const element of document.querySelectorAll<HTMLElement>('.js-only')) element.hidden = false;
  const mainElement = document.querySelector<HTMLElement>('main');
  const status = mainElement?.dataset.status;
  const statusUrl = mainElement?.dataset.statusUrl;

  let watcher: StatusWatcher | undefined;
  const timer = document.querySelector<HTMLTimeElement>('time.timer');
  const countdown = timer ? startCountdown(timer, () => watcher?.checkNow()) : undefined;
  if (status === 'PENDING' && statusUrl) {
    watcher = watchStatus({
      url: statusUrl,
      status,
      method: mainElement?.dataset.method || null,
      onRemaining: (remaining) => countdown?.resync(remaining),
    });
  }
  setUpCopyButtons(document);
  guardDoubleSubmit(document);
  startAutoReturn(document.querySelector<HTMLElement>('.auto-return'));
  focusNext();
}

main();
