/**
 * Security headers of every response the page router sends. Set here, not through the core's
 * helmet configuration, so the page stays strict whatever the host app does.
 *
 * - No inline script or style at all: the page loads one script and one stylesheet from itself.
 * - `img-src data:` for the QR image, which is a PNG data URL.
 * - `form-action 'self'`: every form posts back to this router, which answers with a redirect to
 *   itself (POST-redirect-GET). The customer leaves for `redirectUrl` through a link or
 *   `location.assign`, which `form-action` does not govern.
 * - Trusted Types with no policy: any string assignment to `innerHTML` and friends throws, so the
 *   client script cannot build markup from data even by mistake.
 * - No `Cross-Origin-Opener-Policy: same-origin`: the page is often opened as a popup by
 *   `<pay-button>`, and the return page (on the merchant's origin, after `redirectUrl`) needs
 *   `window.opener` to tell the checkout page. COOP would sever it.
 */
import type { NextFunction, Request, Response } from 'express';

export const CONTENT_SECURITY_POLICY = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "connect-src 'self'",
  "form-action 'self'",
  "frame-ancestors 'none'",
  "base-uri 'none'",
  "require-trusted-types-for 'script'",
  "trusted-types 'none'",
].join('; ');

/** Header name -> value, applied to every response of the page router. */
export const SECURITY_HEADERS: Readonly<Record<string, string>> = Object.freeze({
  'Content-Security-Policy': CONTENT_SECURITY_POLICY,
  'X-Content-Type-Options': 'nosniff',
  'X-Frame-Options': 'DENY',
  // The page URL carries the platform order number; no site it links to needs it.
  'Referrer-Policy': 'no-referrer',
  'Cross-Origin-Resource-Policy': 'same-origin',
  'Permissions-Policy': 'camera=(), microphone=(), geolocation=(), payment=()',
});

export function securityHeaders(_req: Request, res: Response, next: NextFunction): void {
  for (const [name, value] of Object.entries(SECURITY_HEADERS)) res.setHeader(name, value);
  next();
}

export interface PostProvenance {
  /** `Sec-Fetch-Site` request header, if the browser sent one. */
  readonly secFetchSite: string | undefined;
  /** `Origin` request header, if any (`null` from a page with `Referrer-Policy: no-referrer`). */
  readonly origin: string | undefined;
  /** `Host` of the request as the app sees it. */
  readonly host: string | undefined;
  /**
   * The origins this gateway is served at, from its configuration and the socket the request
   * arrived on (`http/origins.ts`: `publicUrl`, the address it listens on, the address it was
   * reached at), never from the request's headers. A page on a DNS-rebinding name sends a `Host`
   * and an `Origin` that agree with each other, and its browser calls it same-origin: only these
   * tell them apart.
   */
  readonly ownOrigins: readonly string[];
}

/**
 * Whether a form POST may be acted on. The page's POSTs carry no credentials (no cookie grants
 * authority), so this is defence in depth against other sites driving an order's state:
 * - the request's `Host` must be one the gateway is served at (DNS rebinding);
 * - a browser that sends `Sec-Fetch-Site` must say `same-origin`;
 * - otherwise an `Origin` header, when present, must be one of the gateway's origins;
 * - a request with neither header does not come from a browser form (every current browser sends
 *   `Origin` on POST), so it is not a CSRF vector and is allowed.
 * With no origin known at all (no configuration and no socket address: never the case for a
 * request that came over a network), a browser's POST is refused: the `Host` never vouches for
 * itself.
 */
export function isSameOriginPost(request: PostProvenance): boolean {
  const host = request.host?.toLowerCase();
  const known = request.ownOrigins.length > 0;
  if (known && host !== undefined && !request.ownOrigins.some((origin) => new URL(origin).host === host)) return false;
  if (!known && (request.secFetchSite !== undefined || request.origin !== undefined)) return false;
  if (request.secFetchSite !== undefined) return request.secFetchSite === 'same-origin';
  if (request.origin === undefined) return true;
  return request.ownOrigins.includes(request.origin);
}

const LOOPBACK_NAMES = ['127.0.0.1', 'localhost', '[::1]'];

/**
 * The origins a gateway is reached at: `publicUrl`'s, and those of the addresses it is served at
 * (the URL `listen` bound, the address a request's socket arrived on: a proxy in front may pass
 * one as `Host`), with the loopback's other names for a loopback address (`localhost` and
 * `127.0.0.1` are the same server). Duplicates removed, `publicUrl`'s first.
 */
export function gatewayOrigins(publicUrl: string | undefined, ...served: ReadonlyArray<string | undefined>): readonly string[] {
  const origins = publicUrl ? [new URL(publicUrl).origin] : [];
  for (const address of served) {
    if (!address) continue;
    const url = new URL(address);
    if (!LOOPBACK_NAMES.includes(url.hostname)) origins.push(url.origin);
    else origins.push(...LOOPBACK_NAMES.map((name) => `${url.protocol}//${name}${url.port ? `:${url.port}` : ''}`));
  }
  return [...new Set(origins)];
}
