/**
 * The options of `payButton()`, checked by zod once at start-up. A mistake stops the server with
 * a message per option saying what to fix; a key is never echoed (the messages never contain the
 * values, only the rules).
 */
import type { KeyObject } from 'node:crypto';
import { merchantCodeField, type FieldIssue } from '@tombolbayar/protocol';
import { toPrivateKey, toPublicKey, type KeyInput } from '@tombolbayar/protocol/node';
import { z } from 'zod';
import { SHED_EVENT_LOOP_DELAY_MS } from '@tombolbayar/store-kit';
import { PayButtonError } from './errors.ts';
import { gatewayChannel, INSECURE_GATEWAY_URL } from './gateway/channel.ts';
import { databaseField, fn, httpUrl, keyField, metricsField, originField, positiveMs, privateKeyMessage, publicKeyMessage } from './option-rules.ts';
import type { Registry } from 'prom-client';
import type { QuoteResult } from './quote.ts';
import { defaultSqliteFile, type DatabaseOption } from './store/database.ts';

/**
 * Names the client a rate-limit bucket belongs to (a session id, say); `undefined`: its IP address.
 * `req` is the framework's request (Express: its `req`; the fetch core: the Web `Request`).
 */
export type RateLimitKey<Req = Request> = (req: Req) => string | undefined;

/** `rateLimit`: see `PayButtonOptions.rateLimit`. */
export interface RateLimitOptions<Req = Request> {
  /** The window, in ms (default 60000). */
  readonly windowMs?: number;
  /** Order creations per client per window (default 300, sized for a carrier's NAT). */
  readonly limit?: number;
  /** The client's key; by default its IP address (IPv6 by /56), proxy-aware through `trust proxy`. */
  readonly key?: RateLimitKey<Req>;
}

/**
 * Order creations per client a minute by default. Behind a carrier-grade NAT (most Indonesian
 * mobile data) many customers share one IPv4 address: 20 refused real customers. A real customer
 * makes one to three a checkout; a script filling the order table is still held to this per
 * address (and the key of `payButton()` can be a session instead).
 */
export const DEFAULT_RATE_LIMIT = 300;
import type { Order } from './public-order.ts';
import { tuningOf } from './internal/tuning.ts';
import { isLoggerLike, sharedDefaultLogger, SILENT_LOGGER, type LoggerLike } from './logging/logger.ts';
import { DEFAULT_SWEEP, type SweepSchedule } from './orders/sweep-schedule.ts';
import { DEFAULT_RETENTION_DAYS } from './personal-data/service.ts';
import { isZodSchema, parseStrict } from './validation.ts';

/** The rule of `maxEventLoopDelayMs`, said whatever part of it a value breaks. */
const LOOP_DELAY_RULE = 'must be false or a whole number of milliseconds from 1 to 600000';

/** What the browser sent, parsed: the reserved fields plus the merchant's own `fields`. */
export interface QuoteRequestBody {
  readonly item?: string | undefined;
  readonly method?: string | null | undefined;
  readonly idempotencyKey: string;
  readonly returnTo?: string | undefined;
  /** The element's locale (`en` or `id`), e.g. for the words of `productDetail`. */
  readonly lang?: 'en' | 'id' | undefined;
  readonly [field: string]: unknown;
}

/**
 * Prices the order on the server. Throw `NotForSaleError` to refuse. `req` is the framework's
 * request (Express: its `req`; the fetch core: the Web `Request`).
 */
export type QuoteFunction<Req = Request> = (req: Req, body: QuoteRequestBody) => QuoteResult | Promise<QuoteResult>;

export interface PaidContext {
  /** 1 on the first run; higher when an earlier run threw or lost its lease. */
  readonly attempt: number;
  /** What told us the order was paid. */
  readonly source: 'notification' | 'query' | 'reconcile';
  /**
   * Aborted when this run lost its lease (a heartbeat found it taken over, or this process was
   * stalled past it: another run may now be fulfilling the order) and at `close()`. Pass it to
   * your own calls, and check it before you commit: a run that lost its lease is never recorded
   * as the completion, and emits `fulfilment.lease_lost`.
   */
  readonly signal: AbortSignal;
  /** The same on every run for this order: for your own idempotent writes (an idempotency key, a unique column). */
  readonly key: string;
}

