/**
 * Edge hygiene for the browser routes: a same-origin check (with CORS for the origins the merchant
 * allows), rate limiting per client IP, and the JSON error answer. The origin check is what stops
 * another site from creating orders in a visitor's name (CSRF); the rate limit stops a script from
 * filling the order table.
 */
import type { NextFunction, Request, RequestHandler, Response } from 'express';
import { databaseFault, retryAfterSeconds } from '@tombolbayar/store-kit';
import { ipKeyGenerator, rateLimit } from 'express-rate-limit';
import { PayButtonError, isPayButtonError } from '../errors.ts';
import type { PayButtonEvents } from '../events.ts';
import type { ResolvedOptions } from '../options.ts';
import { STATUS_TOKEN_HEADER } from '../ids.ts';

/** What the guards use: the configured origins, the rate limit, and the events for the unexpected. */
export interface GuardDeps {
  readonly options: Pick<ResolvedOptions, 'browserOrigins' | 'publicUrl' | 'rateLimit'>;
  readonly events: PayButtonEvents;
}

/** Distinct refused origins logged per router, so a flood of them cannot flood the log. */
const MAX_REPORTED_ORIGINS = 100;

/** True for a serialized origin (`https://shop.example`, `http://localhost:3000`), nothing else. */
function isOrigin(value: string): boolean {
  return URL.canParse(value) && new URL(value).origin === value;
}

function setCors(res: Response, origin: string): void {
  res.vary('Origin');
  res.set('Access-Control-Allow-Origin', origin);
  res.set('Access-Control-Allow-Methods', 'GET, POST');
  res.set('Access-Control-Allow-Headers', `Content-Type, ${STATUS_TOKEN_HEADER}`);
  res.set('Access-Control-Expose-Headers', 'Idempotent-Replayed, Retry-After, RateLimit, RateLimit-Policy');
  res.set('Access-Control-Max-Age', '600');
}

/**
 * Refuse a browser request from another site. A request with `Origin` must come from an allowed
 * origin; one without it (same-origin GET) must not be marked cross-site by `Sec-Fetch-Site`.
 * Requests with neither header come from non-browser clients, which CSRF cannot use.
 */
export function originGuard(context: GuardDeps): RequestHandler {
  const allowed = [...context.options.browserOrigins].join(', ');
  const reported = new Set<string>();
  return (req, res, next) => {
    const origin = req.get('origin');
    res.vary('Origin');
    if (origin !== undefined) {
      if (!context.options.browserOrigins.has(origin)) {
        const named = isOrigin(origin) ? origin : undefined;
        // Said once per origin in the merchant's log (a page on localhost instead of 127.0.0.1 is the usual cause).
        if (named && !reported.has(named) && reported.size < MAX_REPORTED_ORIGINS) {
          reported.add(named);
          context.events.emit('warning', { code: 'origin_not_allowed', message: `refused a request from a page on ${named}: allowed origins are ${allowed} (publicUrl and allowedOrigins)` });
        }
        next(new PayButtonError('origin_not_allowed', `Requests from ${named ?? (origin === 'null' ? 'an opaque origin' : 'this origin')} are not allowed (allowed: ${allowed}); add it to allowedOrigins if it is yours.`));
        return;
      }
      if (origin !== context.options.publicUrl.origin) setCors(res, origin);
    } else {
      const site = req.get('sec-fetch-site');
      if (site === 'cross-site' || site === 'same-site') {
        next(new PayButtonError('origin_not_allowed', 'Cross-site requests are not allowed.'));
        return;
      }
    }
    if (req.method === 'OPTIONS') {
      res.status(204).end();
      return;
    }
    next();
  };
}

/**
 * The limit on order creation, per client: the merchant's `key` (a session), else the IP address
 * (an IPv6 /56, as one customer's network), proxy-aware through Express's `trust proxy` setting.
 * Sized for customers sharing a carrier's address (see `DEFAULT_RATE_LIMIT`).
 */
export function createLimiter(context: GuardDeps): RequestHandler {
  const setting = context.options.rateLimit;
  if (setting === false) return (_req, _res, next) => next();
  const byIp = (req: Request) => `ip:${ipKeyGenerator(req.ip ?? '', 56)}`;
  return rateLimit({
    windowMs: setting.windowMs,
    limit: setting.limit,
    // A key of the merchant's is its own namespace: it can never land in an address's bucket.
    keyGenerator: setting.key ? (req) => (setting.key!(req) ? `key:${setting.key!(req)}` : byIp(req)) : byIp,
    standardHeaders: 'draft-8',
    legacyHeaders: false,
    handler: (_req, _res, next) => {
      next(new PayButtonError('rate_limited', 'Too many payment requests from this client; wait a minute and try again.'));
    },
  });
}

/** `405` with `Allow`, for a known path called with another method. */
export function methodNotAllowed(allow: string): RequestHandler {
  return (_req, res) => {
    res.set('Allow', allow).status(405).json({ error: { code: 'method_not_allowed', message: `Use ${allow}.`, retryable: false } });
  };
}

/** The router's own error handler: JSON, no stack, nothing secret; unexpected errors go to events. */
export function errorHandler(context: GuardDeps) {
  return (error: unknown, _req: Request, res: Response, next: NextFunction): void => {
    if (res.headersSent) {
      next(error);
      return;
    }
    let known: PayButtonError;
    if (isPayButtonError(error)) known = error;
    else {
      const status = (error as { status?: unknown; statusCode?: unknown }).status ?? (error as { statusCode?: unknown }).statusCode;
      if (status === 413) known = new PayButtonError('payload_too_large', 'The request body is too large.');
      else if (status === 400 && (error as { type?: unknown }).type === 'entity.parse.failed') {
        known = new PayButtonError('invalid_request', 'body: is not valid JSON', { issues: [{ field: 'body', message: 'is not valid JSON' }] });
      } else if (status === 400 && error instanceof URIError) {
        // The router could not percent-decode a path parameter: the only one is `:orderNum`, and
        // a malformed order number is answered like any unknown order (nothing to enumerate).
        known = new PayButtonError('not_found', 'No order with this number and token.');
      } else if (databaseFault(error)) {
        // The database failed under this request (a lost or silent connection, a timeout): the
        // same request is worth sending again in a moment.
        const fault = databaseFault(error)!;
        context.events.emit('warning', { code: 'database_fault', message: `the order store failed during a request (${fault})`, error });
        res.set('Retry-After', String(retryAfterSeconds(fault)));
        known = new PayButtonError('store_unavailable', 'The order store is not available right now; try again in a moment.', { cause: error });
      } else {
        context.events.emit('warning', { code: 'internal', message: 'unexpected error in a payButton() route', error });
        known = new PayButtonError('internal', 'Something went wrong; please try again.');
      }
    }
    if (known.code === 'rate_limited' && !res.get('Retry-After')) res.set('Retry-After', String(Math.ceil((context.options.rateLimit || { windowMs: 60_000 }).windowMs / 1000)));
    // Every retryable 503 says when to come back (store_unavailable, gateway_unavailable, overloaded).
    if (known.httpStatus === 503 && known.retryable && !res.get('Retry-After')) res.set('Retry-After', '5');
    res.set('Cache-Control', 'no-store').status(known.httpStatus).json(known.toJSON());
  };
}
