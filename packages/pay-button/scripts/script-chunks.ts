/**
 * A Vite plugin for the chunks the script-tag files load (`pay-button-<name>-<hash>.js`): their
 * names carry a hash of their content, so a browser can never pair a new `pay-button.js` with an
 * old cached chunk. It writes `dist/script-chunks.json` (`{ "chunks": [file names] }`), the list the
 * plug-in serves (with a year's `immutable` cache) and every other reader (the size report, the
 * tests) takes the names from, and removes the chunks of earlier builds from `dist/` (which the
 * build does not empty), so only the current ones are there to serve or to pack.
 */
import { readdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import type { Plugin } from 'vite';

/** The manifest's file name in `dist/`, exported by the package as `./dist/script-chunks.json`. */
export const SCRIPT_CHUNKS_MANIFEST = 'script-chunks.json';

/** A chunk of the script-tag files, as `chunkFileNames` in vite.config.ts names it. */
const CHUNK_FILE = /^pay-button-.+\.js$/;

export function scriptChunks(): Plugin {
  let chunks: string[] = [];
  return {
    name: 'tombolbayar:script-chunks',
    generateBundle(_options, bundle) {
      chunks = Object.values(bundle)
        .filter((file) => file.type === 'chunk' && !file.isEntry)
        .map((file) => file.fileName)
        .sort();
      const unexpected = chunks.filter((name) => !CHUNK_FILE.test(name));
      if (unexpected.length) this.error(`chunks not named pay-button-*.js: ${unexpected.join(', ')}`);
      this.emitFile({ type: 'asset', fileName: SCRIPT_CHUNKS_MANIFEST, source: `${JSON.stringify({ chunks }, null, 2)}\n` });
    },
    writeBundle(options) {
      const dir = options.dir!;
      for (const name of readdirSync(dir)) if (CHUNK_FILE.test(name) && !chunks.includes(name)) rmSync(join(dir, name));
    },
  };
}
