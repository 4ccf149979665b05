/**
 * Which of the page's languages a request gets, and how times read in it: the locale codes, the
 * remembered choice's cookie, Accept-Language and the Jakarta clock. The words are in `i18n.ts`.
 */

export const LOCALES = ['en', 'id'] as const;
export type Locale = (typeof LOCALES)[number];

export function isLocale(value: unknown): value is Locale {
  return value === 'en' || value === 'id';
}

/** Cookie that remembers a language picked on the page. It grants nothing, so it carries no authority. */
export const LOCALE_COOKIE = 'pb_lang';

/**
 * Our locale for a BCP 47 tag by its primary subtag, any case: `id`, `id-ID`, `in` (the old code
 * for Indonesian) are Indonesian, `en`, `en-GB` English; anything else is none of ours.
 */
export function localeOfTag(tag: string): Locale | undefined {
  const primary = tag.trim().toLowerCase().split(/[-_]/)[0];
  if (primary === 'id' || primary === 'in') return 'id';
  if (primary === 'en') return 'en';
  return undefined;
}

/** Locale of an Accept-Language header, by quality then order. */
export function localeFromAcceptLanguage(header: string | undefined): Locale | undefined {
  if (!header) return undefined;
  const ranked = header
    .split(',')
    .map((part, index) => {
      const [tag = '', ...params] = part.trim().split(';');
      const q = params.map((p) => p.trim()).find((p) => p.startsWith('q='));
      const quality = q === undefined ? 1 : Number(q.slice(2));
      return { tag, quality: Number.isFinite(quality) ? quality : 0, index };
    })
    .filter((entry) => entry.quality > 0)
    .sort((a, b) => b.quality - a.quality || a.index - b.index);
  for (const { tag } of ranked) {
    const locale = localeOfTag(tag);
    if (locale) return locale;
  }
  return undefined;
}

export interface LocaleSources {
  /** `lang` query parameter: an explicit choice on the page. */
  readonly query: unknown;
  /** The remembered choice. */
  readonly cookie: string | undefined;
  readonly acceptLanguage: string | undefined;
  readonly fallback: Locale;
}

/** Explicit choice, then the remembered one, then the browser's languages, then the default. */
export function negotiateLocale(sources: LocaleSources): Locale {
  if (isLocale(sources.query)) return sources.query;
  if (isLocale(sources.cookie)) return sources.cookie;
  return localeFromAcceptLanguage(sources.acceptLanguage) ?? sources.fallback;
}

/** One formatter per locale, built on first use: building an Intl.DateTimeFormat is costly. */
const jakartaFormats = new Map<Locale, Intl.DateTimeFormat>();

function jakartaFormat(locale: Locale): Intl.DateTimeFormat {
  let format = jakartaFormats.get(locale);
  if (!format) {
    format = new Intl.DateTimeFormat(locale === 'id' ? 'id-ID' : 'en-GB', {
      timeZone: 'Asia/Jakarta',
      day: 'numeric',
      month: 'short',
      year: 'numeric',
      hour: '2-digit',
      minute: '2-digit',
      hourCycle: 'h23',
    });
    jakartaFormats.set(locale, format);
  }
  return format;
}

/** `22 Nov 2026, 19:30 WIB`: times are shown in Jakarta time, as on the bank's side. */
export function formatJakartaTime(epochMs: number, locale: Locale): string {
  return `${jakartaFormat(locale).format(new Date(epochMs))} WIB`;
}
