/**
 * `createGateway(options)`: the gateway as one object, an Express app plus its store, notification
 * worker and expiry sweep, startable and stoppable in-process. Creation is synchronous (so `app`
 * can be mounted at once); the database is migrated in the background and every request, `listen`
 * and domain call waits for that (`ready`). This is the production gateway; with `sandbox: true`
 * the sandbox is composed onto it at its seams (`extension.ts`, `sandbox/compose.ts`), never inside.
 */
import { createPublicKey, type KeyObject } from 'node:crypto';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { sign as signFields, toPrivateKey } from '@tombolbayar/protocol/node';
import express from 'express';
import helmet from 'helmet';
import type { Logger } from 'pino';
import { createClock } from './domain/clock.ts';
import type { DomainContext } from './domain/context.ts';
import { normalizeMerchantPublicKey, registerMerchant } from './domain/merchants.ts';
import { buildFeeTable, buildLimitTable } from './domain/pricing.ts';
import { sweepExpiredOrders } from './domain/transitions.ts';
import { createInFlightLimiter } from '@tombolbayar/store-kit';
import { errorHandler, notFound } from './http/edges.ts';
import { healthRouter, type StartupState } from './http/health.ts';
import { createGatewayServer } from './http/server.ts';
import { sendRefusal } from './http/refusals.ts';
import { fastLane } from './http/fast-lane.ts';
import { gatewayRouter, gatewayRoutes } from './http/gateway-routes.ts';
import { createGatewayOrigins } from './http/origins.ts';
import { requestLog } from './http/request-log.ts';
import { resolveLogger } from './logger.ts';
import { checkCallbackUrl } from './notify/delivery/index.ts';
import { createDeliveries } from './notify/deliveries.ts';
import type { PlatformSigner } from './notify/notification.ts';
import { startNotificationWorker, type NotificationWorker } from './notify/worker.ts';
import { GatewayConfigError, resolveOptions, type GatewayOptions } from './options.ts';
import { createPaymentPageRouter } from './page/index.ts';
import { probeShop } from './page/shop-probe.ts';
import { createPageDeps } from './page-seam.ts';
import { operatorApi } from './operator-api.ts';
import { paymentLinkUrl, type GatewayRuntime } from './runtime.ts';
import { PRODUCTION_HOOKS } from './domain/hooks.ts';
import type { GatewayExtension, GatewayParts } from './extension.ts';
import { registerInternals } from './gateway-internals.ts';
import type { Gateway, SandboxGateway } from './gateway-types.ts';
import { SANDBOX } from './sandbox/compose.ts';
import { ensureSchema, openDatabase } from './store/database.ts';
import { migrateToLatest } from './store/migrations.ts';
import { untilDatabaseAnswers } from './store/startup.ts';
import { metricsRouter } from './observability/metrics-route.ts';
import { markShed, observeRequests } from './observability/requests.ts';
import { setUpObservability, shedReasonLabel } from './observability/setup.ts';
import { createRetention, DEFAULT_RETENTION_DAYS, type Retention } from './privacy/retention.ts';

export type { Gateway, SandboxGateway } from './gateway-types.ts';

const SHUTDOWN_GRACE_MS = 5_000;

/** Requests worked on at once by default (bench/: see the README's "Load shedding"). */
export const DEFAULT_MAX_IN_FLIGHT = 64;

const isWildcard = (address: string) => address === '0.0.0.0' || address === '::';

/** A host a browser on this machine can open: a wildcard bind is reached through loopback. */
function reachableHost(address: AddressInfo): string {
  if (address.address === '0.0.0.0') return '127.0.0.1';
  if (address.address === '::') return '[::1]';
  return address.family === 'IPv6' ? `[${address.address}]` : address.address;
}

