/**
 * English and Indonesian strings, and how an element finds its locale: the `locale` attribute,
 * else the nearest `[lang]` ancestor, else `<html lang>`, else the browser's languages. English
 * ships in the script-tag file; Indonesian is a chunk of its own beside it (`strings-id.ts`),
 * fetched by the first element that speaks it (see `loadStrings`), so an English page never pays
 * its ~390 B gzip. `<pay-va>` adds its own strings (see its `strings`).
 */

export type Locale = 'en' | 'id';

/** A table of strings per locale. */
export type Strings<K extends string> = Record<Locale, Record<K, string>>;

export type MessageKey =
  'pay' | 'instructions' | 'transferTo' | 'payBy' | 'opening' | 'slow' | 'open' | 'blocked' | 'checking' | 'paid' | 'pending' | 'unconfirmed' | 'expired' | 'failed' | 'cancelled' | 'error' | 'unreachable' | 'busy' | 'origin' | 'paidWith' | 'paidTwice';

/** Strings of `<pay-button>`, and the outcome messages both elements say: `id` once loaded. */
export const strings: Partial<Strings<MessageKey>> & Pick<Strings<MessageKey>, 'en'> = {
  en: {
    pay: 'Pay',
    instructions: 'Show payment instructions',
    transferTo: 'Transfer {total} to {bank} virtual account {code} before {time}.',
    payBy: 'Pay {total} before {time}.',
    opening: 'Opening the payment page…',
    slow: 'Still connecting to the payment service…',
    open: 'Pay in the new window.',
    blocked: 'Pop-up blocked. Opening it here…',
    checking: 'Checking the payment…',
    paid: 'Paid. Thank you!',
    pending: 'Awaiting your payment. This page updates once it arrives.',
    unconfirmed: 'Payment not confirmed yet. This page updates once it is.',
    expired: 'The time to pay has run out. Nothing was charged.',
    failed: 'The payment did not go through. Nothing was charged.',
    cancelled: 'Payment not started. Nothing was charged.',
    error: 'Something went wrong. Nothing was charged. Try again.',
    unreachable: 'The payment service cannot be reached. Nothing was charged. Try again.',
    busy: 'The payment service is busy. Nothing was charged. Try again in a minute.',
    origin: 'Payments are not allowed on this page. Nothing was charged.',
    paidWith: 'Already paid with order {order}. Do not pay this one.',
    paidTwice: 'Paid. This was also paid with order {order}: the shop will refund one payment.',
  },
};

let loading: Promise<void> | undefined;

/**
 * Fetches the strings of `locale` when they are not here yet (Indonesian, the first time), from
 * the chunk beside the script-tag file; `undefined` when there is nothing to wait for. A chunk that
 * cannot be fetched (offline, a server that does not serve it) leaves English: an element always
 * renders, and says something.
 */
export function loadStrings(locale: Locale): Promise<void> | undefined {
  if (locale == 'en' || strings.id) return undefined;
  return (loading ??= import('./strings-id.ts').then(
    (m) => void (strings.id = m.id),
    () => {},
  ));
}

/**
 * The words for a failure, by its code (see `PayError`): what the customer can do about it, never
 * the code itself (that stays in the `pay-error` detail). A code not listed says `error`. One
 * table, so a new code is one line.
 */
export const errorWords: Record<string, MessageKey> = {
  network: 'unreachable',
  gateway_unavailable: 'unreachable',
  gateway_timeout: 'unreachable',
  gateway_unknown_outcome: 'unreachable',
  store_unavailable: 'unreachable',
  http_502: 'unreachable',
  http_504: 'unreachable',
  rate_limited: 'busy',
  overloaded: 'busy',
  http_429: 'busy',
  http_503: 'busy',
  // The plug-in refused this page's origin (and lets the page read that refusal): the shop must fix its settings, so no "try again".
  origin_not_allowed: 'origin',
};


/**
 * The locale of `el`: its `locale` attribute, else the nearest `[lang]` (itself included), else
 * `<html lang>`, else the first of the browser's languages (`navigator.languages`) that is English
 * or Indonesian: a page that says nothing speaks the customer's language. `id`, `id-ID` and the
 * legacy `in` mean Indonesian; anything else is English.
 */
export function localeOf(el: Element, explicit?: string | null): Locale {
  const tag = explicit || (el.closest('[lang]') as HTMLElement | null)?.lang || document.documentElement.lang || navigator.languages?.find((l) => /^(en|id|in)\b/i.test(l));
  return /^(id|in)\b/i.test(tag!) ? 'id' : 'en';
}

/** The connected elements (see `watchLang`); an element leaves the set when it is detached. */
export const watched = new Set<{ requestUpdate(): void }>();
let observer: MutationObserver | undefined;

/**
 * Re-render `el` whenever a `lang` attribute in the document changes, so a page that switches
 * language (on `<html>` or on an ancestor) switches the element too. One observer serves all; it
 * is made for the first element and stays (with no element left it has nobody to tell, and a
 * `lang` change is rare enough that watching on costs nothing worth a second code path).
 * Observing again with the same options changes nothing.
 */
export function watchLang(el: { requestUpdate(): void }): void {
  watched.add(el);
  (observer ??= new MutationObserver(() => watched.forEach((w) => w.requestUpdate()))).observe(document.documentElement, {
    attributes: true,
    attributeFilter: ['lang'],
    subtree: true,
  });
}
