/** `GET /pay-button.js`: the element's bundle, cached well, or a 503 that says how to build it. */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import { resolveScriptPath } from '../src/routes/script.ts';
import { startHarness } from './support/harness.ts';

const dir = mkdtempSync(join(tmpdir(), 'pb-script-'));
after(() => rmSync(dir, { recursive: true, force: true }));

describe('GET /pay-button.js', () => {
  test('serves the bundle as JavaScript with an ETag, revalidated on every load (one URL: the chunks and pay-va.js import it by it)', async () => {
    const file = join(dir, 'pay-button.js');
    writeFileSync(file, 'customElements.define("pay-button", class extends HTMLElement {});\n');
    const shop = await startHarness({ options: { payButtonScript: file } });
    try {
      const first = await shop.get('/pay-button.js');
      assert.equal(first.status, 200);
      assert.equal(first.headers.get('content-type'), 'text/javascript; charset=utf-8');
      assert.equal(first.text, 'customElements.define("pay-button", class extends HTMLElement {});\n');
      assert.equal(first.headers.get('cache-control'), 'no-cache');
      assert.equal(first.headers.get('x-content-type-options'), 'nosniff');
      assert.equal(first.headers.get('access-control-allow-origin'), '*', 'module scripts are fetched with CORS');
      const etag = first.headers.get('etag')!;
      assert.match(etag, /^"[A-Za-z0-9_-]{16}"$/);

      const again = await shop.get('/pay-button.js', { 'if-none-match': etag });
      assert.equal(again.status, 304);
      const queried = await shop.get(`/pay-button.js?v=${etag.slice(1, -1)}`);
      assert.equal(queried.headers.get('cache-control'), 'no-cache', 'no second, long-lived URL for the same module');

      assert.equal((await shop.get('/pay-va.js')).status, 503, 'no pay-va.js beside it yet');
      writeFileSync(join(dir, 'pay-va.js'), 'import "../../express/test/pay-button.js";\n');
      const va = await shop.get('/pay-va.js');
      assert.deepEqual([va.status, va.text, va.headers.get('content-type')], [200, 'import "../../express/test/pay-button.js";\n', 'text/javascript; charset=utf-8']);

      writeFileSync(file, 'console.log("v2");\n');
      const rebuilt = await shop.get('/pay-button.js', { 'if-none-match': etag });
      assert.equal(rebuilt.status, 200, 'a rebuilt bundle is served at once');
      assert.notEqual(rebuilt.headers.get('etag'), etag);
    } finally {
      await shop.close();
    }
  });

  test('missing: a 503 naming the package to install', async () => {
    const shop = await startHarness({ options: { payButtonScript: join(dir, 'missing', 'pay-button.js') } });
    try {
      const answer = await shop.get('/pay-button.js');
      assert.equal(answer.status, 503);
      assert.equal(answer.headers.get('cache-control'), 'no-store');
      assert.match(answer.text, /^pay-button\.js was not found: install the element package \(`npm install @tombolbayar\/pay-button`\)/);
    } finally {
      await shop.close();
    }
  });

  test("by default the element package's build output is served", () => {
    assert.match(resolveScriptPath(undefined) ?? '', /packages\/pay-button\/dist\/pay-button\.js$/);
  });
});
