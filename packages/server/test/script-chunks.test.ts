/**
 * `GET /pay-button-<name>-<hash>.js`: the chunks the script-tag files import are served from the
 * element package's build, byte for byte, for a year (`immutable`: a name is one content); a name
 * the build does not list (an earlier version's, a guess) is a 404; and the package's tarball
 * carries them. The first and last tests read the built element (`npm run build` makes it).
 */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { after, describe, test } from 'node:test';
import { CHUNKS_MANIFEST_SPECIFIER } from '../src/routes/script-chunks.ts';
import { startHarness, type Harness } from './support/harness.ts';

const IMMUTABLE = 'public, max-age=31536000, immutable';

const manifestPath = fileURLToPath(import.meta.resolve(CHUNKS_MANIFEST_SPECIFIER));
const dist = dirname(manifestPath);
const built = (): string[] => {
  assert.ok(existsSync(manifestPath), `${manifestPath} is missing: build the element first (npm run build -w @tombolbayar/pay-button)`);
  return (JSON.parse(readFileSync(manifestPath, 'utf8')) as { chunks: string[] }).chunks;
};

const dir = mkdtempSync(join(tmpdir(), 'pb-chunks-'));
after(() => rmSync(dir, { recursive: true, force: true }));

/** The body as bytes, not text: what is compared is what the browser gets. */
async function getBytes(shop: Harness, path: string, headers: Record<string, string> = {}) {
  const response = await fetch(`${shop.mountUrl}${path}`, { headers });
  return { status: response.status, headers: response.headers, bytes: Buffer.from(await response.arrayBuffer()) };
}

