/**
 * Build step of the hosted payment page's browser assets (run by `npm run build`, after tsc):
 * bundles the client script (`src/page/client/*.ts`) for browsers into `dist/page/client.js` (and
 * the sandbox dashboard's, `src/sandbox/dashboard/client.ts`, into `dist/page/dashboard.js`) and
 * copies the stylesheet to `dist/page/assets/page.css`, where `src/page/assets.ts` reads them. The
 * package ships the result, so neither esbuild nor a TypeScript loader is needed at run time.
 *
 *   node --import tsx scripts/build-page-assets.ts
 */
import { copyFileSync, mkdirSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

const CLIENT_ENTRY = fileURLToPath(new URL('../src/page/client/page.ts', import.meta.url));
const DASHBOARD_ENTRY = fileURLToPath(new URL('../src/sandbox/dashboard/client.ts', import.meta.url));
export const DASHBOARD_OUTPUT = fileURLToPath(new URL('../dist/page/dashboard.js', import.meta.url));
const STYLESHEET = fileURLToPath(new URL('../src/page/assets/page.css', import.meta.url));
export const CLIENT_OUTPUT = fileURLToPath(new URL('../dist/page/client.js', import.meta.url));
const STYLESHEET_OUTPUT = fileURLToPath(new URL('../dist/page/assets/page.css', import.meta.url));

/** Bundles a client script for browsers: one minified IIFE (the page's CSP allows only 'self'). */
export async function buildClientScript(entry = CLIENT_ENTRY): Promise<string> {
  const result = await build({
    entryPoints: [entry],
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

async function main(): Promise<void> {
  const script = await buildClientScript();
  mkdirSync(dirname(CLIENT_OUTPUT), { recursive: true });
  writeFileSync(CLIENT_OUTPUT, script);
  // The sandbox dashboard's script (src/sandbox/dashboard/routes.ts serves it).
  writeFileSync(DASHBOARD_OUTPUT, await buildClientScript(DASHBOARD_ENTRY));
  mkdirSync(dirname(STYLESHEET_OUTPUT), { recursive: true });
  copyFileSync(STYLESHEET, STYLESHEET_OUTPUT);
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) await main();
