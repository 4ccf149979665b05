/**
 * The core's routes: which path and method reach which handler, behind which edge checks, matched
 * on the path after the mount prefix the way Express's router matched them (case-insensitive, a
 * trailing slash allowed, `:orderNum` percent-decoded). A path none of them serves gives
 * `undefined`: `fetch` answers it 404, the Express adapter passes it on with `next()`.
 */
import { PayButtonError } from '../errors.ts';
import type { RouteContext, RouteHandler, CoreRequest } from './context.ts';
import { methodNotAllowed } from './respond.ts';
import { answer, type Answer, type EdgeHeaders } from './answer.ts';
import type { RouteLabel } from '../observability/requests.ts';
import type { OrderKind } from '../store/schema.ts';

/** A path of the core and what it answers. */
export interface Route {
  /**
   * `/links`, `/orders/:orderNum`, `/pay-button-:chunk`: at most one parameter, a whole segment or
   * the rest of one after a literal start (`pay-button-attempt-io-1a2b.js` gives `chunk` `attempt-io-1a2b.js`).
   */
  readonly path: string;
  /** Handlers by method (`GET` also answers `HEAD`). */
  readonly methods: Readonly<Partial<Record<'GET' | 'POST', RouteHandler>>>;
  /**
   * A browser route: the origin check (and CORS) runs first, and answers `OPTIONS` (preflight).
   * `limited` adds the per-client rate limit to its `POST`.
   */
  readonly browser?: { readonly limited: boolean };
  /** Another method is `405` (else it is not this route's: `undefined`, like Express's fall-through). */
  readonly refuseOtherMethods?: boolean;
  /** The route as the request metrics name it. */
  readonly label: RouteLabel;
  /** A route whose `POST` creates an order of this kind (its refusals are `order.refused`). */
  readonly creates?: OrderKind;
}

/** What runs before a browser route's handler (`guards.ts`, `rate-limit.ts`). */
export interface Edge {
  readonly origin: (request: CoreRequest, headers: EdgeHeaders) => Answer | undefined;
  readonly limit: (context: RouteContext) => void;
}

interface Compiled {
  readonly route: Route;
  readonly segments: readonly string[];
  readonly allow: string;
}

/** `/orders/:orderNum` → `['orders', ':orderNum']`, the literal parts lower-cased for the comparison. */
const segmentsOf = (path: string) =>
  path.split('/').filter(Boolean).map((segment) => {
    const colon = segment.indexOf(':');
    return colon < 0 ? segment.toLowerCase() : segment.slice(0, colon).toLowerCase() + segment.slice(colon);
  });

export interface Matched {
  readonly route: Route;
  readonly params: Record<string, string>;
  readonly allow: string;
}

/** The routes by path, and `match(path)`: the route of a path after the mount prefix, if any. */
export function routeTable(routes: readonly Route[]): (path: string) => Matched | undefined {
  const compiled: Compiled[] = routes.map((route) => ({ route, segments: segmentsOf(route.path), allow: Object.keys(route.methods).join(', ') }));
  return (path) => {
    const parts = path.split('/');
    // `/links/` is `/links` (Express's non-strict routing); an empty segment elsewhere is no match.
    if (parts.at(-1) === '' && parts.length > 2) parts.pop();
    parts.shift();
    for (const { route, segments, allow } of compiled) {
      if (segments.length !== parts.length) continue;
      const params: Record<string, string> = {};
      let matches = true;
      for (let index = 0; index < segments.length && matches; index++) {
        const segment = segments[index]!;
        const part = parts[index]!;
        const colon = segment.indexOf(':');
        if (colon >= 0) {
          // The literal start (case-insensitive), then a parameter that is not empty.
          if (part.length <= colon || part.slice(0, colon).toLowerCase() !== segment.slice(0, colon)) matches = false;
          else params[segment.slice(colon + 1)] = decodeParam(part.slice(colon));
        } else matches = segment === part.toLowerCase();
      }
      if (matches) return { route, params, allow };
    }
    return undefined;
  };
}

/** A parameter that does not percent-decode names no order: answered like an unknown one. */
function decodeParam(part: string): string {
  try {
    return decodeURIComponent(part);
  } catch {
    throw new PayButtonError('not_found', 'No order with this number and token.');
  }
}

/** Run a matched route: edge checks, the handler, or the method's refusal. `undefined`: not ours. */
export async function runRoute(matched: Matched, request: CoreRequest, context: RouteContext, edge: Edge): Promise<Answer | undefined> {
  const { route } = matched;
  const method = request.method === 'HEAD' ? 'GET' : request.method;
  const handler = route.methods[method as 'GET' | 'POST'];
  if (route.browser && (handler || method === 'OPTIONS')) {
    const preflight = edge.origin(request, context.headers);
    if (preflight) return preflight;
  }
  if (handler) {
    if (route.browser?.limited && method === 'POST') edge.limit(context);
    return handler(request, context);
  }
  if (route.refuseOtherMethods) return methodNotAllowed(matched.allow);
  // What Express's router answered for OPTIONS on a path it had only other methods for.
  if (method === 'OPTIONS') {
    const allow = matched.allow === 'GET' ? 'GET, HEAD' : matched.allow;
    return answer(200, allow, { Allow: allow, 'Content-Type': 'text/html; charset=utf-8' });
  }
  return undefined;
}