/**
 * Runs for a paid order until one run returns without throwing; that completion is recorded once.
 * A second run starts only after an earlier one threw, or stalled past its lease (its `signal` is
 * then aborted): make its effects idempotent with `key`.
 */
export type OnPaidFunction = (order: Order, context: PaidContext) => void | Promise<void>;

export interface PayButtonOptions<Req = Request> {
  /**
   * Base URL of the gateway, e.g. `https://openapi.bdpay.co.id` or the sandbox. Its answers decide
   * which orders are paid, so it must be `https:`, or plain `http:` to this machine (`localhost`,
   * 127.0.0.0/8, `[::1]`); anything else needs `allowInsecureGatewayUrl`.
   */
  readonly gatewayUrl: string;
  /**
   * Accept a plain-`http:` `gatewayUrl` to another host, for a network path that is entirely yours
   * (a private link, a TLS-terminating proxy on your side). Emits an `insecure_gateway_url` warning
   * (and a Node process warning) at start-up. Default `false`.
   */
  readonly allowInsecureGatewayUrl?: boolean;
  readonly merchantCode: string;
  /** The merchant's RSA private key (PKCS#8 PEM or a KeyObject). Never leaves the server. */
  readonly privateKey: KeyInput;
  /** The platform's public key, or several during a key rotation. */
  readonly platformPublicKey: KeyInput | readonly KeyInput[];
  /** The public origin of this server as the gateway and the browser reach it, e.g. `https://shop.example`. */
  readonly publicUrl: string;
  /**
   * The path the router is mounted at, as the gateway reaches it (default `/pay`, as in
   * `app.use('/pay', payButton(...))`). `publicUrl + mountPath` is the base of the signed
   * `notifyUrl` and `redirectUrl`, so it is needed before any request: `createPaymentLink()` works
   * from the start. Mounted elsewhere, say so here.
   */
  readonly mountPath?: string;
  readonly quote: QuoteFunction<Req>;
  readonly onPaid: OnPaidFunction;
  /**
   * How long one `onPaid` run holds its order before another process may take it over (ms,
   * default 60000). Only a run that stops renewing it (its process died or stalled for this long)
   * loses it.
   */
  readonly fulfilmentLeaseMs?: number;
  /** How often a running `onPaid` renews its lease (ms, default a third of `fulfilmentLeaseMs`). */
  readonly fulfilmentHeartbeatMs?: number;
  readonly database?: DatabaseOption;
  /** Origins besides this server's own that may call the browser routes (CORS + origin check). */
  readonly allowedOrigins?: readonly string[];
  /** Origins a payment `url` may point to; default: the gateway's origin only. */
  readonly paymentPageOrigins?: readonly string[];
  /** Minutes before an unpaid order expires, 30 to 7200; `quote()` may override per order. */
  readonly expiryPeriod?: number;
  /** Start of every order number, 0 to 8 upper-case letters or digits. */
  readonly orderNumPrefix?: string;
  /** zod schemas of the merchant's own body fields (`{ quantity: z.number().int().min(1) }`). */
  readonly fields?: Readonly<Record<string, z.ZodType>>;
  /** Per gateway call, covering connect, headers and body. */
  readonly timeoutMs?: number;
  /** For a whole create (every try, every wait). */
  readonly totalTimeoutMs?: number;
  /** Retries after the first try, on network errors, timeouts, 5xx, 429, UNKNOWN and ERROR. */
  readonly maxRetries?: number;
  /**
   * Order creations (`POST /links` and `POST /va` together) per client per window; `false` turns it
   * off (do it at your proxy then). A client is its IP address (an IPv6 /56) unless `key` names it:
   * behind a carrier's NAT thousands of customers share one IPv4 address, so the default `limit`
   * (300 a minute) is sized for that, and `key` lets a shop with sessions count per session.
   */
  readonly rateLimit?: RateLimitOptions<Req> | false;
  /** Largest JSON body of the browser routes, in bytes. */
  readonly bodyLimitBytes?: number;
  /** Largest notification body, in bytes. */
  readonly notifyBodyLimitBytes?: number;
  /** A pending order's status asks the gateway at most this often (ms); `false`: never. */
  readonly statusRefreshMs?: number | false;
  /** Path of the element's script-tag bundle, if not the installed `@tombolbayar/pay-button`. */
  readonly payButtonScript?: string;
  /**
   * Where the plug-in says what happens and what went wrong (every warning, refused notification,
   * gateway failure and `onPaid` failure, with its cause): any pino-compatible logger, e.g.
   * `logger.child({ module: 'pay' })`, or `false` for none. Default: pino to standard output,
   * human-readable in a terminal, JSON lines otherwise (`LOG_LEVEL` sets the level).
   */
  readonly logger?: LoggerLike | false;
  /**
   * At start, ask the gateway once (a signed query for an order that cannot exist) and log whether
   * it is reachable, knows the merchant, accepts its key and signs with the platform key given.
   * Default `true`; `ready()` resolves with the verdict.
   */
  readonly selfCheck?: boolean;
  /**
   * Requests the router works on at once in this process; past it a request is answered 503
   * `overloaded` with `Retry-After` at once instead of queueing. Default 32 (README: "Load shedding").
   */
  readonly maxInFlight?: number;
  /**
   * The sustained event-loop delay (ms) past which a request is answered 503 `overloaded` at once,
   * as past `maxInFlight`; `false` sheds on the bounds alone (a machine shared with other work on
   * purpose). Default 250 (README: "Load shedding").
   */
  readonly maxEventLoopDelayMs?: number | false;
  /**
   * The notification sweep: how this router finds a paid order whose notification was lost, by
   * asking the gateway about its pending orders that have a method chosen (one process at a time).
   * `false` turns it off. Defaults: a round every 15 s, an order first asked about at 15 s old,
   * then every quarter of its age, at most every 90 s; each round asks about every order due,
   * oldest first, within a budget of 25 gateway queries a second (status polls' included).
   */
  readonly sweep?: false | { readonly intervalMs?: number; readonly firstCheckAfterMs?: number; readonly maxCheckIntervalMs?: number; readonly queriesPerSecond?: number };
  /**
   * Customers' personal data (UU PDP): `retentionDays` after an order's last change (once paid and
   * fulfilled, expired or failed), its name, e-mail and phone are redacted in place by the sweep.
   * Default 90; `false` turns the pass off (then call `personalData.applyRetention()` yourself).
   */
  readonly personalData?: { readonly retentionDays?: number | false };
  /**
   * Prometheus metrics (`tombolbayar_plugin_*`) registered in your own prom-client `Registry`:
   * `metrics: { registry }`, then serve it with `metricsExpress(registry)` (or the helper of your
   * framework). Without it the plug-in measures nothing.
   */
  readonly metrics?: { readonly registry: Registry };
  /** The clock (ms since epoch); for tests and simulations. */
  readonly now?: () => number;
}

