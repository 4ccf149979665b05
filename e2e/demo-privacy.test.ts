/**
 * Issue 22, the demo shop: its order list answers its own pages only (a DNS-rebinding page's GET,
 * whose Host and Origin agree, is refused), and its SQLite files are private (0600, folder 0700).
 * No browser: requests with the headers such a page's browser sends, all to 127.0.0.1.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import http from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { startDemo, type Demo } from '../demo/src/demo.ts';
import { isOwnRequest, shopOrigins } from '../demo/src/own-origin.ts';

let demo: Demo;
const dataDir = mkdtempSync(join(tmpdir(), 'pb-demo-privacy-'));
before(async () => {
  demo = await startDemo({ dataDir, shopPort: 0, gatewayPort: 0, log: () => {} });
});
after(async () => {
  await demo.close();
  rmSync(dataDir, { recursive: true, force: true });
});

/** A GET with exactly these headers (fetch would set Host itself). */
function get(path: string, headers: Record<string, string>): Promise<number> {
  const url = new URL(path, demo.shopUrl);
  return new Promise((resolve, reject) => {
    const req = http.request({ host: url.hostname, port: url.port, path: url.pathname, method: 'GET', headers }, (res) => {
      res.resume();
      resolve(res.statusCode ?? 0);
      req.destroy();
    });
    req.on('error', (error) => (req.destroyed ? undefined : reject(error)));
    req.end();
  });
}

describe('the demo shop keeps its customers to itself', () => {
  it('a rebound page cannot read the order list or its stream; the shop\'s own page and tools can', async () => {
    const port = new URL(demo.shopUrl).port;
    const rebound = { host: `evil.example:${port}`, origin: `http://evil.example:${port}`, 'sec-fetch-site': 'same-origin' };
    assert.equal(await get('/api/orders', rebound), 403);
    assert.equal(await get('/api/orders/stream', rebound), 403);
    assert.equal(await get('/api/orders', { host: `evil.example:${port}` }), 403, 'a rebound Host alone');
    assert.equal(await get('/api/orders', { host: `127.0.0.1:${port}`, 'sec-fetch-site': 'cross-site' }), 403);
    assert.equal(await get('/api/orders', { host: `127.0.0.1:${port}`, 'sec-fetch-site': 'same-origin' }), 200);
    assert.equal(await get('/api/orders', { host: `localhost:${port}`, origin: `http://localhost:${port}` }), 200);
    assert.equal(await get('/api/orders', { host: `127.0.0.1:${port}` }), 200, 'a tool');
  });

  it('the shop\'s SQLite file is 0600 in a 0700 folder', () => {
    assert.equal(statSync(join(dataDir, 'shop.sqlite')).mode & 0o777, 0o600);
    assert.equal(statSync(dataDir).mode & 0o777, 0o700);
    assert.equal(statSync(join(dataDir, 'payments.sqlite')).mode & 0o777, 0o600);
  });

  it('isOwnRequest, by table', () => {
    const origins = shopOrigins('https://shop.example');
    const cases: ReadonlyArray<readonly [Parameters<typeof isOwnRequest>[0], boolean]> = [
      [{ host: 'shop.example', origin: undefined, secFetchSite: undefined }, true],
      [{ host: 'shop.example', origin: 'https://shop.example', secFetchSite: 'same-origin' }, true],
      [{ host: 'shop.example', origin: undefined, secFetchSite: 'none' }, true],
      [{ host: 'SHOP.EXAMPLE', origin: undefined, secFetchSite: undefined }, true],
      [{ host: 'evil.example', origin: 'https://evil.example', secFetchSite: 'same-origin' }, false],
      [{ host: undefined, origin: undefined, secFetchSite: undefined }, false],
      [{ host: 'shop.example', origin: 'https://evil.example', secFetchSite: undefined }, false],
      [{ host: 'shop.example', origin: undefined, secFetchSite: 'same-site' }, false],
      // DNS-rebinding shapes of the name: not the shop's.
      [{ host: 'shop.example.', origin: undefined, secFetchSite: 'same-origin' }, false],
      [{ host: 'shop.example:443', origin: undefined, secFetchSite: 'same-origin' }, false],
      [{ host: 'shop.example:8443', origin: undefined, secFetchSite: 'same-origin' }, false],
      [{ host: 'evil@shop.example', origin: undefined, secFetchSite: 'same-origin' }, false],
      [{ host: '', origin: undefined, secFetchSite: undefined }, false],
    ];
    for (const [request, expected] of cases) assert.equal(isOwnRequest(request, origins), expected, JSON.stringify(request));
  });
});
