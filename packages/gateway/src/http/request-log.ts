/** One log line per request: method, path (never the query or the body), status, duration. */
import type { RequestHandler } from 'express';
import type { Logger } from 'pino';

export function requestLog(logger: Logger): RequestHandler {
  return (req, res, next) => {
    const started = process.hrtime.bigint();
    // Captured now: routers rewrite req.url while they run.
    const path = req.originalUrl.split('?')[0];
    res.on('finish', () => {
      const ms = Number(process.hrtime.bigint() - started) / 1e6;
      const entry = { method: req.method, path, status: res.statusCode, ms: Math.round(ms * 10) / 10 };
      if (res.statusCode >= 500) logger.warn(entry, 'request');
      else logger.info(entry, 'request');
    });
    next();
  };
}