export interface ResolvedOptions {
  readonly gatewayUrl: URL;
  /** True when `gatewayUrl` is plain http to another host, accepted by `allowInsecureGatewayUrl`. */
  readonly insecureGatewayUrl: boolean;
  readonly merchantCode: string;
  readonly privateKey: KeyObject;
  readonly platformPublicKeys: readonly KeyObject[];
  readonly publicUrl: URL;
  readonly mountPath: string;
  readonly quote: QuoteFunction<never>;
  readonly onPaid: OnPaidFunction;
  readonly database: DatabaseOption;
  /**
   * Origins whose pages may call the browser routes: `publicUrl`'s and `allowedOrigins`, from the
   * configuration only (never the request's `Host`, which whoever sends the request chooses).
   */
  readonly browserOrigins: ReadonlySet<string>;
  readonly paymentPageOrigins: readonly string[];
  readonly expiryPeriod: number;
  readonly orderNumPrefix: string;
  readonly fields: Readonly<Record<string, z.ZodType>>;
  readonly timeoutMs: number;
  readonly totalTimeoutMs: number;
  readonly maxRetries: number;
  readonly retryBaseDelayMs: number;
  readonly retryMaxDelayMs: number;
  readonly rateLimit: { readonly windowMs: number; readonly limit: number; readonly key: RateLimitKey<never> | undefined } | false;
  readonly bodyLimitBytes: number;
  readonly notifyBodyLimitBytes: number;
  readonly statusRefreshMs: number | false;
  readonly fulfilmentLeaseMs: number;
  readonly fulfilmentHeartbeatMs: number;
  readonly payButtonScript: string | undefined;
  readonly logger: LoggerLike;
  readonly selfCheck: boolean;
  readonly maxInFlight: number;
  readonly maxEventLoopDelayMs: number | false;
  /** A request body must arrive within this (`internal/tuning.ts`). */
  readonly bodyReadTimeoutMs: number;
  readonly sweep: SweepSchedule | false;
  readonly retentionDays: number | false;
  /** The registry the metrics go to; `undefined`: no metrics. */
  readonly metricsRegistry: Registry | undefined;
  readonly now: () => number;
}

