/**
 * The shop's own JSON (`/api/orders` and its event stream: customers' orders and amounts) answers
 * the shop's own pages only, on every method, GET included (issue 22). A page on a DNS-rebinding
 * name (`evil.example` re-pointed at this server) sends a `Host` and an `Origin` that agree and a
 * browser calls it same-origin, so the shop's origin comes from its configuration (`publicUrl`),
 * never from the request:
 * - `Host` must be the shop's (a loopback shop also answers to the loopback's other names);
 * - `Sec-Fetch-Site`, when sent, must be `same-origin` (or `none`: a person typing the URL);
 * - `Origin`, when sent, must be one of the shop's origins.
 * A tool sends neither header and passes on `Host` alone.
 */
import type { RequestHandler } from 'express';

const LOOPBACK_NAMES = ['127.0.0.1', 'localhost', '[::1]'];

/** The origins the shop is served at: its public URL's, with the loopback's other names for a loopback URL. */
export function shopOrigins(publicUrl: string): readonly string[] {
  const url = new URL(publicUrl);
  if (!LOOPBACK_NAMES.includes(url.hostname)) return [url.origin];
  return LOOPBACK_NAMES.map((name) => `${url.protocol}//${name}${url.port ? `:${url.port}` : ''}`);
}

export interface Provenance {
  readonly host: string | undefined;
  readonly origin: string | undefined;
  readonly secFetchSite: string | undefined;
}

/** Whether a request comes from the shop's own pages (or a tool): pure, table-tested. */
export function isOwnRequest(request: Provenance, origins: readonly string[]): boolean {
  const host = request.host?.toLowerCase();
  if (host === undefined || !origins.some((origin) => new URL(origin).host === host)) return false;
  if (request.secFetchSite !== undefined && request.secFetchSite !== 'same-origin' && request.secFetchSite !== 'none') return false;
  return request.origin === undefined || origins.includes(request.origin);
}

const first = (value: string | string[] | undefined) => (Array.isArray(value) ? value[0] : value);

/** 403 for a request that does not come from the shop's own pages. */
export function ownOriginOnly(publicUrl: string): RequestHandler {
  const origins = shopOrigins(publicUrl);
  return (request, response, next) => {
    const provenance = { host: request.headers.host, origin: first(request.headers.origin), secFetchSite: first(request.headers['sec-fetch-site']) };
    if (isOwnRequest(provenance, origins)) return next();
    response.status(403).set('Cache-Control', 'no-store').json({ error: 'this address serves the shop\'s own pages only' });
  };
}
