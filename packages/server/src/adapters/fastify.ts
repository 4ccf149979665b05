/**
 * `@tombolbayar/server/fastify`: the plug-in as a Fastify plugin, registered under a prefix.
 *
 *     import Fastify, { type FastifyRequest } from 'fastify';
 *     import { createPayButton } from '@tombolbayar/server';
 *     import { payButtonFastify } from '@tombolbayar/server/fastify';
 *
 *     const pay = createPayButton<FastifyRequest>({ gatewayUrl, merchantCode, privateKey, platformPublicKey, publicUrl, quote, onPaid });
 *     await app.register(payButtonFastify, { prefix: '/pay', payButton: pay });
 *
 * Every request under the prefix goes to the fetch core as a Web `Request` with its body unread,
 * and the core's `Response` is sent with `reply`. What only Fastify knows goes with it:
 * `request.ip` (so `trustProxy` is the app's), the prefix, and the `FastifyRequest` itself for
 * `quote(request, body)` and `rateLimit.key(request)`.
 *
 * Wrapped in `fastify-plugin` for its name and its Fastify version check (`5.x`: a Fastify 4 app is
 * told at `register()`), with `encapsulate: true`: the plugin replaces the content-type parsers of
 * its scope, and that must stay inside it. Broken out of encapsulation, the parser would take every
 * body of the merchant's app and leave it unread.
 */
import type { FastifyInstance, FastifyPluginOptions, FastifyReply, FastifyRequest } from 'fastify';
import fastifyPlugin from 'fastify-plugin';
import { toRequest } from './node-request.ts';
import type { PayButtonHandler } from '../core.ts';
import type { Registry } from 'prom-client';
import { checkMetricsRoute, metricsAnswer, type MetricsRouteOptions } from '../observability/metrics-route.ts';

export type { MetricsRouteOptions } from '../observability/metrics-route.ts';

export interface PayButtonFastifyOptions extends FastifyPluginOptions {
  /** What `createPayButton()` returned. It is closed when the Fastify app closes. */
  readonly payButton: PayButtonHandler<FastifyRequest>;
}

async function plugin(fastify: FastifyInstance, options: PayButtonFastifyOptions): Promise<void> {
  const pay = options.payButton;
  if (typeof pay?.fetch !== 'function') throw new TypeError('payButtonFastify: pass { payButton: createPayButton({ ... }) } (from @tombolbayar/server) in the options of register()');
  const mountPath = fastify.prefix || '/';

  // The core reads each body itself, within each route's own limit (answering 413 that names it),
  // and checks the /notify signature over exactly the bytes the gateway sent, in any content
  // type. So the body is left unread here: one parser, for every type (and none), that reads
  // nothing. Fastify's bodyLimit applies to the parsers that buffer (parseAs), so it has nothing
  // to add to the core's limits.
  fastify.removeAllContentTypeParsers();
  fastify.addContentTypeParser('*', (_request: FastifyRequest, _payload: unknown, done: (error: Error | null, body?: unknown) => void) => done(null, undefined));

  const answer = async (request: FastifyRequest, reply: FastifyReply): Promise<FastifyReply | undefined> => {
    const response = await pay.fetch(toRequest(request.raw), { clientAddress: request.ip, mountPath, native: request });
    if (response.type === 'error') {
      // The client left before its request was worked on: there is no one to answer.
      reply.hijack();
      reply.raw.destroy();
      return undefined;
    }
    return reply.send(response);
  };
  // A Content-Type Fastify cannot even parse is the core's to refuse (in its own words, and on
  // /notify in the gateway's), not Fastify's.
  fastify.setErrorHandler((error: Error & { code?: string }, request, reply) => {
    if (error.code === 'FST_ERR_CTP_INVALID_MEDIA_TYPE') return answer(request, reply);
    return reply.send(error);
  });
  fastify.all('/*', answer);
  fastify.addHook('onClose', async () => {
    await pay.close();
  });
}

/**
 * The plugin: register it with `prefix` equal to the `mountPath` given to `createPayButton()`
 * (`/pay` by default).
 */
export const payButtonFastify = fastifyPlugin(plugin, { name: '@tombolbayar/server', fastify: '5.x', encapsulate: true });

/**
 * The registry given to `createPayButton({ metrics: { registry } })` as Prometheus text, as a
 * route handler: `app.get('/metrics', metricsFastify(registry, { token }))`. Open to this machine
 * when no proxy forwarded the request (the socket's peer, never `request.ip`), else to
 * `Authorization: Bearer <token>`.
 */
export function metricsFastify(registry: Registry, options?: MetricsRouteOptions): (request: FastifyRequest, reply: FastifyReply) => Promise<FastifyReply> {
  const checked = checkMetricsRoute('metricsFastify', registry, options);
  return async (request, reply) => {
    const headers = { get: (name: string) => { const value = request.headers[name.toLowerCase()]; return value === undefined ? null : Array.isArray(value) ? value.join(', ') : value; } };
    const result = await metricsAnswer(registry, checked, { method: request.method, headers, peerAddress: request.raw.socket.remoteAddress });
    reply.code(result.status);
    for (const [name, value] of result.headers) reply.header(name, value);
    return reply.send(result.body ?? '');
  };
}
