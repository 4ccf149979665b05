/**
 * The popup's placeholder while the payment page loads, dressed once the attempt's chunk is here:
 * the script-tag file opens it with a line of text inside the click (see `openPaymentWindow`), and
 * this adds a ring in the shop's colour (the element's `--pay-button-bg`) turning above that line,
 * so a slow network shows the shop's page at work rather than a bare white page. Through the
 * CSSOM and Web Animations only, which a CSP without `'unsafe-inline'` styles still allows.
 */

/** Dresses `popup` when it is still this page's blank placeholder; anything else is left alone. */
export function dressPlaceholder(popup: Window | null, host: Element): void {
  try {
    const doc = popup?.document;
    if (!doc || popup!.location.href != 'about:blank' || doc.querySelector('[role=progressbar]')) return;
    const accent = getComputedStyle(host).getPropertyValue('--pay-button-bg').trim() || '#0b5fff';
    const ring = doc.createElement('div');
    // A busy indicator with no value: what a screen reader says is the line of text below it.
    ring.setAttribute('role', 'progressbar');
    ring.setAttribute('aria-label', doc.title);
    ring.style.cssText = `width:2.5em;height:2.5em;margin:30vh auto 1em;box-sizing:border-box;border:.3em solid #d9dde3;border-top-color:${accent};border-radius:50%`;
    ring.animate?.([{ transform: 'rotate(0turn)' }, { transform: 'rotate(1turn)' }], { duration: 900, iterations: Infinity });
    doc.body.style.lineHeight = '1.4';
    doc.body.prepend(ring);
  } catch {
    // Another origin already (the payment page came first), or a window that cannot be written.
  }
}
