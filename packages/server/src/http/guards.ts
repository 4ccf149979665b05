/**
 * Edge hygiene for the browser routes: a same-origin check (with CORS for the origins the merchant
 * allows) and the preflight answer. The origin check is what stops another site from creating
 * orders in a visitor's name (CSRF). Rate limiting is `rate-limit.ts`.
 */
import { PayButtonError } from '../errors.ts';
import type { PayButtonEvents } from '../events.ts';
import { EARLIER_STATUS_TOKEN_HEADER, STATUS_TOKEN_HEADER } from '../ids.ts';
import type { ResolvedOptions } from '../options.ts';
import type { CoreRequest } from './context.ts';
import { answer, type Answer, type EdgeHeaders } from './answer.ts';

/** What the guards use: the configured origins, and the events for the refused. */
export interface GuardDeps {
  readonly options: Pick<ResolvedOptions, 'browserOrigins' | 'publicUrl' | 'rateLimit'>;
  readonly events: PayButtonEvents;
}

/** Distinct refused origins logged per handler, so a flood of them cannot flood the log. */
const MAX_REPORTED_ORIGINS = 100;

/** True for a serialized origin (`https://shop.example`, `http://localhost:3000`), nothing else. */
function isOrigin(value: string): boolean {
  return URL.canParse(value) && new URL(value).origin === value;
}

function setCors(headers: EdgeHeaders, origin: string): void {
  headers.set('Access-Control-Allow-Origin', origin);
  headers.set('Access-Control-Allow-Methods', 'GET, POST');
  headers.set('Access-Control-Allow-Headers', `Content-Type, ${STATUS_TOKEN_HEADER}, ${EARLIER_STATUS_TOKEN_HEADER}`);
  headers.set('Access-Control-Expose-Headers', 'Idempotent-Replayed, Retry-After, RateLimit, RateLimit-Policy');
  headers.set('Access-Control-Max-Age', '600');
}

/**
 * Refuse a browser request from another site (by throwing `origin_not_allowed`). A request with
 * `Origin` must come from an allowed origin; one without it (same-origin GET) must not be marked
 * cross-site by `Sec-Fetch-Site`. Requests with neither header come from non-browser clients,
 * which CSRF cannot use. Sets `Vary` and CORS on `headers`; answers a preflight (`OPTIONS`) with
 * its `204`, and gives `undefined` for a request that may go on.
 */
export function originGuard(context: GuardDeps): (request: CoreRequest, headers: EdgeHeaders) => Answer | undefined {
  const allowed = [...context.options.browserOrigins].join(', ');
  const reported = new Set<string>();
  return (request, headers) => {
    const origin = request.headers.get('origin');
    headers.set('Vary', 'Origin');
    if (origin !== null) {
      if (!context.options.browserOrigins.has(origin)) {
        const named = isOrigin(origin) ? origin : undefined;
        // Said once per origin in the merchant's log (a page on localhost instead of 127.0.0.1 is the usual cause).
        if (named && !reported.has(named) && reported.size < MAX_REPORTED_ORIGINS) {
          reported.add(named);
          context.events.emit('warning', { code: 'origin_not_allowed', message: `refused a request from a page on ${named}: allowed origins are ${allowed} (publicUrl and allowedOrigins)` });
        }
        throw new PayButtonError('origin_not_allowed', `Requests from ${named ?? (origin === 'null' ? 'an opaque origin' : 'this origin')} are not allowed (allowed: ${allowed}); add it to allowedOrigins if it is yours.`);
      }
      if (origin !== context.options.publicUrl.origin) setCors(headers, origin);
    } else {
      const site = request.headers.get('sec-fetch-site');
      if (site === 'cross-site' || site === 'same-site') throw new PayButtonError('origin_not_allowed', 'Cross-site requests are not allowed.');
    }
    if (request.method === 'OPTIONS') return answer(204, null);
    return undefined;
  };
}
