/**
 * The URLs an order gives the gateway to call back: `notifyUrl` and the return page's
 * `redirectUrl` (with the order, its return token and the customer's language), and the base they
 * share, checked once at start-up.
 */
import { createHash } from 'node:crypto';
import { parseWith, urlField } from '@tombolbayar/protocol';
import { PayButtonError } from '../errors.ts';
import { ORDER_SUFFIX_CHARS } from '../ids.ts';
import type { ResolvedOptions } from '../options.ts';
import type { ReturnLocale } from '../routes/return-page.ts';

const RETURN_TOKEN_CHARS = 22;

/**
 * The short secret in the `redirectUrl` (`rt`): whoever follows the order's own return link may be
 * sent back to the page that started the payment; someone who only knows the orderNum lands on
 * the site's root. Derived from the status token, so it needs no column, and it does not reveal
 * the token to the gateway or to access logs (the token itself never travels in a URL).
 */
export function returnToken(statusToken: string): string {
  // `paybutton-return:` is a frozen hash domain, not a name: return URLs already issued carry tokens derived with it.
  return createHash('sha256').update(`paybutton-return:${statusToken}`, 'utf8').digest('base64url').slice(0, RETURN_TOKEN_CHARS);
}

/** The signed `redirectUrl` of an order: the return page, with the order, its return token and the customer's language. */
export function redirectUrlOf(base: string, orderNum: string, token: string, lang?: ReturnLocale | null): string {
  return `${base}/return?order=${orderNum}&rt=${token}${lang ? `&lang=${lang}` : ''}`;
}

/**
 * `publicUrl + mountPath`, the base of notifyUrl and redirectUrl, checked against the protocol's
 * URL rule with the longest orderNum and return token a redirectUrl can carry. `payButton()` runs
 * it once at start-up (`CreatorDeps.callbackBase`): a configuration the gateway would refuse fails
 * there, and no request checks its own URLs again.
 */
export function callbackBase(options: Pick<ResolvedOptions, 'publicUrl' | 'mountPath' | 'orderNumPrefix'>): string {
  const mount = options.mountPath;
  const base = `${options.publicUrl.href.replace(/\/+$/, '')}${mount === '/' ? '' : mount}`;
  const longestOrderNum = 'X'.repeat(options.orderNumPrefix.length + ORDER_SUFFIX_CHARS);
  const urls = { notifyUrl: `${base}/notify`, redirectUrl: redirectUrlOf(base, longestOrderNum, 'x'.repeat(RETURN_TOKEN_CHARS), 'id') };
  for (const [field, url] of Object.entries(urls)) {
    const checked = parseWith(urlField, url);
    if (!checked.ok) {
      const rule = checked.issues[0]?.message ?? 'is invalid';
      throw new PayButtonError('config_invalid', `invalid payButton() options: ${field}: ${rule} (check publicUrl and mountPath)`, { issues: [{ field, message: rule }] });
    }
  }
  return base;
}
