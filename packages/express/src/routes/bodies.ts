/**
 * What the browser may send, strictly: the router's own fields plus the merchant's declared
 * `fields`, nothing else (an unknown key is named and refused: no mass assignment). No price:
 * there is no field a browser could put one in.
 */
import { METHOD_CODES, optionalMethodField, resolveMethod, type MethodCode } from '@paybutton/protocol';
import type { Request } from 'express';
import { z } from 'zod';
import type { Context } from '../context.ts';
import { PayButtonError, invalidRequest } from '../errors.ts';
import { allowedOrigins } from '../http/guards.ts';
import { parseStrict } from '../validation.ts';

const idempotencyKeyField = z
  .string({ error: (issue) => (issue.input === undefined ? 'is required: a random key per checkout attempt, e.g. crypto.randomUUID()' : 'must be a string') })
  .regex(/^[A-Za-z0-9_-]{16,128}$/, { error: 'must be 16 to 128 letters, digits, "-" or "_" (e.g. crypto.randomUUID())' });

const itemField = z
  .string({ error: 'must be a string' })
  .min(1, { error: 'must not be empty' })
  .max(128, { error: 'must be at most 128 characters' })
  .optional();

const returnToField = z.string({ error: 'must be a string' }).max(2048, { error: 'must be at most 2048 characters' }).optional();

const vaMethodField = z
  .string({ error: (issue) => (issue.input === undefined ? `is required: one of ${METHOD_CODES.join(', ')}` : 'must be a string') })
  .transform((value, ctx): MethodCode => {
    const code = resolveMethod(value);
    if (code) return code;
    ctx.addIssue({ code: 'custom', message: `must be one of ${METHOD_CODES.join(', ')}` });
    return z.NEVER;
  });

export interface LinkBody {
  readonly idempotencyKey: string;
  readonly item?: string | undefined;
  readonly method?: MethodCode | null | undefined;
  readonly returnTo?: string | undefined;
  readonly [field: string]: unknown;
}

export interface VaBody {
  readonly idempotencyKey: string;
  readonly item?: string | undefined;
  readonly method: MethodCode;
  readonly [field: string]: unknown;
}

export function linkBodySchema(fields: Readonly<Record<string, z.ZodType>>) {
  return z.object({ ...fields, idempotencyKey: idempotencyKeyField, item: itemField, method: optionalMethodField.optional(), returnTo: returnToField }, { error: 'must be a JSON object' }).strict();
}

export function vaBodySchema(fields: Readonly<Record<string, z.ZodType>>) {
  return z.object({ ...fields, idempotencyKey: idempotencyKeyField, item: itemField, method: vaMethodField }, { error: 'must be a JSON object' }).strict();
}

export function parseBody<T>(schema: z.ZodType, input: unknown): T {
  const parsed = parseStrict(schema, input);
  if (!parsed.ok) throw invalidRequest(parsed.issues);
  return parsed.value as T;
}

/**
 * The page to send a full-page flow back to: `returnTo` if given, else the Referer; either must
 * be an http(s) page of an allowed origin, and of the request's own Origin when it has one. An
 * explicit `returnTo` that fails is an error; a Referer that fails is ignored.
 */
export function resolveReturnTo(context: Context, req: Request, returnTo: string | undefined): string | null {
  const origins = allowedOrigins(context, req);
  const requestOrigin = req.get('origin');
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
    return url.href;
  };
  if (returnTo !== undefined) {
    const accepted = accept(returnTo);
    if (!accepted) {
      throw new PayButtonError('invalid_request', 'returnTo: must be an absolute URL of a page on this site (same origin as the page making the request)', {
        issues: [{ field: 'returnTo', message: 'must be an absolute URL of a page on this site (same origin as the page making the request)' }],
      });
    }
    return accepted;
  }
  const referer = req.get('referer');
  return referer ? (accept(referer) ?? null) : null;
}
