/**
 * zod schemas of everything the page reads from a request. A value that fails gets a 400 page
 * naming the field; fields that only tune the display (`lang`, `notice`) are dropped when invalid
 * rather than refused, so a stale or hand-edited link still shows the order.
 */
import { methodOrAliasField, platOrderNumField } from '@tombolbayar/protocol';
import { z } from 'zod';
import { LOCALES, localeOfTag } from './i18n.ts';

/**
 * A platform order number as it appears in a page URL: the protocol's field rule, and characters
 * that need no escaping in a URL (the gateway issues them; anything else is not ours).
 */
export const pagePlatOrderNum = platOrderNumField.regex(/^[A-Za-z0-9._~-]+$/, {
  error: 'must be a platform order number (letters, digits, and . _ ~ -)',
});

const NOTICES = ['not-found', 'not-pending', 'method-already-chosen', 'method-not-allowed', 'method-locked', 'method-changed', 'shop-unreachable'] as const;

/**
 * `lang`: `en` or `id`, also as a regional tag (`id-ID`, `en-GB`, `in`), since a shop passes its
 * page's `lang` attribute as it is. Anything else is dropped (the other sources decide).
 */
const langParam = z
  .preprocess((value) => (typeof value === 'string' ? localeOfTag(value) : value), z.enum(LOCALES))
  .optional()
  .catch(undefined);

/** The language the customer is reading, carried by the page's forms so it survives the redirect. */
const formLang = langParam;

export const pageQuerySchema = z.object({
  orderNum: pagePlatOrderNum,
  lang: langParam,
  notice: z.enum(NOTICES).optional().catch(undefined),
});

export const statusQuerySchema = z.object({ orderNum: pagePlatOrderNum });

/** `method`: a canonical code, or its alias (`BCA`), normalised to the code. */
export const chooseMethodBodySchema = z.object({ orderNum: pagePlatOrderNum, method: methodOrAliasField, lang: formLang });

/** `method`: the method the customer's page shows, which they want to give up for another. */
export const changeMethodBodySchema = chooseMethodBodySchema;

export const sandboxBodySchema = z.object({
  orderNum: pagePlatOrderNum,
  action: z.enum(['pay', 'expire', 'fail'], { error: 'must be one of pay, expire, fail' }),
  lang: formLang,
});

/** `lang` (explicit choice) only; used where the request has no other query field. */
export const langQuerySchema = z.object({ lang: langParam });