/** The files a served script imports from beside itself (`./name.js`), statically or with `import()`. */
const importsOf = (source: string): string[] =>
  [...source.matchAll(/(?:\bimport\(|\bfrom)\s*["'`]\.\/([^"'`]+)["'`]/g)].map((match) => match[1]!);

describe('GET /pay-button-<name>-<hash>.js', () => {
  test('every chunk pay-button.js and pay-va.js import is served byte for byte, for a year, immutable', async () => {
    const chunks = built();
    assert.equal(chunks.length, 2, 'the attempt-io and strings-id chunks');
    const shop = await startHarness();
    try {
      const entry = await shop.get('/pay-button.js');
      assert.equal(entry.status, 200);
      const fromEntry = importsOf(entry.text).sort();
      assert.deepEqual(fromEntry, chunks, 'pay-button.js imports exactly the listed chunks');
      for (const name of fromEntry) assert.match(name, /^pay-button-(attempt-io|strings-id)-[\w-]{8,}\.js$/);
      const va = await shop.get('/pay-va.js');
      const fromVa = importsOf(va.text).filter((name) => name !== 'pay-button.js');
      assert.ok(fromVa.length > 0 && fromVa.every((name) => chunks.includes(name)), `pay-va.js imports ${fromVa.join(', ')}`);

      for (const name of chunks) {
        const served = await getBytes(shop, `/${name}`);
        assert.equal(served.status, 200, name);
        assert.ok(served.bytes.equals(readFileSync(join(dist, name))), `${name} is served as built`);
        assert.equal(served.headers.get('cache-control'), IMMUTABLE);
        assert.equal(served.headers.get('content-type'), 'text/javascript; charset=utf-8');
        assert.equal(served.headers.get('x-content-type-options'), 'nosniff');
        assert.equal(served.headers.get('access-control-allow-origin'), '*', 'module scripts are fetched with CORS');
        const again = await getBytes(shop, `/${name}`, { 'if-none-match': served.headers.get('etag')! });
        assert.equal(again.status, 304);
      }
    } finally {
      await shop.close();
    }
  });

  test('an old or unknown chunk name is a 404; the names come from the build, re-read when it changes', async () => {
    const script = join(dir, 'pay-button.js');
    writeFileSync(script, 'import("./pay-button-attempt-io-AAAA1111.js");\n');
    writeFileSync(join(dir, 'pay-button-attempt-io-AAAA1111.js'), 'export const version = 1;\n');
    writeFileSync(join(dir, 'script-chunks.json'), JSON.stringify({ chunks: ['pay-button-attempt-io-AAAA1111.js'] }));
    // On disk beside the bundle, but not the build's: never served.
    writeFileSync(join(dir, 'pay-button-attempt-io.js'), 'export const version = 0;\n');
    mkdirSync(join(dir, 'other'));
    writeFileSync(join(dir, 'other', 'pay-button-x.js'), 'secret\n');
    const shop = await startHarness({ options: { payButtonScript: script } });
    try {
      const first = await shop.get('/pay-button-attempt-io-AAAA1111.js');
      assert.deepEqual([first.status, first.text, first.headers.get('cache-control')], [200, 'export const version = 1;\n', IMMUTABLE]);

      const unknown = ['/pay-button-attempt-io.js', '/pay-button-attempt-io-BBBB2222.js', '/pay-button-strings-id-AAAA1111.js', '/pay-button-..%2Fother%2Fpay-button-x.js'];
      for (const path of unknown) {
        const answer = await shop.get(path);
        assert.equal(answer.status, 404, path);
        assert.equal(answer.headers.get('cache-control'), 'no-store', path);
        assert.doesNotMatch(answer.text, /version|secret/, path);
      }
      // Not even a name: not the plug-in's path (the app's own 404 here).
      assert.equal((await shop.get('/pay-button-')).status, 404);

      // An upgrade: a new build, new names. The old name is gone at once, the new one served.
      writeFileSync(join(dir, 'pay-button-attempt-io-CCCC3333.js'), 'export const version = 2;\n');
      writeFileSync(join(dir, 'script-chunks.json'), JSON.stringify({ chunks: ['pay-button-attempt-io-CCCC3333.js'] }) + '\n');
      assert.equal((await shop.get('/pay-button-attempt-io-AAAA1111.js')).status, 404, 'a chunk of the earlier build');
      const upgraded = await shop.get('/pay-button-attempt-io-CCCC3333.js');
      assert.deepEqual([upgraded.status, upgraded.text], [200, 'export const version = 2;\n']);
    } finally {
      await shop.close();
    }
  });

  test('no list beside the bundle: a 503 naming the package to install', async () => {
    const shop = await startHarness({ options: { payButtonScript: join(dir, 'missing', 'pay-button.js') } });
    try {
      const answer = await shop.get('/pay-button-attempt-io-AAAA1111.js');
      assert.equal(answer.status, 503);
      assert.equal(answer.headers.get('cache-control'), 'no-store');
      assert.match(answer.text, /^pay-button-attempt-io-AAAA1111\.js was not found: install the element package/);
    } finally {
      await shop.close();
    }
  });

  test("the element package's tarball carries the list and every chunk it names, and no other chunk", async () => {
    const chunks = built();
    const { stdout } = await promisify(execFile)('npm', ['pack', '--dry-run', '--json', '--ignore-scripts'], {
      cwd: dirname(dist),
      env: { ...process.env, npm_config_update_notifier: 'false', npm_config_fund: 'false', npm_config_audit: 'false' },
    });
    const [pack] = JSON.parse(stdout) as [{ name: string; files: { path: string }[] }];
    assert.equal(pack.name, '@tombolbayar/pay-button');
    const files = pack.files.map((file) => file.path);
    for (const path of ['dist/pay-button.js', 'dist/pay-va.js', 'dist/script-chunks.json', ...chunks.map((name) => `dist/${name}`)]) {
      assert.ok(files.includes(path), `${path} is not in the tarball`);
    }
    assert.deepEqual(files.filter((path) => /^dist\/pay-button-.*\.js$/.test(path)).sort(), chunks.map((name) => `dist/${name}`));
  });
});
