/**
 * `GET /pay-button.js` (and `GET /pay-va.js`, the `<pay-va>` bundle that imports it): the
 * element's script-tag bundles, served from the element package's build (or next to the
 * `payButtonScript` path), with an ETag and revalidated on every load (`REVALIDATE`). When a bundle is missing, a 503 says what
 * to install (the plug-in depends on `@tombolbayar/pay-button`, whose package ships the bundles).
 * The chunks they import are `script-chunks.ts`.
 */
import { createHash } from 'node:crypto';
import { readFile, stat } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import type { CoreRequest, RouteHandler } from '../http/context.ts';
import { textAnswer } from '../http/respond.ts';
import { answer, type Answer } from '../http/answer.ts';

export const SCRIPT_SPECIFIER = '@tombolbayar/pay-button/dist/pay-button.js';

/** Where a bundle is expected; `undefined` when the element package is not installed. */
export function resolveScriptPath(explicit: string | undefined, specifier = SCRIPT_SPECIFIER): string | undefined {
  if (explicit) return explicit;
  try {
    return fileURLToPath(import.meta.resolve(specifier));
  } catch {
    return undefined;
  }
}

export interface Loaded {
  readonly path: string;
  readonly mtimeMs: number;
  readonly size: number;
  readonly content: Buffer;
  readonly hash: string;
}

export interface ScriptSource {
  /** The bundle, re-read when the file changes; `undefined` when it does not exist. */
  load(): Promise<Loaded | undefined>;
}

export function scriptSource(explicit: string | undefined, specifier = SCRIPT_SPECIFIER): ScriptSource {
  let cached: Loaded | undefined;
  return {
    async load() {
      const path = resolveScriptPath(explicit, specifier);
      if (!path) return undefined;
      let info;
      try {
        info = await stat(path);
      } catch {
        return undefined;
      }
      if (!info.isFile()) return undefined;
      if (cached && cached.path === path && cached.mtimeMs === info.mtimeMs && cached.size === info.size) return cached;
      const content = await readFile(path);
      cached = { path, mtimeMs: info.mtimeMs, size: info.size, content, hash: createHash('sha256').update(content).digest('base64url').slice(0, 16) };
      return cached;
    },
  };
}

/** A year, never revalidated: for a URL that names one content for good (a hashed chunk). */
export const IMMUTABLE = 'public, max-age=31536000, immutable';

/** The 503 for a bundle or chunk that is not there, saying what to install. */
export function missingScript(name: string): Answer {
  return textAnswer(
    503,
    `${name} was not found: install the element package (\`npm install @tombolbayar/pay-button\`), or point the \`payButtonScript\` option at the file, then reload.`,
    { 'X-Content-Type-Options': 'nosniff', 'Cache-Control': 'no-store' },
  );
}

/** A loaded file as JavaScript with an ETag (a `304` when the browser has it), cached as told. */
export function scriptAnswer(request: CoreRequest, loaded: Loaded, cacheControl: string): Answer {
  const etag = `"${loaded.hash}"`;
  const headers = {
    'X-Content-Type-Options': 'nosniff',
    ETag: etag,
    'Cache-Control': cacheControl,
    // Module scripts are fetched with CORS; the bundle is public code.
    'Access-Control-Allow-Origin': '*',
    'Cross-Origin-Resource-Policy': 'cross-origin',
  };
  if (request.headers.get('if-none-match') === etag) return answer(304, null, headers);
  return answer(200, loaded.content, { ...headers, 'Content-Type': 'text/javascript; charset=utf-8' });
}

/**
 * The bundles are revalidated on every load (a `304` while unchanged): `pay-va.js` and the chunks
 * import `./pay-button.js` by that very URL, so it must be one URL (a `?v=` copy would run as a
 * second module), and a cached copy older than an upgrade would ask for chunks the upgrade removed.
 * What is heavy and never changes under its name, the hashed chunks, is cached for a year.
 */
export const REVALIDATE = 'no-cache';

export function scriptHandler(source: ScriptSource, name = 'pay-button.js'): RouteHandler {
  return async (request) => {
    const loaded = await source.load();
    if (!loaded) return missingScript(name);
    return scriptAnswer(request, loaded, REVALIDATE);
  };
}
