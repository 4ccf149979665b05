/**
 * English and Indonesian strings, and how an element finds its locale: the `locale` attribute,
 * else the nearest `[lang]` ancestor, else `<html lang>`, else the browser's languages. Both languages ship in the script-tag
 * file, so switching needs no network. `<pay-va>` adds its own strings (see its `strings`).
 */

export type Locale = 'en' | 'id';

/** A table of strings per locale. */
export type Strings<K extends string> = Record<Locale, Record<K, string>>;

export type MessageKey =
  'pay' | 'instructions' | 'transferTo' | 'payBy' | 'opening' | 'slow' | 'open' | 'blocked' | 'checking' | 'paid' | 'pending' | 'unconfirmed' | 'expired' | 'failed' | 'cancelled' | 'error' | 'unreachable' | 'busy' | 'origin';

/** Strings of `<pay-button>`, and the outcome messages both elements say. */
export const strings: Strings<MessageKey> = {
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
  },
  id: {
    pay: 'Bayar',
    instructions: 'Lihat petunjuk pembayaran',
    transferTo: 'Transfer {total} ke virtual account {bank} {code} sebelum {time}.',
    payBy: 'Bayar {total} sebelum {time}.',
    opening: 'Membuka halaman pembayaran…',
    slow: 'Masih menghubungkan ke layanan pembayaran…',
    open: 'Silakan bayar di jendela baru.',
    blocked: 'Pop-up diblokir. Membuka halaman pembayaran di sini…',
    checking: 'Memeriksa pembayaran…',
    paid: 'Pembayaran berhasil. Terima kasih!',
    pending: 'Menunggu pembayaran Anda. Halaman ini diperbarui setelah pembayaran masuk.',
    unconfirmed: 'Pembayaran belum terkonfirmasi. Halaman ini diperbarui setelah terkonfirmasi.',
    expired: 'Batas waktu pembayaran sudah lewat. Tidak ada dana yang ditarik.',
    failed: 'Pembayaran tidak berhasil. Tidak ada dana yang ditarik.',
    cancelled: 'Pembayaran belum dimulai. Tidak ada dana yang ditarik.',
    error: 'Terjadi kendala. Tidak ada dana yang ditarik. Silakan coba lagi.',
    unreachable: 'Layanan pembayaran tidak dapat dihubungi. Tidak ada dana yang ditarik. Silakan coba lagi.',
    busy: 'Layanan pembayaran sedang sibuk. Tidak ada dana yang ditarik. Silakan coba lagi dalam satu menit.',
    origin: 'Pembayaran tidak diizinkan di halaman ini. Tidak ada dana yang ditarik.',
  },
};

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
