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

/**
 * What a preflight may send: the contract's methods and headers (a refused origin gets these too,
 * never cached), and the trace context a traced page forwards (`traceparent`, `tracestate`).
 */
function setPreflight(headers: EdgeHeaders): void {
  headers.set('Access-Control-Allow-Methods', 'GET, POST');
  headers.set('Access-Control-Allow-Headers', `Content-Type, ${STATUS_TOKEN_HEADER}, ${EARLIER_STATUS_TOKEN_HEADER}, traceparent, tracestate`);
}

function setCors(headers: EdgeHeaders, origin: string): void {
  headers.set('Access-Control-Allow-Origin', origin);
  setPreflight(headers);
  headers.set('Access-Control-Expose-Headers', 'Idempotent-Replayed, Retry-After, RateLimit, RateLimit-Policy');
  headers.set('Access-Control-Max-Age', '600');
}

/**
 * The merchant's fix for a refused origin, as the terminal says it (a pure decision, table-tested):
 * a page on the host this server was reached at means `publicUrl` names another address (a moved
 * `PORT`, a forgotten `PUBLIC_URL`); any other page is another site, which `allowedOrigins` lets in
 * if it is the shop's. Both are said as "if it is yours": any site can send a refused request.
 */
export function originAdvice(refused: string, reachedAt: string, publicUrl: URL, allowed: readonly string[]): string {
  const others = allowed.filter((origin) => origin !== publicUrl.origin);
  const addIt = `allowedOrigins: [${[...others, refused].map((origin) => `'${origin}'`).join(', ')}]`;
  const head = `refused a request from a page on ${refused}: allowed origins are ${allowed.join(', ')}.`;
  const sameHost = URL.canParse(reachedAt) && new URL(reachedAt).host === new URL(refused).host;
  return sameHost
    ? `${head} This server was reached at ${refused} but publicUrl is ${publicUrl.origin}: if that page is the shop's, set publicUrl: '${refused}' (PUBLIC_URL in the examples). If not, ignore this: any site can send such a request.`
    : `${head} If pages on ${refused} are the shop's, add it: ${addIt}. If not, ignore this: any site can send such a request.`;
}

/**
 * Refuse a browser request from another site (by throwing `origin_not_allowed`). A request with
 * `Origin` must come from an allowed origin; one without it (same-origin GET) must not be marked
 * cross-site by `Sec-Fetch-Site`. Requests with neither header come from non-browser clients,
 * which CSRF cannot use. Sets `Vary` and CORS on `headers`; answers a preflight (`OPTIONS`) with
 * its `204`, and gives `undefined` for a request that may go on.
 *
 * A refused page that has an origin may read the refusal itself, nothing else: its preflight is
 * answered (the browser then sends the request, which is refused here before any route or limit,
 * as a simple request from any site always was) and the `403` carries `Access-Control-Allow-Origin`
 * with no exposed headers, so `<pay-button>` can tell the customer the truth instead of "cannot be
 * reached". The refusal's body names no allowed origin (those are for the merchant's log).
 */
export function originGuard(context: GuardDeps): (request: CoreRequest, headers: EdgeHeaders) => Answer | undefined {
  const origins = [...context.options.browserOrigins];
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
          context.events.emit('warning', { code: 'origin_not_allowed', message: originAdvice(named, request.url, context.options.publicUrl, origins) });
        }
        if (named) {
          headers.set('Access-Control-Allow-Origin', named);
          if (request.method === 'OPTIONS') {
            setPreflight(headers);
            return answer(204, null);
          }
        }
        throw new PayButtonError('origin_not_allowed', `This shop's payments are not allowed from ${named ?? (origin === 'null' ? 'an opaque origin' : 'this origin')}; its server log names the setting to change.`);
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
