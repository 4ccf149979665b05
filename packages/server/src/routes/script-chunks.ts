/**
 * `GET /pay-button-<name>-<hash>.js`: the chunks `pay-button.js` and `pay-va.js` import from beside
 * themselves, named by their content. The names come from the element package's build, never from
 * here: `dist/script-chunks.json` (beside the bundles, or beside the `payButtonScript` file), re-read
 * when it changes. A listed chunk is cached for a year, `immutable`: its name is one content for
 * good. Any other name (a chunk of an earlier version, a guess) is a 404, so no page ever runs a
 * chunk its `pay-button.js` was not built with.
 */
import { basename, dirname, join } from 'node:path';
import type { RouteHandler } from '../http/context.ts';
import { textAnswer } from '../http/respond.ts';
import { IMMUTABLE, missingScript, scriptAnswer, scriptSource, type Loaded, type ScriptSource } from './script.ts';

export const CHUNKS_MANIFEST_SPECIFIER = '@tombolbayar/pay-button/dist/script-chunks.json';

/** The route's path: the parameter is the rest of the file name, after `pay-button-`. */
export const CHUNK_ROUTE = '/pay-button-:chunk';

/** A chunk's file name as the build writes it; anything else in the list is not served. */
const CHUNK_FILE = /^pay-button-[\w.-]+\.js$/;

interface Listed {
  readonly manifest: Loaded;
  /** The listed chunks, by file name, each read from beside the list. */
  readonly files: ReadonlyMap<string, ScriptSource>;
}

/** The chunks a manifest lists; `undefined` when it is not the build's `{ "chunks": [names] }`. */
function list(manifest: Loaded): Listed | undefined {
  let chunks: unknown;
  try {
    chunks = (JSON.parse(manifest.content.toString('utf8')) as { chunks?: unknown }).chunks;
  } catch {
    return undefined;
  }
  if (!Array.isArray(chunks)) return undefined;
  const names = chunks.filter((name): name is string => typeof name === 'string' && CHUNK_FILE.test(name));
  const dir = dirname(manifest.path);
  return { manifest, files: new Map(names.map((name) => [name, scriptSource(join(dir, name))])) };
}

/** `explicitScript`: the `payButtonScript` option, whose directory then holds the list and the chunks. */
export function chunkHandler(explicitScript: string | undefined): RouteHandler {
  const manifest = scriptSource(explicitScript && join(dirname(explicitScript), basename(CHUNKS_MANIFEST_SPECIFIER)), CHUNKS_MANIFEST_SPECIFIER);
  let listed: Listed | undefined;
  return async (request, { params }) => {
    const name = `pay-button-${params.chunk}`;
    const loaded = await manifest.load();
    if (!loaded) return missingScript(name);
    if (listed?.manifest !== loaded) listed = list(loaded);
    if (!listed) return missingScript(name);
    const file = listed.files.get(name);
    if (!file) {
      return textAnswer(404, `${name} is not a chunk of the installed pay-button.js: reload the page.`, {
        'X-Content-Type-Options': 'nosniff',
        'Cache-Control': 'no-store',
      });
    }
    const chunk = await file.load();
    return chunk ? scriptAnswer(request, chunk, IMMUTABLE) : missingScript(name);
  };
}
