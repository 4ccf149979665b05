/**
 * `GET /metrics`: the gateway's Registry in Prometheus' text format, to whom store-kit's
 * `metricsAccess` lets in (a loopback peer that came through no proxy, or the metrics token as
 * `Authorization: Bearer`); anything else is `403` with JSON saying why. Mounted beside the
 * probes: never shed by admission control.
 */
import { Router } from 'express';
import { metricsAccess, METRICS_REFUSALS } from '@tombolbayar/store-kit';
import type { Registry } from 'prom-client';

export function metricsRouter(registry: Registry, options: { readonly token?: string | undefined }): Router {
  const refusalOf = metricsAccess(options.token);
  const router = Router();
  router.get('/metrics', async (req, res, next) => {
    res.set('Cache-Control', 'no-store');
    const refusal = refusalOf({
      authorization: req.headers.authorization,
      forwarded: req.headers.forwarded !== undefined || req.headers['x-forwarded-for'] !== undefined,
      peerAddress: req.socket.remoteAddress,
    });
    if (refusal) return void res.status(403).json({ error: 'forbidden', reason: refusal, message: METRICS_REFUSALS[refusal] });
    try {
      const body = await registry.metrics();
      res.set('Content-Type', registry.contentType).send(body);
    } catch (error) {
      next(error);
    }
  });
  return router;
}
