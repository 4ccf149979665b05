/**
 * `createGateway` options: their types, their zod schema, and the defaults. Invalid options throw
 * a GatewayConfigError naming the option and the rule, never echoing a value (keys are secrets).
 */
import { KeyObject } from 'node:crypto';
import type { LookupFunction } from 'node:net';
import { dirname, join, resolve } from 'node:path';
import { merchantCodeField, parseWith, type MethodCode } from '@tombolbayar/protocol';
import type { Logger } from 'pino';
import type { Registry } from 'prom-client';
import { z } from 'zod';
import { feeTableOptionSchema, limitTableOptionSchema, type AmountLimit, type FeeRule } from './domain/pricing.ts';
import { NOTIFICATION_KINDS, NOTIFY_RULE, type NotificationKind } from './domain/notify-kinds.ts';
import { leaseTooShort } from './notify/lease.ts';
import { currentOrLegacyPath, type PostgresDeadlines } from '@tombolbayar/store-kit';
import type { DatabaseConfig } from './store/database.ts';

/** The rule of `maxEventLoopDelayMs`, said whatever part of it a value breaks. */
const LOOP_DELAY_RULE = 'must be false or a whole number of milliseconds from 1 to 600000';

export interface MerchantRegistration {
  readonly merchantCode: string;
  /** SPKI (or PKCS#1) PEM public key of the merchant. */
  readonly publicKey: string;
  /** Shown to customers on the hosted page and in QRIS codes; defaults to the code. */
  readonly name?: string;
  /**
   * The final states it is notified of: `['paid']` for a new merchant (what the family sends),
   * `'failed'` and `'expired'` on request; `'paid'` is always among them. Absent: a merchant
   * already registered keeps what it has (set by `merchant update --notify` or the dashboard).
   */
  readonly notify?: readonly NotificationKind[];
}

export interface GatewayOptions {
  /** Default: SQLite file `gateway.sqlite` in `dataDir`. */
  database?: { kind: 'sqlite'; file: string } | ({ kind: 'postgres'; url: string; schema?: string; maxConnections?: number } & PostgresDeadlines);
  /** Default `./.tombolbayar/gateway`. */
  dataDir?: string;
  /** The platform's RSA private key (PEM or KeyObject): signs every response and notification. */
  platformPrivateKey: string | KeyObject;
  /** Registered, or updated, when the gateway starts. */
  merchants?: readonly MerchantRegistration[];
  /**
   * Base of hosted-page links, and the origin the page's and the sandbox's forms must come from.
   * Default: the URL `listen` bound; for an app mounted in a server of yours, the address and port
   * a request's socket arrived at. Never the request's Host header. Behind a proxy, set it.
   */
  publicUrl?: string;
  /** Sandbox mode: simulate routes and buttons, fault injection, http and loopback callbacks. */
  sandbox?: boolean;
  /** Multiplies every notification retry delay; default 1. */
  timeScale?: number;
  /** Per-method fee overrides; see README for the defaults. */
  fees?: Partial<Record<MethodCode, FeeRule>>;
  /** Per-method payMoney limit overrides; see README for the defaults. */
  limits?: Partial<Record<MethodCode, AmountLimit>>;
  /** A pino logger, `false` for none; default: pino at `LOG_LEVEL` or info, to stdout. */
  logger?: Logger | false;
  /** The time source (epoch ms); the sandbox clock adds its offset to it. */
  now?: () => number;
  /** Tuning of the notification worker. */
  notifications?: {
    /** Default 1000 ms; the worker is also woken whenever this process queues a notification. */
    pollIntervalMs?: number;
    /**
     * How long a worker's claim on a notification lasts, on real time (the sandbox clock does not
     * shorten it). At least `timeoutMs` + 10 000 ms; default 60 000 ms, or that when it is more.
     */
    leaseMs?: number;
    /** Per attempt; default 10 000 ms. */
    timeoutMs?: number;
    /** Deliveries in flight at once in this process; a freed slot claims the next due one. Default 10. */
    concurrency?: number;
    /** DNS lookup used for deliveries (tests inject one). */
    lookup?: LookupFunction;
    /** false: do not run a worker in this process (another process delivers). Default true. */
    worker?: boolean;
    /** The longest one worker round may wait on the database before a fresh one starts. Default 30 000 ms. */
    roundDeadlineMs?: number;
  };
  /**
   * Requests worked on at once in this process; past it the gateway answers 503 with
   * `Retry-After` at once instead of queueing (health routes are never refused). Default 64.
   */
  maxInFlight?: number;
  /**
   * The sustained event-loop delay (ms) past which arriving requests are answered 503 at once, as
   * for `maxInFlight`; `false` sheds on the bounds alone (a machine shared with other work on
   * purpose). Default 250.
   */
  maxEventLoopDelayMs?: number | false;
  /**
   * The whole request (headers and body) must arrive within this, or the server `listen()` starts
   * answers 408 and closes the connection: a slow body holds no slot past it. Default 10 000 ms.
   */
  requestTimeoutMs?: number;
  /** How often overdue orders are expired in the background; default 15 000 ms. */
  expirySweepIntervalMs?: number;
  /**
   * Customers' personal data (UU PDP): `retentionDays` after an order ended (paid, expired or
   * failed), its name, e-mail and phone are redacted in place, with its notifications' copies, by
   * the expiry sweep under a lease (one process). Default 90; `false` turns the pass off.
   */
  personalData?: { retentionDays?: number | false };
  /**
   * Prometheus metrics (issue 34): registered in `registry` (default: a new prom-client Registry of
   * the gateway's own, never the global one), exposed as `gateway.metrics` and served at
   * `GET /metrics` to a loopback peer without `Forwarded`/`X-Forwarded-For`, or to
   * `Authorization: Bearer <token>`. `false`: no metrics, no route, no cost. Default: on.
   */
  metrics?: { registry?: Registry; token?: string } | false;
}

