/**
 * The frameworks the contract suite runs against, each started the way its README tells a
 * merchant to: the plug-in mounted under `/pay` of a real app listening on 127.0.0.1 (port 0).
 *
 * An adapter is one entry: `start(options)` gets a function of the server's own origin (the
 * options need `publicUrl` before the first order) and answers where the server listens and how
 * to stop it. Each server listens before the plug-in is built, so the origin is known.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { createAdaptorServer, getRequestListener, type HttpBindings } from '@hono/node-server';
import express from 'express';
import Fastify from 'fastify';
import { Hono } from 'hono';
import { payButtonFastify } from '../../src/adapters/fastify.ts';
import { payButtonHono } from '../../src/adapters/hono.ts';
import { payButtonNext, type PayButtonRouteHandler } from '../../src/adapters/next.ts';
import { payButton } from '../../src/adapters/express.ts';
import type { PayButtonOptions } from '../../src/options.ts';
import { createPayButton } from '../../src/core.ts';

export interface StartedServer {
  /** The server's origin, `http://127.0.0.1:PORT`; the plug-in is at `baseUrl + '/pay'`. */
  readonly baseUrl: string;
  close(): Promise<void>;
}

/** One framework: how a merchant's server with the plug-in mounted at `/pay` is started. */
export interface ContractServer {
  readonly name: string;
  start(options: (baseUrl: string) => PayButtonOptions<unknown>): Promise<StartedServer>;
}

export const MOUNT = '/pay';

/** The timeouts each README's server sets (headers, whole request, keep-alive). */
const TIMEOUTS = { headersTimeout: 10_000, requestTimeout: 30_000, keepAliveTimeout: 5_000 } as const;

/** A Node server with the READMEs' timeouts. */
const timedServer = (listener?: http.RequestListener): http.Server => http.createServer(TIMEOUTS, listener);

/** A plain Node server listening on an ephemeral loopback port, and its origin. */
async function listening(server: http.Server): Promise<string> {
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

async function closeServer(server: http.Server): Promise<void> {
  await new Promise<void>((resolve) => {
    server.close(() => resolve());
    server.closeAllConnections();
  });
}

/** Express: `app.use('/pay', payButton(options))`. */
const expressServer: ContractServer = {
  name: 'express',
  async start(options) {
    const server = timedServer();
    const baseUrl = await listening(server);
    const pay = payButton(options(baseUrl));
    const app = express();
    app.use(MOUNT, pay);
    server.on('request', app);
    return {
      baseUrl,
      async close() {
        await pay.close();
        await closeServer(server);
      },
    };
  },
};

/** Hono on `@hono/node-server`: `app.route('/pay', payButtonHono(pay))`. */
const honoServer: ContractServer = {
  name: 'hono',
  async start(options) {
    const app = new Hono();
    const server = createAdaptorServer({ fetch: app.fetch, serverOptions: TIMEOUTS }) as http.Server;
    const baseUrl = await listening(server);
    const pay = createPayButton(options(baseUrl));
    app.route(MOUNT, payButtonHono(pay));
    return {
      baseUrl,
      async close() {
        await pay.close();
        await closeServer(server);
      },
    };
  },
};

/**
 * Fastify: `app.register(payButtonFastify, { prefix: '/pay', payButton: pay })`. Its server is
 * made by Fastify (`serverFactory` only hands it over), listening before the plugin is built.
 */
const fastifyServer: ContractServer = {
  name: 'fastify',
  async start(options) {
    const server = timedServer();
    const baseUrl = await listening(server);
    const app = Fastify({ serverFactory: (handler) => server.on('request', handler), requestTimeout: TIMEOUTS.requestTimeout, keepAliveTimeout: TIMEOUTS.keepAliveTimeout });
    const pay = createPayButton(options(baseUrl));
    await app.register(payButtonFastify, { prefix: MOUNT, payButton: pay });
    await app.ready();
    return {
      baseUrl,
      async close() {
        await app.close(); // closes pay too (the plugin's onClose)
        await closeServer(server);
      },
    };
  },
};

/**
 * Next.js route handlers (`app/pay/[...path]/route.ts`), called as Next.js calls them: a Web
 * `Request` and `{ params }` of the catch-all, an unexported method a bare 405. Next.js itself is
 * not here (it runs, built and started, in e2e/packaging/next-app.test.ts): this server stands in for
 * `next start` behind one proxy of the merchant's that appends the client's address to
 * `X-Forwarded-For`, the set-up `{ trustedProxies: 1 }` is for.
 */
const nextServer: ContractServer = {
  name: 'next',
  async start(options) {
    let routes: Partial<Record<string, PayButtonRouteHandler>> = {};
    const server = timedServer(getRequestListener((request, env) => {
      const { pathname } = new URL(request.url);
      if (!pathname.startsWith(`${MOUNT}/`)) return new Response(null, { status: 404 });
      const route = routes[request.method === 'HEAD' ? 'GET' : request.method];
      if (!route) return new Response(null, { status: 405 });
      const headers = new Headers(request.headers);
      const forwarded = [headers.get('x-forwarded-for'), (env as HttpBindings).incoming.socket.remoteAddress].filter(Boolean);
      headers.set('x-forwarded-for', forwarded.join(', '));
      const path = pathname.slice(MOUNT.length + 1).split('/').map(decodeURIComponent);
      return route(new Request(request, { headers }), { params: Promise.resolve({ path }) });
    }));
    const baseUrl = await listening(server);
    const pay = createPayButton(options(baseUrl));
    routes = { ...payButtonNext(pay, { clientAddress: { trustedProxies: 1 } }) };
    return {
      baseUrl,
      async close() {
        await pay.close();
        await closeServer(server);
      },
    };
  },
};

export const SERVERS: readonly ContractServer[] = [expressServer, honoServer, fastifyServer, nextServer];
