/**
 * The signed merchant API served ahead of Express's router (issue 24): a `POST` to exactly
 * `/gateway/pay`, `/gateway/prepaidOrder` or `/gateway/query` runs the very middleware the app
 * stack and the route would run (load shedding, security headers, the request log, the start-up
 * wait, the edge checks, the handler), in the same order, and its errors reach the same last-resort
 * handler; only the router's matching and per-layer dispatch is skipped. Anything else (another
 * method, a query string, a trailing slash, another case) goes on through the app, which routes it
 * exactly as before, so what an answer is never depends on which lane served it.
 */
import type { ErrorRequestHandler, NextFunction, Request, RequestHandler, Response } from 'express';

/** A route's chain: the app-level middleware the route runs behind, then the route's own. */
export interface FastLaneConfig {
  /** App-level middleware every signed request passes, in app order (before the routers). */
  readonly before: readonly RequestHandler[];
  /** Full path (as the client sent it, no query string) to the route's own middleware and handler. */
  readonly routes: ReadonlyMap<string, readonly RequestHandler[]>;
  /** The app's last-resort error handler. */
  readonly onError: ErrorRequestHandler;
  /** What the app answers a request no handler answered (its 404). */
  readonly unanswered: RequestHandler;
}

const ignore = () => {};

/** Run `chain` like Express's router: next() goes on, next(error) (or a throw, or a rejection) ends at onError. */
function runChain(chain: readonly RequestHandler[], onError: ErrorRequestHandler, req: Request, res: Response): void {
  let index = 0;
  const fail = (error: unknown) => onError(error, req, res, ignore);
  const next: NextFunction = (error?: unknown) => {
    if (error) return fail(error);
    const handler = chain[index++];
    if (!handler) return;
    try {
      const result = handler(req, res, next) as unknown;
      if (result instanceof Promise) result.catch(fail);
    } catch (thrown) {
      fail(thrown);
    }
  };
  next();
}

export function fastLane(config: FastLaneConfig): RequestHandler {
  const chains = new Map<string, readonly RequestHandler[]>();
  for (const [path, handlers] of config.routes) chains.set(path, [...config.before, ...handlers, config.unanswered]);
  return (req, res, next) => {
    const chain = req.method === 'POST' ? chains.get(req.url) : undefined;
    if (!chain) return next();
    runChain(chain, config.onError, req, res);
  };
}
