/**
 * Opening the payment window. The popup must be opened synchronously inside the click: Safari and
 * in-app browsers drop `window.open` called after an `await`. So a same-origin `about:blank`
 * placeholder opens at once (written with DOM calls: no inline script, nothing for a CSP to
 * block) and is navigated when the plug-in answers. `noopener` is not used: it makes some browsers
 * return `null`, and the plug-in's return page needs `window.opener` to report back.
 */

/**
 * In-app browsers of social and messaging apps (Facebook and Messenger: `FBAN`/`FBAV`, Instagram, LINE, WhatsApp,
 * TikTok (`TikTok`, or its `BytedanceWebview` on both platforms), Snapchat, Pinterest, LinkedIn, WeChat, KakaoTalk, X/Twitter) and Android WebViews:
 * popups there are blocked or open in a tab the customer cannot return from, so the element
 * redirects instead. Matched without regard to case (the tokens are distinctive enough).
 */
const IN_APP = /fba[nv]|instagram|\bline\/|whatsapp|tiktok|bytedance|snapchat|pinterest|linkedinapp|micromessenger|kakaotalk|twitter|; ?wv\)/i;

export function isInAppBrowser(userAgent: string): boolean {
  return IN_APP.test(userAgent);
}

/**
 * Opens the payment window inside the click, or returns `null` when the browser blocked it (some
 * blockers return a window that is already closed: that counts as blocked too). With `name` (the
 * window of an order this page opened before, `tombolbayar-<orderNum>`), a window of that name that
 * is still open (after a reload of the shop, say) is found and returned as it is, `existing`, so
 * one order never gets a second window; otherwise a new placeholder (480x720) says `text`.
 */
export function openPaymentWindow(text: string, lang: string, name = ''): { window: Window; existing: boolean } | null {
  let popup: Window | null = null;
  try {
    popup = open('', name, 'popup,width=480,height=720');
    if (popup && !popup.closed && shows(popup)) return { window: popup, existing: true };
    const doc = popup!.document;
    doc.documentElement.lang = lang;
    doc.title = doc.body.textContent = text;
    // A phone lays it out at its own width (readable text while the payment page loads).
    const meta = doc.createElement('meta');
    meta.name = 'viewport';
    meta.content = 'width=device-width,initial-scale=1';
    doc.head.append(meta);
    // Through the CSSOM, which a CSP without 'unsafe-inline' styles still allows.
    doc.body.style.cssText = 'font:1.2em/40vh system-ui;text-align:center';
  } catch {
    // Some embedded browsers throw instead of returning null; and a placeholder that cannot be
    // written (or a null window, which throws above) is still whatever `open` returned.
  }
  return popup && !popup.closed ? { window: popup, existing: false } : null;
}

/** Whether `popup` shows a page already (the payment page, of another origin, or the return page), rather than a fresh `about:blank`. */
function shows(popup: Window): boolean {
  try {
    return popup.location.href != 'about:blank';
  } catch {
    return true;
  }
}
