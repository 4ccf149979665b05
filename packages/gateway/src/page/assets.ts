/**
 * The page's stylesheet and its one client script. The script's source is TypeScript
 * (`client/*.ts`); esbuild bundles it once per process, on first use, and the result is kept in
 * memory. If the build fails the page is served without it: everything still works with forms
 * and links, only the enhancements (live countdown, copy, polling, auto-return) are missing.
 */
import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';

export interface Asset {
  readonly body: string;
  /** Short content hash, used as the `v` query parameter so assets can be cached for good. */
  readonly version: string;
}

export interface PageAssets {
  readonly css: Asset;
  readonly js: Asset | undefined;
}

const CLIENT_ENTRY = fileURLToPath(new URL('./client/page.ts', import.meta.url));
const STYLESHEET = fileURLToPath(new URL('./assets/page.css', import.meta.url));

function asset(body: string): Asset {
  return { body, version: createHash('sha256').update(body).digest('base64url').slice(0, 12) };
}

/** Bundles the client script for browsers. Exported for the tests, which check it builds cleanly. */
export async function buildClientScript(): Promise<string> {
  const { build } = await import('esbuild');
  const result = await build({
    entryPoints: [CLIENT_ENTRY],
    bundle: true,
    write: false,
    format: 'iife',
    platform: 'browser',
    target: 'es2020',
    minify: true,
    legalComments: 'none',
    logLevel: 'silent',
  });
  const output = result.outputFiles[0];
  if (!output) throw new Error('esbuild produced no output for the page script');
  return output.text;
}

async function loadAssets(): Promise<PageAssets> {
  const css = asset(await readFile(STYLESHEET, 'utf8'));
  try {
    return { css, js: asset(await buildClientScript()) };
  } catch (error) {
    process.emitWarning(`payment page script failed to build; serving the page without it: ${String(error)}`);
    return { css, js: undefined };
  }
}

let loading: Promise<PageAssets> | undefined;

/** The assets, built on first call and shared by every router in the process. */
export function pageAssets(): Promise<PageAssets> {
  loading ??= loadAssets().catch((error: unknown) => {
    loading = undefined;
    throw error;
  });
  return loading;
}
