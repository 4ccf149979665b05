/**
 * The page's stylesheet and its one client script, read once per process and kept in memory. The
 * script's source is TypeScript (`client/*.ts`); the package build bundles it for browsers
 * (`scripts/build-page-assets.ts`) into `dist/page/client.js`. If that file is missing (a source
 * checkout that was never built) the page is served without it: everything still works with forms
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

// Both src/page/ and dist/page/ sit two levels below the package: from either, this is the built file.
const CLIENT_SCRIPT = fileURLToPath(new URL('../../dist/page/client.js', import.meta.url));
// Copied beside the compiled module by the build.
const STYLESHEET = fileURLToPath(new URL('./assets/page.css', import.meta.url));

export function asset(body: string): Asset {
  return { body, version: createHash('sha256').update(body).digest('base64url').slice(0, 12) };
}

async function loadAssets(): Promise<PageAssets> {
  const css = asset(await readFile(STYLESHEET, 'utf8'));
  try {
    return { css, js: asset(await readFile(CLIENT_SCRIPT, 'utf8')) };
  } catch (error) {
    process.emitWarning(`payment page script is not built (npm run build); serving the page without it: ${String(error)}`);
    return { css, js: undefined };
  }
}

let loading: Promise<PageAssets> | undefined;

/** The assets, read on first call and shared by every router in the process. */
export function pageAssets(): Promise<PageAssets> {
  loading ??= loadAssets().catch((error: unknown) => {
    loading = undefined;
    throw error;
  });
  return loading;
}
