/**
 * The rules `options.ts` checks each option with, one zod piece per kind of value: keys (named,
 * never echoed), URLs and origins, durations, the database choice. Kept apart so `options.ts`
 * reads as the list of options and what becomes of them.
 */
import type { KeyObject } from 'node:crypto';
import { requestKeySizeProblem, SignatureKeyError, toPrivateKey, toPublicKey } from '@tombolbayar/protocol/node';
import { z } from 'zod';
import { SCHEMA_NAME } from './store/database.ts';

const isKeyObject = (value: unknown): value is KeyObject =>
  typeof value === 'object' && value !== null && typeof (value as KeyObject).export === 'function' && 'asymmetricKeyType' in value;

export function privateKeyMessage(value: unknown): string | undefined {
  if (typeof value === 'string' && /PUBLIC KEY-----/.test(value)) return "is a public key; pass the merchant's private key (-----BEGIN PRIVATE KEY-----)";
  if (typeof value !== 'string' && !isKeyObject(value)) return 'is required: the merchant\'s RSA private key as PKCS#8 PEM (-----BEGIN PRIVATE KEY-----) or a KeyObject';
  try {
    // A key too large for the family's 512-character sign would fail every create: said now, at start.
    const tooLarge = requestKeySizeProblem(toPrivateKey(value));
    return tooLarge;
  } catch (error) {
    if (error instanceof SignatureKeyError && /RSA/.test(error.message)) return 'must be an RSA key';
    return 'is not a usable private key: give the PEM text (-----BEGIN PRIVATE KEY-----...), not a file path or a base64 fragment';
  }
}

export function publicKeyMessage(value: unknown): string | undefined {
  if (typeof value === 'string' && /PRIVATE KEY-----/.test(value)) {
    return "is a private key: pass the platform's PUBLIC key (-----BEGIN PUBLIC KEY-----); a private key never belongs here";
  }
  if (isKeyObject(value) && value.type === 'private') return "is a private KeyObject: pass the platform's public key";
  if (typeof value !== 'string' && !isKeyObject(value)) return "is required: the platform's RSA public key as SPKI PEM (-----BEGIN PUBLIC KEY-----)";
  try {
    toPublicKey(value);
    return undefined;
  } catch {
    return 'is not a usable public key: give the PEM text (-----BEGIN PUBLIC KEY-----...)';
  }
}

export const keyField = (check: (value: unknown) => string | undefined) =>
  z.unknown().superRefine((value, ctx) => {
    const message = check(value);
    if (message) ctx.addIssue({ code: 'custom', message });
  });

export const httpUrl = (what: string) =>
  z
    .string({ error: `is required: ${what}` })
    .refine(
      (value) => {
        try {
          const url = new URL(value);
          return (url.protocol === 'https:' || url.protocol === 'http:') && !url.search && !url.hash && !url.username && !url.password;
        } catch {
          return false;
        }
      },
      { error: `must be an absolute http(s) URL without query, fragment or credentials: ${what}` },
    );

export const originField = z.string().refine(
  (value) => {
    try {
      const url = new URL(value);
      return (url.protocol === 'https:' || url.protocol === 'http:') && url.origin === value.replace(/\/$/, '');
    } catch {
      return false;
    }
  },
  { error: 'must be an origin: scheme, host and optional port, e.g. https://shop.example' },
);

export const positiveMs = (rule: string) => z.number({ error: rule }).int({ error: rule }).min(1, { error: rule }).max(600_000, { error: rule });

export const databaseField = z.union(
  [
    z.object({ kind: z.literal('sqlite'), file: z.string().min(1, { error: 'must name a file' }) }).strict(),
    z.object({
      kind: z.literal('postgres'),
      url: z.string().regex(/^postgres(ql)?:\/\//, { error: 'must be a postgres:// URL' }),
      schema: z.string().regex(SCHEMA_NAME, { error: 'must be a plain identifier (letters, digits, underscore)' }).optional(),
      maxConnections: z.number().int().min(1).max(100).optional(),
      connectTimeoutMs: z.number().int().min(1).max(600_000).optional(),
      statementTimeoutMs: z.number().int().min(1).max(600_000).optional(),
      queryTimeoutMs: z.number().int().min(1).max(600_000).optional(),
      idleInTransactionTimeoutMs: z.number().int().min(1).max(600_000).optional(),
      keepAliveInitialDelayMs: z.number().int().min(1).max(600_000).optional(),
    }).strict(),
    z.object({
      kind: z.literal('postgres'),
      pool: z.custom<import('pg').Pool>((value) => typeof (value as { query?: unknown })?.query === 'function', { error: 'must be a pg.Pool' }),
      schema: z.string().regex(SCHEMA_NAME, { error: 'must be a plain identifier (letters, digits, underscore)' }).optional(),
    }).strict(),
    z.object({
      kind: z.literal('kysely'),
      db: z.custom<import('kysely').Kysely<any>>((value) => typeof (value as { selectFrom?: unknown })?.selectFrom === 'function', { error: 'must be a Kysely instance' }),
      engine: z.enum(['sqlite', 'postgres'], { error: 'must be "sqlite" or "postgres"' }),
      schema: z.string().regex(SCHEMA_NAME, { error: 'must be a plain identifier (letters, digits, underscore)' }).optional(),
    }).strict(),
  ],
  { error: 'must be { kind: "sqlite", file }, { kind: "postgres", url | pool, schema? } or { kind: "kysely", db, engine }' },
);

export const fn = (rule: string) => z.custom<(...args: any[]) => unknown>((value) => typeof value === 'function', { error: rule });

/** What the plug-in uses of a prom-client `Registry` (any copy of prom-client 15 has these). */
const isRegistry = (value: unknown): boolean =>
  typeof value === 'object' && value !== null
  && ['registerMetric', 'getSingleMetric', 'metrics'].every((name) => typeof (value as Record<string, unknown>)[name] === 'function')
  && typeof (value as { contentType?: unknown }).contentType === 'string';

export const metricsField = z
  .object({
    registry: z.custom<unknown>(isRegistry, { error: "is required: a prom-client Registry (import { Registry } from 'prom-client'; metrics: { registry: new Registry() })" }),
  }, { error: 'must be { registry }, with a prom-client Registry' })
  .strict();
