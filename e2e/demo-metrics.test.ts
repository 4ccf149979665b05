/**
 * The demo shows both processes' metrics: `npm start`'s lines name the shop's and the gateway's
 * `/metrics`, and each answers Prometheus text to this machine (the shop's holds the plug-in's
 * `tombolbayar_plugin_` series, the gateway's its `tombolbayar_gateway_` ones), while a request a
 * proxy forwarded is refused, as the metrics helpers' default is.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { readyMessage, startDemo, type Demo } from '../demo/src/demo.ts';

let demo: Demo;
let dataDir: string;
before(async () => {
  dataDir = mkdtempSync(join(tmpdir(), 'tombolbayar-e2e-metrics-'));
  demo = await startDemo({ dataDir, shopPort: 0, gatewayPort: 0, log: () => {} });
});
after(async () => {
  await demo.close();
  rmSync(dataDir, { recursive: true, force: true });
});

/** The sample lines of a metric family prefix (not `# HELP`/`# TYPE`). */
const samples = (text: string, prefix: string) => text.split('\n').filter((line) => line.startsWith(prefix));

describe('the demo\'s metrics', () => {
  it('npm start names both metrics URLs with the other lines', () => {
    const lines = readyMessage(demo).split('\n').map((line) => line.trim());
    assert.ok(lines.includes(`Dashboard:  ${demo.gatewayUrl}/sandbox/dashboard`), lines.join('\n'));
    assert.ok(lines.includes(`Metrics:    ${demo.shopUrl}/metrics and ${demo.gatewayUrl}/metrics (this machine only)`), lines.join('\n'));
  });

  it('both answer Prometheus text from loopback, and refuse a forwarded request', async () => {
    // One request of each kind first, so both hold series that moved, not only zeros.
    assert.equal((await fetch(`${demo.shopUrl}/pay/links`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' })).ok, false);
    assert.equal((await fetch(`${demo.gatewayUrl}/healthz`)).status, 200);
    for (const [url, prefix] of [[`${demo.shopUrl}/metrics`, 'tombolbayar_plugin_'], [`${demo.gatewayUrl}/metrics`, 'tombolbayar_gateway_']] as const) {
      const response = await fetch(url);
      assert.equal(response.status, 200, url);
      assert.match(response.headers.get('content-type') ?? '', /^text\/plain; version=0\.0\.4/);
      const text = await response.text();
      assert.ok(samples(text, prefix).length > 0, `${url} holds ${prefix} series`);
      const other = prefix === 'tombolbayar_plugin_' ? 'tombolbayar_gateway_' : 'tombolbayar_plugin_';
      assert.equal(samples(text, other).length, 0, `${url} holds only its own process's series`);
      const forwarded = await fetch(url, { headers: { 'x-forwarded-for': '203.0.113.7' } });
      assert.equal(forwarded.status, 403, `${url} refuses a forwarded request without the token`);
    }
    const shop = await (await fetch(`${demo.shopUrl}/metrics`)).text();
    assert.ok(samples(shop, 'tombolbayar_plugin_orders_refused_total{').some((line) => / [1-9]\d*$/.test(line)), 'the refused create was counted');
  });
});
