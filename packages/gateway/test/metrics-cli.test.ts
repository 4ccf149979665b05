/**
 * Issue 34 on the command line: `--metrics-token` (or `$TOMBOLBAYAR_METRICS_TOKEN`) opens
 * `GET /metrics` to its bearer; the startup output says where the metrics are.
 */
import assert from 'node:assert/strict';
import { rmSync } from 'node:fs';
import { describe, test } from 'node:test';
import { parseCli, UsageError } from '../src/cli/args.ts';
import { HELP } from '../src/cli/help.ts';
import { startGatewayProcess } from './support/cli-process.ts';
import { tempDir } from './support/engines.ts';
import { eventually } from './support/receiver.ts';

describe('the metrics token on the command line', () => {
  test('--metrics-token, else $TOMBOLBAYAR_METRICS_TOKEN; a token with spaces is a usage error; the help names it', () => {
    assert.equal(parseCli(['--metrics-token', 'abc-123'], {}).metricsToken, 'abc-123');
    assert.equal(parseCli([], { TOMBOLBAYAR_METRICS_TOKEN: 'from-env' }).metricsToken, 'from-env');
    assert.equal(parseCli(['--metrics-token', 'flag'], { TOMBOLBAYAR_METRICS_TOKEN: 'from-env' }).metricsToken, 'flag');
    assert.equal(parseCli([], {}).metricsToken, undefined);
    assert.throws(() => parseCli(['--metrics-token', 'two words'], {}), (error: unknown) => error instanceof UsageError && /--metrics-token/.test(error.message));
    assert.match(HELP, /--metrics-token TOKEN/);
    assert.match(HELP, /TOMBOLBAYAR_METRICS_TOKEN/);
  });

  test('the server says where its metrics are and serves them to the bearer of the token', async () => {
    const dir = tempDir();
    const gateway = await startGatewayProcess(['--port', '0', '--data', dir], { env: { TOMBOLBAYAR_METRICS_TOKEN: 'cli-metrics-token' } });
    try {
      // The line after "listening on" may arrive in a later chunk of the child's output.
      await eventually(() => (gateway.output().includes(`metrics: ${gateway.url}/metrics`) ? true : undefined), 10_000, 'the metrics line');
      const proxied = await fetch(`${gateway.url}/metrics`, { headers: { 'x-forwarded-for': '203.0.113.7' } });
      assert.equal(proxied.status, 403);
      const bearer = await fetch(`${gateway.url}/metrics`, { headers: { 'x-forwarded-for': '203.0.113.7', authorization: 'Bearer cli-metrics-token' } });
      assert.equal(bearer.status, 200);
      assert.match(await bearer.text(), /tombolbayar_gateway_db_pool_connections\{state="idle"\} 1/);
    } finally {
      assert.equal(await gateway.stop(), 0);
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
