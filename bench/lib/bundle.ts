/**
 * A bench server (bench's own TypeScript) bundled with esbuild into one JavaScript file that plain
 * `node` runs, without tsx: the gateway as a user runs it. tsx resolves and transforms every module
 * through loader hooks that run on a thread of their own, with their own heap and caches.
 *
 * Only the bench's files are bundled; every package stays external and loads as installed, the
 * workspace's own (@tombolbayar/*) included: their built `dist/` (`npm run build`). Each bundled file
 * keeps its own `import.meta.url`, so files found next to a module are still found.
 */
import { readFile } from 'node:fs/promises';
import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { build, type Plugin } from 'esbuild';

const REPO = fileURLToPath(new URL('../../', import.meta.url));

const keepImportMetaUrl: Plugin = {
  name: 'keep-import-meta-url',
  setup(builder) {
    builder.onLoad({ filter: /\/(packages|bench)\/.*\.ts$/ }, async (args) => {
      const source = await readFile(args.path, 'utf8');
      return { contents: source.replaceAll('import.meta.url', JSON.stringify(pathToFileURL(args.path).href)), loader: 'ts' };
    });
  },
};

const externalPackages: Plugin = {
  name: 'external-packages',
  setup(builder) {
    // Bare specifiers are packages: loaded by node from what they ship (the workspace's from dist/).
    builder.onResolve({ filter: /^[^./]/ }, (args) => ({ path: args.path, external: true }));
  },
};

/** Bundle `entry` (a .ts file of the repo) to `outfile`, which must be inside the repo. */
export async function bundleServer(entry: string, outfile: string): Promise<string> {
  if (!outfile.startsWith(REPO)) throw new Error('the bundle must live inside the repository, where node_modules is found');
  mkdirSync(dirname(outfile), { recursive: true });
  await build({
    entryPoints: [entry],
    outfile,
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    logLevel: 'warning',
    plugins: [externalPackages, keepImportMetaUrl],
  });
  return outfile;
}
