/** One log line per request: method, path (never the query or the body), status, duration. */
import type { RequestHandler, Response } from 'express';
import type { Logger } from 'pino';
import { flatEntryLogger } from '../logger.ts';

/**
 * Paths longer than this are logged cut, with their length: anyone can send a 16 KB unknown path,
 * and each would otherwise write 16 KB to the log (issue 12: an unauthenticated request must not
 * cost more for being longer).
 */
export const LOGGED_PATH_CHARS = 256;

function loggedPath(path: string): string {
  return path.length <= LOGGED_PATH_CHARS ? path : `${path.slice(0, LOGGED_PATH_CHARS)}...(${path.length} characters)`;
}

/**
 * What a handler adds to its request's one log line (e.g. the order it created), instead of
 * writing a line of its own: one line per request, formatted once, after the answer is sent.
 */
export interface RequestLogNote {
  readonly message: string;
  /** Flat: the line is written through `flatEntryLogger`, whose redaction covers flat entries only. */
  readonly fields: Readonly<Record<string, string | number | boolean | null>>;
}

export function noteRequest(res: Response, note: RequestLogNote): void {
  res.locals.requestLogNote = note;
}

export function requestLog(logger: Logger): RequestHandler {
  const lines = flatEntryLogger(logger);
  return (req, res, next) => {
    const started = process.hrtime.bigint();
    // Captured now: routers rewrite req.url while they run.
    const path = loggedPath(req.originalUrl.split('?')[0]!);
    res.on('finish', () => {
      const ms = Number(process.hrtime.bigint() - started) / 1e6;
      const note = res.locals.requestLogNote as RequestLogNote | undefined;
      const entry = { method: req.method, path, status: res.statusCode, ms: Math.round(ms * 10) / 10, ...note?.fields };
      const level = res.statusCode >= 500 ? 'warn' : 'info';
      if (logger.isLevelEnabled(level)) lines[level](entry, note?.message ?? 'request');
    });
    next();
  };
}
