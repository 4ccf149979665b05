/**
 * What the browser may send, strictly: the router's own fields plus the merchant's declared
 * `fields`, nothing else (an unknown key is named and refused: no mass assignment). No price:
 * there is no field a browser could put one in.
 */
import { METHOD_CODES, methodOrAliasField, optionalMethodField, type MethodCode } from '@tombolbayar/protocol';
import { z } from 'zod';
import { PayButtonError, invalidRequest } from '../errors.ts';
import { parseStrict } from '../validation.ts';
import type { CoreRequest } from '../http/context.ts';
import { RETURN_LOCALES, type ReturnLocale } from './return-page.ts';

const idempotencyKeyField = z
  .string({ error: (issue) => (issue.input === undefined ? 'is required: a random key per checkout attempt, e.g. crypto.randomUUID()' : 'must be a string') })
  .regex(/^[A-Za-z0-9_-]{16,128}$/, { error: 'must be 16 to 128 letters, digits, "-" or "_" (e.g. crypto.randomUUID())' });

const itemField = z
  .string({ error: 'must be a string' })
  .min(1, { error: 'must not be empty' })
  .max(128, { error: 'must be at most 128 characters' })
  // Stored with the order: PostgreSQL text cannot hold U+0000, and no SKU needs a control character.
  .regex(/^[^\u0000-\u001f\u007f]*$/, { error: 'must not contain control characters' })
  .optional();

/** The longest page address kept for the full-page return (`returnTo`, or the Referer). */
export const MAX_RETURN_TO_LENGTH = 2048;

/** The element's locale: the return page speaks it (the browser's Accept-Language may be another). */
const langField = z.enum(RETURN_LOCALES, { error: `must be one of ${RETURN_LOCALES.join(', ')}` }).optional();

const returnToField = z.string({ error: 'must be a string' }).max(MAX_RETURN_TO_LENGTH, { error: `must be at most ${MAX_RETURN_TO_LENGTH} characters` }).optional();

/** The protocol's rule (a code or its alias, normalised); only the "missing" message says more here. */
const vaMethodField = z
  .string({ error: (issue) => (issue.input === undefined ? `is required: one of ${METHOD_CODES.join(', ')}` : 'must be a string') })
  .pipe(methodOrAliasField);

export interface LinkBody {
  readonly idempotencyKey: string;
  readonly item?: string | undefined;
  readonly method?: MethodCode | null | undefined;
  readonly returnTo?: string | undefined;
  readonly lang?: ReturnLocale | undefined;
  readonly [field: string]: unknown;
}

export interface VaBody {
  readonly idempotencyKey: string;
  readonly item?: string | undefined;
  readonly method: MethodCode;
  /** The customer's language, for a refusal's words (`already_paid`); not part of what was bought. */
  readonly lang?: ReturnLocale | undefined;
  readonly [field: string]: unknown;
}

export function linkBodySchema(fields: Readonly<Record<string, z.ZodType>>) {
  return z.object({ ...fields, idempotencyKey: idempotencyKeyField, item: itemField, method: optionalMethodField.optional(), returnTo: returnToField, lang: langField }, { error: 'must be a JSON object' }).strict();
}

export function vaBodySchema(fields: Readonly<Record<string, z.ZodType>>) {
  return z.object({ ...fields, idempotencyKey: idempotencyKeyField, item: itemField, method: vaMethodField, lang: langField }, { error: 'must be a JSON object' }).strict();
}

export function parseBody<T>(schema: z.ZodType, input: unknown): T {
  const parsed = parseStrict(schema, input);
  if (!parsed.ok) throw invalidRequest(parsed.issues);
  return parsed.value as T;
}

/**
 * The page to send a full-page flow back to: `returnTo` if given, else the Referer; either must
 * be an http(s) page of a configured origin (`publicUrl`, `allowedOrigins`: never one derived from
 * the request's `Host`), and of the request's own Origin when it has one. An
 * explicit `returnTo` that fails is an error; a Referer that fails is ignored.
 */
export function resolveReturnTo(origins: ReadonlySet<string>, request: CoreRequest, returnTo: string | undefined): string | null {
  const requestOrigin = request.headers.get('origin') ?? undefined;
  const accept = (candidate: string): string | undefined => {
    let url: URL;
    try {
      url = new URL(candidate);
    } catch {
      return undefined;
    }
    if (url.protocol !== 'https:' && url.protocol !== 'http:') return undefined;
    if (url.username || url.password) return undefined;
    if (!origins.has(url.origin)) return undefined;
    if (requestOrigin !== undefined && url.origin !== requestOrigin) return undefined;
    url.hash = '';
    // Normalising may lengthen it (percent-encoding): the limit is on what is stored.
    return url.href.length <= MAX_RETURN_TO_LENGTH ? url.href : undefined;
  };
  if (returnTo !== undefined) {
    const accepted = accept(returnTo);
    if (!accepted) {
      const message = `must be an absolute URL of a page on this site (same origin as the page making the request), at most ${MAX_RETURN_TO_LENGTH} characters once encoded`;
      throw new PayButtonError('invalid_request', `returnTo: ${message}`, { issues: [{ field: 'returnTo', message }] });
    }
    return accepted;
  }
  // The Referer is a header nobody validated: an overlong one is ignored, like a foreign one.
  const referer = request.headers.get('referer');
  return referer && referer.length <= MAX_RETURN_TO_LENGTH ? (accept(referer) ?? null) : null;
}
