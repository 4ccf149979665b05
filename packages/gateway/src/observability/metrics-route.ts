/**
 * `GET /metrics`: the gateway's Registry in Prometheus' text format, for a loopback peer that came
 * through no proxy (a reverse proxy on the same host makes every public request look loopback, so a
 * `Forwarded` or `X-Forwarded-For` header disqualifies it), or for `Authorization: Bearer <token>`
 * (compared in constant time). Anything else is `403` with JSON saying why. Mounted beside the
 * probes: never shed by admission control.
 */
import { createHash, timingSafeEqual } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import { Router } from 'express';
import ipaddr from 'ipaddr.js';
import type { Registry } from 'prom-client';

export type MetricsRefusal = 'forwarded' | 'not_loopback' | 'wrong_token';

const REASONS: Readonly<Record<MetricsRefusal, string>> = {
  forwarded: 'the request came through a proxy (Forwarded or X-Forwarded-For): send Authorization: Bearer <metrics token>',
  not_loopback: 'metrics are served to loopback without a token: send Authorization: Bearer <metrics token> (--metrics-token)',
  wrong_token: 'the bearer token is not the metrics token',
};

const digest = (value: string) => createHash('sha256').update(value).digest();

function isLoopback(address: string | undefined): boolean {
  if (!address || !ipaddr.isValid(address)) return false;
  const parsed = ipaddr.process(address);
  return parsed.range() === 'loopback';
}

function bearerOf(req: IncomingMessage): string | undefined {
  const header = req.headers.authorization;
  const match = header === undefined ? null : /^Bearer\s+(\S+)\s*$/i.exec(header);
  return match?.[1];
}

/** Whether the request may read the metrics: undefined when it may, else why not. */
export function metricsRefusal(req: IncomingMessage, tokenDigest: Buffer | undefined): MetricsRefusal | undefined {
  const bearer = bearerOf(req);
  // Both digests are 32 bytes: the comparison takes the same time whatever the token sent.
  if (bearer !== undefined && tokenDigest && timingSafeEqual(digest(bearer), tokenDigest)) return undefined;
  const forwarded = req.headers.forwarded !== undefined || req.headers['x-forwarded-for'] !== undefined;
  if (isLoopback(req.socket.remoteAddress) && !forwarded) return undefined;
  if (bearer !== undefined) return 'wrong_token';
  return forwarded ? 'forwarded' : 'not_loopback';
}

export function metricsRouter(registry: Registry, options: { readonly token?: string | undefined }): Router {
  const tokenDigest = options.token ? digest(options.token) : undefined;
  const router = Router();
  router.get('/metrics', async (req, res, next) => {
    res.set('Cache-Control', 'no-store');
    const refusal = metricsRefusal(req, tokenDigest);
    if (refusal) return void res.status(403).json({ error: 'forbidden', reason: refusal, message: REASONS[refusal] });
    try {
      const body = await registry.metrics();
      res.set('Content-Type', registry.contentType).send(body);
    } catch (error) {
      next(error);
    }
  });
  return router;
}
