/**
 * English and Indonesian strings, and how an element finds its locale: the `locale` attribute,
 * else the nearest `[lang]` ancestor, else `<html lang>`. Both languages ship in the script-tag
 * file, so switching needs no network. `<pay-va>` adds its own strings (see its `strings`).
 */

export type Locale = 'en' | 'id';

/** A table of strings per locale. */
export type Strings<K extends string> = Record<Locale, Record<K, string>>;

/** Strings of `<pay-button>`, and the outcome messages both elements say. */
export const strings: Strings<
  'pay' | 'opening' | 'open' | 'blocked' | 'checking' | 'paid' | 'pending' | 'expired' | 'failed' | 'cancelled' | 'error'
> = {
  en: {
    pay: 'Pay',
    opening: 'Opening the payment page…',
    open: 'Pay in the new window.',
    blocked: 'Pop-up blocked. Opening it here…',
    checking: 'Checking the payment…',
    paid: 'Paid. Thank you!',
    pending: 'Awaiting payment.',
    expired: 'Payment expired.',
    failed: 'Payment failed.',
    cancelled: 'Payment cancelled.',
    error: 'Something went wrong. Try again.',
  },
  id: {
    pay: 'Bayar',
    opening: 'Membuka halaman pembayaran…',
    open: 'Bayar di jendela baru.',
    blocked: 'Pop-up diblokir. Membukanya di sini…',
    checking: 'Memeriksa pembayaran…',
    paid: 'Lunas. Terima kasih!',
    pending: 'Menunggu pembayaran.',
    expired: 'Waktu pembayaran habis.',
    failed: 'Pembayaran gagal.',
    cancelled: 'Pembayaran dibatalkan.',
    error: 'Terjadi kesalahan. Coba lagi.',
  },
};

export type MessageKey = keyof (typeof strings)['en'];

/**
 * The locale of `el`: its `locale` attribute, else the nearest `[lang]` (itself included), else
 * `<html lang>`. `id`, `id-ID` and the legacy `in` mean Indonesian; anything else is English.
 */
export function localeOf(el: Element, explicit?: string | null): Locale {
  const tag = explicit || (el.closest('[lang]') as HTMLElement | null)?.lang || document.documentElement.lang;
  return /^(id|in)\b/i.test(tag) ? 'id' : 'en';
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
