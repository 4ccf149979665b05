/**
 * The answers of the fetch core: JSON, text and HTML answers (`answer.ts`) with the same headers whichever
 * framework carries them, and the one error answer (JSON, no stack, nothing secret; the
 * unexpected goes to `events`).
 */
import { databaseFault, retryAfterSeconds } from '@tombolbayar/store-kit';
import { PayButtonError, isPayButtonError } from '../errors.ts';
import type { PayButtonEvents } from '../events.ts';
import type { ResolvedOptions } from '../options.ts';
import { answer, type Answer, type AnswerHeaders, type EdgeHeaders } from './answer.ts';

export const JSON_TYPE = 'application/json; charset=utf-8';
export const TEXT_TYPE = 'text/plain; charset=utf-8';
export const HTML_TYPE = 'text/html; charset=utf-8';

type HeaderInit = Record<string, string>;

export function jsonAnswer(status: number, body: unknown, headers: HeaderInit = {}): Answer {
  return answer(status, JSON.stringify(body), { 'Content-Type': JSON_TYPE, ...headers });
}

export function textAnswer(status: number, text: string, headers: HeaderInit = {}): Answer {
  return answer(status, text, { 'Content-Type': TEXT_TYPE, ...headers });
}

export function htmlAnswer(status: number, html: string, headers: HeaderInit = {}): Answer {
  return answer(status, html, { 'Content-Type': HTML_TYPE, ...headers });
}

/** `405` with `Allow`, for a known path called with another method. */
export function methodNotAllowed(allow: string): Answer {
  return jsonAnswer(405, { error: { code: 'method_not_allowed', message: `Use ${allow}.`, retryable: false } }, { Allow: allow });
}

/** `404` for a path the core does not serve (the Express adapter passes those on with `next()`). */
export function notFoundAnswer(): Answer {
  return jsonAnswer(404, { error: { code: 'not_found', message: 'No such route here.', retryable: false } }, { 'Cache-Control': 'no-store' });
}

/** What the error answer uses: the rate limit's window, and the events for the unexpected. */
export interface ErrorDeps {
  readonly options: Pick<ResolvedOptions, 'rateLimit'>;
  readonly events: PayButtonEvents;
}

/** The error code the error answer gives for `error` (`order.refused` reports it). */
export function answeredCode(error: unknown): string {
  if (isPayButtonError(error)) return error.code;
  return databaseFault(error) ? 'store_unavailable' : 'internal';
}

/**
 * The error answer of every route. `edge` holds the headers already decided for this request
 * (a limiter's `Retry-After` is kept).
 */
export function errorAnswer(context: ErrorDeps, error: unknown, edge: EdgeHeaders): Answer {
  const headers: HeaderInit = { 'Cache-Control': 'no-store' };
  let known: PayButtonError;
  if (isPayButtonError(error)) known = error;
  else if (databaseFault(error)) {
    // The database failed under this request (a lost or silent connection, a timeout): the
    // same request is worth sending again in a moment.
    const fault = databaseFault(error)!;
    context.events.emit('warning', { code: 'database_fault', message: `the order store failed during a request (${fault})`, error });
    headers['Retry-After'] = String(retryAfterSeconds(fault));
    known = new PayButtonError('store_unavailable', 'The order store is not available right now; try again in a moment.', { cause: error });
  } else {
    context.events.emit('warning', { code: 'internal', message: 'unexpected error in a payButton() route', error });
    known = new PayButtonError('internal', 'Something went wrong; please try again.');
  }
  const hasRetryAfter = headers['Retry-After'] !== undefined || edge.has('retry-after');
  if (known.code === 'rate_limited' && !hasRetryAfter) headers['Retry-After'] = String(Math.ceil((context.options.rateLimit || { windowMs: 60_000 }).windowMs / 1000));
  // Every retryable 503 says when to come back (store_unavailable, gateway_unavailable, overloaded).
  if (known.httpStatus === 503 && known.retryable && !hasRetryAfter) headers['Retry-After'] = '5';
  return jsonAnswer(known.httpStatus, known.toJSON(), headers);
}

/** The answer with the edge headers added (those the route set itself win; `Vary` values are merged). */
export function withEdgeHeaders(result: Answer, edge: AnswerHeaders): Answer {
  for (const [name, value] of edge) {
    if (name === 'vary') {
      const current = result.headers.get('vary');
      if (!current || !current.split(/\s*,\s*/).some((entry) => entry.toLowerCase() === value.toLowerCase())) result.headers.set('vary', current ? `${current}, ${value}` : value);
    } else if (!result.headers.has(name)) result.headers.set(name, value);
  }
  return result;
}
