/**
 * The order-creation check of `notifyUrl` / `redirectUrl`: what can be told from the URL alone.
 * The connect-time check in `resolve.ts` is the one that holds against DNS; this one turns the
 * obvious mistakes and attacks into a clear `FAIL` when the order is created instead of a dead
 * notification a day later.
 */
import { classifyAddress, describeRefusal } from './address-policy.ts';
import { forbiddenHostName, literalAddressOf } from './host-policy.ts';

export type CallbackUrlCheck = { ok: true } | { ok: false; reason: string };

/**
 * Every mode: an absolute `http:`/`https:` URL without user name or password (credentials in a
 * URL leak into logs, and `https://bank.example@evil.example/` is a phishing shape).
 * Production mode also: `https:` only, no literal IP in a forbidden range, no special-use or
 * single-label host name. The sandbox allows `http:` and loopback so a merchant's laptop works.
 */
export function checkCallbackUrl(url: string, options: { production: boolean }): CallbackUrlCheck {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return { ok: false, reason: 'must be an absolute URL' };
  }
  if (parsed.protocol !== 'https:' && parsed.protocol !== 'http:') {
    return { ok: false, reason: 'must use http or https' };
  }
  if (parsed.username !== '' || parsed.password !== '') {
    return { ok: false, reason: 'must not contain a user name or password' };
  }
  if (!options.production) return { ok: true };
  if (parsed.protocol !== 'https:') return { ok: false, reason: 'must use https in production mode' };
  const literal = literalAddressOf(parsed.hostname);
  if (literal !== null) {
    const verdict = classifyAddress(literal);
    return verdict.allowed ? { ok: true } : { ok: false, reason: `must not point to ${describeRefusal(verdict)}` };
  }
  const nameProblem = forbiddenHostName(parsed.hostname);
  return nameProblem === null ? { ok: true } : { ok: false, reason: nameProblem };
}