export function createGateway(options: GatewayOptions & { readonly sandbox: true }): SandboxGateway;
export function createGateway(options: GatewayOptions): Gateway;
export function createGateway(options: GatewayOptions): Gateway | SandboxGateway {
  const config = resolveOptions(options);
  const logger = resolveLogger(config.logger as Logger | false | undefined);
  let platformKey: KeyObject;
  try {
    platformKey = toPrivateKey(config.platformPrivateKey);
  } catch (error) {
    throw new GatewayConfigError(`invalid gateway options: platformPrivateKey: ${(error as Error).message}`);
  }
  const platformPublicKey = createPublicKey(platformKey).export({ type: 'spki', format: 'pem' }).toString();
  const merchantsToRegister = (config.merchants ?? []).map((merchant, index) => {
    try {
      return { ...merchant, publicKey: normalizeMerchantPublicKey(merchant.publicKey) };
    } catch (error) {
      throw new GatewayConfigError(`invalid gateway options: merchants.${index}.${(error as Error).message}`);
    }
  });

  const sandbox = config.sandbox ?? false;
  // Production is the core alone; the sandbox comes in only through its extension (extension.ts).
  const extension: GatewayExtension<SandboxGateway> | undefined = sandbox ? SANDBOX : undefined;
  const clock = createClock(config.now);
  // Metrics in the gateway's own Registry (observability/), handed down; `metrics: false` costs nothing.
  const observability = setUpObservability(config.metrics as Parameters<typeof setUpObservability>[0]);
  const { metrics } = observability;
  // A connection the database ended (or that went silent) is replaced by the pool; said, never fatal.
  const database = openDatabase(config.database, (error) => logger.warn({ err: error }, 'database connection lost; the pool opens a new one'), observability.onStatement);
  observability.watch(database, clock);
  const sign: PlatformSigner = (fields) => signFields(fields, platformKey);
  let worker: NotificationWorker | undefined;
  const domain: DomainContext = {
    database,
    clock,
    fees: buildFeeTable(config.fees),
    limits: buildLimitTable(config.limits),
    sandbox,
    hooks: extension?.hooks ?? PRODUCTION_HOOKS,
    sign,
    checkCallbackUrl,
    onNotificationQueued: () => worker?.nudge(),
    logger,
    metrics,
  };

  let server: Server | undefined;
  let listenUrl: string | undefined;
  const publicUrl = config.publicUrl;
  const origins = createGatewayOrigins({ publicUrl, listenUrl: () => listenUrl });
  const runtime: GatewayRuntime = {
    domain,
    sign,
    sandbox,
    publicBaseUrl: origins.baseUrl,
    ownOrigins: origins.ownOrigins,
    sweepNow: () => sweepExpiredOrders(domain),
  };

  const retentionDays = config.personalData?.retentionDays ?? DEFAULT_RETENTION_DAYS;
  const retention: Retention | undefined = retentionDays === false ? undefined : createRetention({ database, clock, logger, retentionDays });
  let sweepTimer: NodeJS.Timeout | undefined;
  let closed = false;
  let startup: StartupState = 'starting';
  const stopStarting = new AbortController();
  let sayWaiting: () => void = () => {};
  /** Resolves once the start is waiting for the database (`listen` then binds: /readyz can say so). */
  const waitingForDatabase = new Promise<void>((resolve) => (sayWaiting = resolve));
  const ready = (async () => {
    await untilDatabaseAnswers(
      async () => {
        if (config.database.kind === 'postgres') await ensureSchema(database, config.database.schema);
        await migrateToLatest(database.db, database.engine);
        await extension?.migrate(database);
        for (const merchant of merchantsToRegister) await registerMerchant(database.db, merchant, clock.now());
      },
      {
        logger,
        signal: stopStarting.signal,
        onWaiting: () => {
          startup = 'waiting_for_database';
          sayWaiting();
        },
      },
    );
    startup = 'ready';
    if (closed) return;
    if (config.notifications?.worker !== false) {
      const concurrency = config.notifications?.concurrency;
      worker = startNotificationWorker({
        database,
        clock,
        logger,
        timeScale: config.timeScale ?? 1,
        allowPrivateNetworks: sandbox,
        ...(config.notifications?.timeoutMs ? { timeoutMs: config.notifications.timeoutMs } : {}),
        ...(config.notifications?.leaseMs ? { leaseMs: config.notifications.leaseMs } : {}),
        ...(config.notifications?.pollIntervalMs ? { pollIntervalMs: config.notifications.pollIntervalMs } : {}),
        ...(concurrency ? { concurrency } : {}),
        ...(config.notifications?.lookup ? { lookup: config.notifications.lookup } : {}),
        ...(config.notifications?.roundDeadlineMs ? { roundDeadlineMs: config.notifications.roundDeadlineMs } : {}),
        metrics,
      });
    }
    const sweep = () => {
      sweepExpiredOrders(domain)
        .catch((error: unknown) => logger.error({ err: error }, 'expiry sweep failed'))
        // The retention pass after a sweep when it is due, by one process at a time (its lease).
        .then(() => retention?.runWhenDue())
        .catch((error: unknown) => logger.error({ err: error }, 'personal-data retention pass failed; the next sweep tries again'))
        .finally(() => {
          if (closed) return;
          sweepTimer = setTimeout(sweep, config.expirySweepIntervalMs ?? 15_000);
          sweepTimer.unref();
        });
    };
    // The first retention pass before the gateway says it is ready: later ones follow sweeps
    // when due, so a started gateway writes nothing on its own for the next ten minutes.
    await retention?.runWhenDue().catch((error: unknown) => logger.error({ err: error }, 'personal-data retention pass failed; the next sweep tries again'));
    sweep();
  })();
  ready.catch((error: unknown) => {
    startup = 'failed';
    if (!closed) logger.error({ err: error }, 'gateway failed to start');
  });

  const deliveries = createDeliveries(database, clock, () => worker?.nudge());

  const app = express();
  app.disable('x-powered-by');
  app.set('etag', false);
  // Past maxInFlight (or a late event loop, or one client's cap), refuse at once rather than
  // queue; a body still arriving takes no slot (its deadline is the server's requestTimeout).
  const limiter = createInFlightLimiter({
    maxInFlight: config.maxInFlight ?? DEFAULT_MAX_IN_FLIGHT,
    ...(config.maxEventLoopDelayMs === undefined ? {} : { maxEventLoopDelayMs: config.maxEventLoopDelayMs }),
    onShed: (report) => logger.warn(report, 'shedding load: requests refused with 503 overloaded'),
  });
  const shedding = limiter.middleware((_req, res, reason) => {
    metrics.shed(shedReasonLabel(reason));
    markShed(res);
    (res as express.Response).set('Retry-After', '1');
    sendRefusal(res as express.Response, sign, 'overloaded');
  });
  const securityHeaders = helmet({
    // The API answers JSON only; the page router sets its own, page-specific policy.
    contentSecurityPolicy: { useDefaults: false, directives: { defaultSrc: ["'none'"], frameAncestors: ["'none'"], baseUri: ["'none'"] } },
    // The hosted page is opened as a popup whose opener must survive (see page/csp.ts).
    crossOriginOpenerPolicy: false,
  });
  let started = false;
  ready.then(() => (started = true), () => {});
  const untilStarted: express.RequestHandler = (_req, res, next) => {
    if (started) return next();
    // While the start waits for the database, say so at once instead of holding the request.
    if (startup === 'waiting_for_database') {
      res.set('Retry-After', '5');
      return sendRefusal(res, sign, 'databaseUnavailable');
    }
    ready.then(() => next(), next);
  };
  const before = [shedding, securityHeaders, requestLog(logger), untilStarted];
  const signedRoutes = gatewayRoutes(runtime);
  const unrouted = notFound(sign);
  const lastResort = errorHandler(sign, logger);
  // First of all: every request's latency and its SERVER span (the trace context of the rest).
  app.use(observeRequests(metrics));
  // The signed API's exact paths skip the router's dispatch (http/fast-lane.ts): same chain, same answers.
  app.use(fastLane({ before, routes: new Map([...signedRoutes].map(([path, chain]) => [`/gateway${path}`, chain])), onError: lastResort, unanswered: unrouted }));
  // Probes first: never shed, never logged per request.
  app.use(healthRouter({ database, startup: () => startup, worker: () => worker?.health(), load: () => limiter.snapshot() }));
  // Metrics beside the probes: never shed, its own access rule (observability/metrics-route.ts).
  if (observability.registry) app.use(metricsRouter(observability.registry, { token: observability.token }));
  app.use(...before);
  app.use('/gateway', gatewayRouter(runtime, signedRoutes));
  const parts: GatewayParts = { domain, runtime, deliveries, metrics: observability.registry, ready };
  for (const [path, router] of extension?.routers(parts) ?? []) app.use(path, router);
  const pageDeps = createPageDeps(domain, extension?.pageActions(domain));
  // Through the gateway's logger: honours `logger: false` and pino's redaction of keys and signs.
  // The way back to the shop checks it answers first, under the notifications' address policy.
  const probe = { allowPrivateNetworks: sandbox, lookup: config.notifications?.lookup };
  app.use(
    createPaymentPageRouter(pageDeps, {
      sandbox,
      ownOrigins: runtime.ownOrigins,
      onError: (err) => logger.error({ err }, 'payment page error'),
      probeShop: (url) => probeShop(url, probe),
    }),
  );
  app.use(unrouted);
  app.use(lastResort);

  let closing: Promise<void> | undefined;
  async function shutdown(): Promise<void> {
    closed = true;
    stopStarting.abort();
    clearTimeout(sweepTimer);
    if (server) {
      const current = server;
      const stopped = new Promise<void>((resolve) => current.close(() => resolve()));
      current.closeIdleConnections();
      const grace = setTimeout(() => current.closeAllConnections(), SHUTDOWN_GRACE_MS);
      await stopped;
      clearTimeout(grace);
    }
    await ready.catch(() => {});
    await worker?.stop();
    await retention?.stop();
    await database.close();
    logger.info('gateway stopped');
  }

  const gateway: Gateway = {
    app,
    ready,
    platformPublicKey,
    sandbox,
    logger,
    metrics: observability.registry,
    get url() {
      return listenUrl;
    },
    async listen(port = 0, host = '127.0.0.1') {
      if (server) throw new Error('the gateway is already listening');
      // Listening while the database is down lets /readyz say so; requests get 503 until it is up.
      await Promise.race([ready, waitingForDatabase]);
      const started = createGatewayServer(app, config.requestTimeoutMs === undefined ? {} : { requestTimeoutMs: config.requestTimeoutMs });
      started.listen(port, host);
      server = started;
      try {
        await new Promise<void>((resolve, reject) => {
          started.once('listening', resolve);
          started.once('error', reject);
        });
      } catch (error) {
        server = undefined;
        throw error;
      }
      const address = started.address() as AddressInfo;
      listenUrl = `http://${reachableHost(address)}:${address.port}`;
      logger.info({ url: listenUrl, sandbox }, 'gateway listening');
      if (!publicUrl && isWildcard(address.address)) {
        logger.warn('listening on every interface without publicUrl: payment links point to the loopback address; set publicUrl (--public-url)');
      }
      return { url: listenUrl, port: address.port };
    },
    close: () => (closing ??= shutdown()),
    paymentUrl: (platOrderNum) => paymentLinkUrl(origins.baseUrl(), platOrderNum),
    ...operatorApi({ domain, ready, deliveries, retention, worker: () => worker }),
  };
  registerInternals(gateway, { pageDeps, domain });
  // The sandbox is composed onto the finished production gateway (sandbox/compose.ts).
  return extension ? extension.compose(gateway, parts) : gateway;
}
