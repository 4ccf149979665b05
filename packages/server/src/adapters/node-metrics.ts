/** The metrics route on Node's `req`/`res` (Express and plain `node:http`): the peer is the socket's. */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Registry } from 'prom-client';
import { checkMetricsRoute, metricsAnswer, type MetricsRouteOptions } from '../observability/metrics-route.ts';
import { writeAnswer } from './node-request.ts';

/** `req.headers` read as `Headers.get` reads them. */
const headerOf = (req: IncomingMessage) => ({
  get: (name: string): string | null => {
    const value = req.headers[name.toLowerCase()];
    return value === undefined ? null : Array.isArray(value) ? value.join(', ') : value;
  },
});

export function nodeMetricsRoute(helper: string, registry: Registry, options: MetricsRouteOptions | undefined): (req: IncomingMessage, res: ServerResponse) => Promise<void> {
  const checked = checkMetricsRoute(helper, registry, options);
  return async (req, res) => {
    const result = await metricsAnswer(registry, checked, { method: req.method ?? 'GET', headers: headerOf(req), peerAddress: req.socket.remoteAddress });
    writeAnswer(result, req, res);
  };
}
