/**
 * A bench server bundled with esbuild into one JavaScript file that plain `node` runs, without
 * tsx: what the gateway would cost in memory with a build step. tsx resolves and transforms every
 * module through loader hooks that run on a thread of their own, with their own heap and caches.
 *
 * The project's sources (@paybutton/*) are bundled; packages from node_modules stay external and
 * load as usual. Each source file keeps its own `import.meta.url`, so files found next to a module
 * (the hosted page's stylesheet and client script) are still found.
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
    // Bare specifiers are packages, except the workspace's own, whose TypeScript is bundled.
    builder.onResolve({ filter: /^[^./]/ }, (args) => (args.path.startsWith('@paybutton/') ? undefined : { path: args.path, external: true }));
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
