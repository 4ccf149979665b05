/**
 * The dashboard's built script (`dist/page/dashboard.js`, bundled by the package build beside the
 * hosted page's), read once per process. Missing in a source checkout that was never built: the
 * dashboard then works without it (a person refreshes by hand).
 */
import { readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { asset, type Asset } from '../../page/assets.ts';

// From src/sandbox/dashboard/ and from dist/sandbox/dashboard/ alike: the built file.
const DASHBOARD_SCRIPT = fileURLToPath(new URL('../../../dist/page/dashboard.js', import.meta.url));

let loading: Promise<Asset | undefined> | undefined;

export function dashboardScript(): Promise<Asset | undefined> {
  loading ??= readFile(DASHBOARD_SCRIPT, 'utf8').then(asset, () => undefined);
  return loading;
}