/** How long one `onPaid` run holds its order, unless `fulfilmentLeaseMs` says otherwise. */
export const DEFAULT_FULFILMENT_LEASE_MS = 60_000;

/** Requests worked on at once by default (README: "Load shedding"). */
export const DEFAULT_MAX_IN_FLIGHT = 32;

/** Where `payButton()` expects to be mounted unless told otherwise. */
export const DEFAULT_MOUNT_PATH = '/pay';

/** Body fields the router itself reads; `fields` cannot redefine them. */
export const RESERVED_FIELDS = ['item', 'method', 'idempotencyKey', 'returnTo', 'lang'] as const;

const optionsSchema = z
  .object({
    gatewayUrl: httpUrl('the gateway base URL, e.g. https://openapi.bdpay.co.id'),
    allowInsecureGatewayUrl: z.boolean({ error: 'must be true or false' }).optional(),
    merchantCode: merchantCodeField,
    privateKey: keyField(privateKeyMessage),
    platformPublicKey: z.unknown().superRefine((value, ctx) => {
      if (Array.isArray(value) && value.length === 0) {
        ctx.addIssue({ code: 'custom', message: "must list at least one of the platform's public keys" });
        return;
      }
      const keys: unknown[] = Array.isArray(value) ? value : [value];
      keys.forEach((key, index) => {
        const message = publicKeyMessage(key);
        if (message) ctx.addIssue({ code: 'custom', message, ...(Array.isArray(value) ? { path: [index] } : {}) });
      });
    }),
    publicUrl: httpUrl("this server's public base URL as the gateway reaches it, e.g. https://shop.example"),
    mountPath: z.string().regex(/^(\/|(\/[A-Za-z0-9._~-]+)+)$/, { error: 'must be the path the router is mounted at, e.g. "/pay"' }).optional(),
    quote: fn('is required: a function (req, body) => ({ payMoney, productDetail, name, email, phone }) that prices the order on the server'),
    onPaid: fn('is required: a function (order) => void that fulfils a paid order'),
    fulfilmentLeaseMs: z.number({ error: 'must be a whole number of milliseconds from 200 to 3600000' }).int().min(200, { error: 'must be at least 200 ms' }).max(3_600_000, { error: 'must be at most 3600000 ms (an hour)' }).optional(),
    fulfilmentHeartbeatMs: z.number({ error: 'must be a whole number of milliseconds, less than fulfilmentLeaseMs' }).int().min(50, { error: 'must be at least 50 ms' }).optional(),
    database: databaseField.optional(),
    allowedOrigins: z.array(originField).optional(),
    paymentPageOrigins: z.array(originField).optional(),
    expiryPeriod: z.number({ error: 'must be a number of minutes from 30 to 7200' }).int().min(30, { error: 'must be at least 30 minutes' }).max(7200, { error: 'must be at most 7200 minutes' }).optional(),
    orderNumPrefix: z.string().regex(/^[A-Z0-9]{0,8}$/, { error: 'must be 0 to 8 upper-case letters or digits' }).optional(),
    fields: z
      .record(z.string(), z.custom<z.ZodType>(isZodSchema, { error: 'must be a zod 4 schema (zod 3 schemas are not supported: install zod@4)' }), { error: 'must be an object of zod schemas' })
      .superRefine((fields, ctx) => {
        for (const name of Object.keys(fields)) {
          if ((RESERVED_FIELDS as readonly string[]).includes(name)) {
            ctx.addIssue({ code: 'custom', path: [name], message: `cannot redefine the router's own fields (${RESERVED_FIELDS.join(', ')})` });
          } else if (!/^[A-Za-z_][A-Za-z0-9_]{0,63}$/.test(name)) {
            ctx.addIssue({ code: 'custom', path: [name], message: 'field names must be identifiers' });
          }
        }
      })
      .optional(),
    timeoutMs: positiveMs('must be a whole number of milliseconds from 1 to 600000').optional(),
    totalTimeoutMs: positiveMs('must be a whole number of milliseconds from 1 to 600000').optional(),
    maxRetries: z.number({ error: 'must be a whole number from 0 to 10' }).int().min(0).max(10, { error: 'must be at most 10' }).optional(),
    rateLimit: z
      .union(
        [
          z.literal(false),
          z
            .object({
              windowMs: positiveMs('must be 1 to 600000 ms').optional(),
              limit: z.number().int().min(1).max(100_000).optional(),
              key: z.custom<RateLimitKey<never>>((value) => typeof value === 'function', { error: 'must be a function (req) => string | undefined' }).optional(),
            })
            .strict(),
        ],
        { error: 'must be false or { windowMs?, limit?, key? }' },
      )
      .optional(),
    bodyLimitBytes: z.number().int().min(256, { error: 'must be at least 256 bytes' }).max(1_048_576, { error: 'must be at most 1 MiB' }).optional(),
    notifyBodyLimitBytes: z.number().int().min(1024, { error: 'must be at least 1024 bytes' }).max(1_048_576, { error: 'must be at most 1 MiB' }).optional(),
    statusRefreshMs: z.union([z.literal(false), z.number().int().min(0).max(3_600_000)], { error: 'must be false or a number of milliseconds' }).optional(),
    payButtonScript: z.string().min(1).optional(),
    logger: z.union([z.literal(false), z.custom<LoggerLike>(isLoggerLike)], { error: 'must be a pino-compatible logger (with debug, info, warn and error methods) or false' }).optional(),
    selfCheck: z.boolean({ error: 'must be true or false' }).optional(),
    sweep: z
      .union([
        z.literal(false),
        z
          .object({
            intervalMs: positiveMs('must be a whole number of milliseconds from 1 to 600000').optional(),
            firstCheckAfterMs: positiveMs('must be a whole number of milliseconds from 1 to 600000').optional(),
            maxCheckIntervalMs: positiveMs('must be a whole number of milliseconds from 1 to 600000').optional(),
            queriesPerSecond: z.number({ error: 'must be a number of gateway queries a second from 0.1 to 1000' }).min(0.1).max(1_000).optional(),
          })
          .strict(),
      ], { error: 'must be false or { intervalMs?, firstCheckAfterMs?, maxCheckIntervalMs?, queriesPerSecond? }' })
      .optional(),
    maxInFlight: z.number({ error: 'must be a whole number from 1 to 100000' }).int().min(1).max(100_000, { error: 'must be at most 100000' }).optional(),
    maxEventLoopDelayMs: z.union([z.literal(false), z.number().int({ error: LOOP_DELAY_RULE }).min(1, { error: LOOP_DELAY_RULE }).max(600_000, { error: LOOP_DELAY_RULE })], { error: LOOP_DELAY_RULE }).optional(),
    personalData: z
      .object({
        retentionDays: z.union([z.literal(false), z.number().int().min(1).max(36_500)], { error: 'must be false or a whole number of days from 1 to 36500' }).optional(),
      }, { error: 'must be { retentionDays? }' })
      .strict()
      .optional(),
    metrics: metricsField.optional(),
    now: fn('must be a function returning milliseconds since the epoch').optional(),
  })
  .strict()
  .superRefine((options, ctx) => {
    const lease = options.fulfilmentLeaseMs ?? DEFAULT_FULFILMENT_LEASE_MS;
    if (options.fulfilmentHeartbeatMs !== undefined && options.fulfilmentHeartbeatMs >= lease) {
      ctx.addIssue({ code: 'custom', path: ['fulfilmentHeartbeatMs'], message: `must be less than fulfilmentLeaseMs (${lease} ms), so the lease is renewed before it runs out` });
    }
  });