export class GatewayConfigError extends Error {
  override readonly name = 'GatewayConfigError';
}

const positiveMs = z.number().int().positive().max(86_400_000);

const optionsSchema = z.object({
  database: z
    .discriminatedUnion('kind', [
      z.object({ kind: z.literal('sqlite'), file: z.string().min(1) }).strict(),
      z
        .object({
          kind: z.literal('postgres'),
          url: z.string().regex(/^postgres(ql)?:\/\//, { error: 'must be a postgres:// URL' }),
          schema: z.string().regex(/^[A-Za-z_][A-Za-z0-9_]{0,62}$/, { error: 'must be a plain identifier' }).optional(),
          maxConnections: z.number().int().min(1).max(1_000).optional(),
          connectTimeoutMs: positiveMs.optional(),
          statementTimeoutMs: positiveMs.optional(),
          queryTimeoutMs: positiveMs.optional(),
          idleInTransactionTimeoutMs: positiveMs.optional(),
          keepAliveInitialDelayMs: positiveMs.optional(),
        })
        .strict(),
    ])
    .optional(),
  dataDir: z.string().min(1).optional(),
  platformPrivateKey: z.union([z.string().min(1), z.custom<KeyObject>((value) => value instanceof KeyObject)], {
    error: 'must be a PEM private key or a KeyObject',
  }),
  merchants: z
    .array(
      z.object({
        merchantCode: z.string(),
        publicKey: z.string({ error: 'must be a PEM public key' }).min(1),
        name: z.string().min(1).max(64).optional(),
        notify: z
          .array(z.enum(NOTIFICATION_KINDS, { error: NOTIFY_RULE }), { error: NOTIFY_RULE })
          .refine((kinds) => kinds.includes('paid'), { error: NOTIFY_RULE })
          .optional(),
      }),
    )
    .optional(),
  publicUrl: z.url({ protocol: /^https?$/, error: 'must be an absolute http or https URL' }).optional(),
  sandbox: z.boolean().optional(),
  timeScale: z.number().positive().max(1_000).optional(),
  fees: feeTableOptionSchema.optional(),
  limits: limitTableOptionSchema.optional(),
  logger: z.unknown().optional(),
  now: z.custom<() => number>((value) => typeof value === 'function', { error: 'must be a function returning epoch ms' }).optional(),
  notifications: z
    .object({
      pollIntervalMs: positiveMs.optional(),
      leaseMs: positiveMs.optional(),
      timeoutMs: positiveMs.optional(),
      concurrency: z.number().int().min(1).max(100).optional(),
      lookup: z.custom<LookupFunction>((value) => typeof value === 'function').optional(),
      worker: z.boolean().optional(),
      roundDeadlineMs: positiveMs.optional(),
    })
    .strict()
    // A lease that ended mid-attempt would let a second worker deliver the same notification.
    .superRefine((notifications, ctx) => {
      if (notifications.leaseMs === undefined) return;
      const problem = leaseTooShort(notifications.leaseMs, notifications.timeoutMs);
      if (problem) ctx.addIssue({ code: 'custom', path: ['leaseMs'], message: problem });
    })
    .optional(),
  expirySweepIntervalMs: positiveMs.optional(),
  maxInFlight: z.number().int().min(1).max(100_000).optional(),
  maxEventLoopDelayMs: z.union([z.literal(false), z.number().int({ error: LOOP_DELAY_RULE }).min(1, { error: LOOP_DELAY_RULE }).max(600_000, { error: LOOP_DELAY_RULE })], { error: LOOP_DELAY_RULE }).optional(),
  personalData: z
    .object({ retentionDays: z.union([z.literal(false), z.number().int().min(1).max(36_500)], { error: 'must be false or a whole number of days from 1 to 36500' }).optional() })
    .strict()
    .optional(),
  requestTimeoutMs: z.number().int().min(100).max(600_000).optional(),
  metrics: z
    .union([
      z.literal(false),
      z
        .object({
          // Duck-typed: an application may hold another copy of prom-client than ours.
          registry: z
            .custom<Registry>((value) => typeof (value as Registry | null)?.registerMetric === 'function' && typeof (value as Registry).metrics === 'function', {
              error: 'must be a prom-client Registry',
            })
            .optional(),
          token: z.string().regex(/^[\x21-\x7e]{1,512}$/, { error: 'must be 1 to 512 visible ASCII characters (no spaces)' }).optional(),
        })
        .strict(),
    ])
    .optional(),
});

export const DEFAULT_DATA_DIR = './.tombolbayar/gateway';
/** Where an earlier version kept its data by default: still read, for one version, when only it exists. */
export const EARLIER_DEFAULT_DATA_DIR = './.paybutton/gateway';

/** The default data folder: the current one, or the earlier version's while only that exists (said once). */
export function defaultDataDir(): string {
  return currentOrLegacyPath(DEFAULT_DATA_DIR, EARLIER_DEFAULT_DATA_DIR, "the gateway's data (keys and store)");
}
export const SQLITE_FILE_NAME = 'gateway.sqlite';

export type ResolvedOptions = Omit<z.output<typeof optionsSchema>, 'database' | 'dataDir'> & {
  readonly database: DatabaseConfig;
  readonly dataDir: string;
};

/** Validate the options and fill in the defaults. */
export function resolveOptions(options: GatewayOptions): ResolvedOptions {
  const parsed = parseWith(optionsSchema, options);
  if (!parsed.ok) throw new GatewayConfigError(`invalid gateway options: ${parsed.message}`);
  for (const [index, merchant] of (parsed.value.merchants ?? []).entries()) {
    const code = parseWith(merchantCodeField, merchant.merchantCode);
    if (!code.ok) throw new GatewayConfigError(`invalid gateway options: merchants.${index}.merchantCode: ${code.message.replace(/^body: /, '')}`);
  }
  const dataDir = resolve(parsed.value.dataDir ?? defaultDataDir());
  return { ...parsed.value, dataDir, database: databaseIn(dataDir, parsed.value.database) };
}

/**
 * The database to open: the one configured, or SQLite in the data directory. A SQLite file
 * directly in the data directory marks that folder as the gateway's own (tightened to 0700 if an
 * older version left it wider); any other folder is the operator's and left as it is.
 */
export function databaseIn(dataDir: string, database: GatewayOptions['database']): DatabaseConfig {
  if (!database) return { kind: 'sqlite', file: join(dataDir, SQLITE_FILE_NAME), ownsFolder: true };
  if (database.kind !== 'sqlite' || database.file === ':memory:') return database;
  return { ...database, ownsFolder: dirname(resolve(database.file)) === resolve(dataDir) };
}