const trimSlash = (value: string): string => value.replace(/\/+$/, '');

/** Check and complete the options; throws `PayButtonError('config_invalid')` listing every problem. */
/**
 * The channel rule (`gateway/channel.ts`) on the raw input, so it is listed beside the other
 * problems even when those keep the schema from parsing.
 */
function channelIssue(input: unknown): FieldIssue | undefined {
  const { gatewayUrl, allowInsecureGatewayUrl } = (typeof input === 'object' && input !== null ? input : {}) as Record<string, unknown>;
  if (typeof gatewayUrl !== 'string' || allowInsecureGatewayUrl === true || !URL.canParse(gatewayUrl)) return undefined;
  const url = new URL(gatewayUrl);
  if (url.protocol !== 'http:' || gatewayChannel(url) !== 'insecure') return undefined;
  return { field: 'gatewayUrl', message: INSECURE_GATEWAY_URL };
}

export function resolveOptions(input: unknown): ResolvedOptions {
  const parsed = parseStrict(optionsSchema, input, 'is not an option of payButton() (check the spelling)');
  const issues: FieldIssue[] = parsed.ok ? [] : [...parsed.issues];
  const channel = channelIssue(input);
  if (channel && !issues.some((issue) => issue.field === channel.field)) issues.push(channel);
  if (!parsed.ok || issues.length > 0) {
    const lines = issues.map((issue) => `  - ${issue.field}: ${issue.message}`).join('\n');
    throw new PayButtonError('config_invalid', `payButton(): fix these options:\n${lines}`, { issues });
  }
  const options = parsed.value;
  const gatewayUrl = new URL(trimSlash(options.gatewayUrl));
  const publicUrl = new URL(trimSlash(options.publicUrl));
  const keys = Array.isArray(options.platformPublicKey) ? options.platformPublicKey : [options.platformPublicKey];
  const timeoutMs = options.timeoutMs ?? 10_000;
  const tuning = tuningOf(input);
  const lease = options.fulfilmentLeaseMs ?? DEFAULT_FULFILMENT_LEASE_MS;
  return {
    gatewayUrl,
    insecureGatewayUrl: gatewayChannel(gatewayUrl) === 'insecure',
    merchantCode: options.merchantCode,
    privateKey: toPrivateKey(options.privateKey as KeyInput),
    platformPublicKeys: keys.map((key) => toPublicKey(key as KeyInput)),
    publicUrl,
    mountPath: options.mountPath ?? DEFAULT_MOUNT_PATH,
    quote: options.quote as QuoteFunction<never>,
    onPaid: options.onPaid as OnPaidFunction,
    database: (options.database as DatabaseOption | undefined) ?? { kind: 'sqlite', file: defaultSqliteFile() },
    browserOrigins: new Set([publicUrl.origin, ...(options.allowedOrigins ?? []).map(trimSlash)]),
    paymentPageOrigins: (options.paymentPageOrigins ?? [gatewayUrl.origin]).map(trimSlash),
    expiryPeriod: options.expiryPeriod ?? 60,
    orderNumPrefix: options.orderNumPrefix ?? 'PB',
    fields: options.fields ?? {},
    timeoutMs,
    totalTimeoutMs: options.totalTimeoutMs ?? Math.max(timeoutMs, 30_000),
    maxRetries: options.maxRetries ?? 2,
    retryBaseDelayMs: tuning.retryBaseDelayMs,
    retryMaxDelayMs: tuning.retryMaxDelayMs,
    bodyReadTimeoutMs: tuning.bodyReadTimeoutMs,
    rateLimit: options.rateLimit === false ? false : { windowMs: options.rateLimit?.windowMs ?? 60_000, limit: options.rateLimit?.limit ?? DEFAULT_RATE_LIMIT, key: options.rateLimit?.key },
    bodyLimitBytes: options.bodyLimitBytes ?? 8 * 1024,
    notifyBodyLimitBytes: options.notifyBodyLimitBytes ?? 16 * 1024,
    statusRefreshMs: options.statusRefreshMs ?? 10_000,
    fulfilmentLeaseMs: lease,
    fulfilmentHeartbeatMs: options.fulfilmentHeartbeatMs ?? Math.max(50, Math.floor(lease / 3)),
    payButtonScript: options.payButtonScript,
    logger: options.logger === false ? SILENT_LOGGER : ((options.logger as LoggerLike | undefined) ?? sharedDefaultLogger()),
    selfCheck: options.selfCheck ?? true,
    maxInFlight: options.maxInFlight ?? DEFAULT_MAX_IN_FLIGHT,
    maxEventLoopDelayMs: options.maxEventLoopDelayMs ?? SHED_EVENT_LOOP_DELAY_MS,
    sweep: options.sweep === false ? false : { ...DEFAULT_SWEEP, ...options.sweep },
    retentionDays: options.personalData?.retentionDays ?? DEFAULT_RETENTION_DAYS,
    metricsRegistry: options.metrics?.registry as Registry | undefined,
    now: (options.now as (() => number) | undefined) ?? Date.now,
  };
}
