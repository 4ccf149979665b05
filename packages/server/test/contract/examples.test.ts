/**
 * The runnable examples (`examples/hono`, `examples/fastify`) as a user runs them: `node
 * server.mjs` with the sandbox's keys in the environment, in an empty folder (its order store
 * lands there). Each serves its page, creates a VA order priced by its own catalogue, and prints
 * `paid: ...` once the sandbox's notification for it arrives. The README's servers are these files.
 */
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { after, before, describe, test } from 'node:test';
import { newKey, waitFor } from '../support/harness.ts';
import { MERCHANT_CODE, merchantKeys, platformKeys } from '../support/keys.ts';
import { startSandbox, type SandboxGateway } from './shop.ts';
import { freePort } from '@tombolbayar/test-support/network';

const EXAMPLES = fileURLToPath(new URL('../../../../examples/', import.meta.url));
/** The example runs in another folder, so the guard is named by its file. */
const LOOPBACK_GUARD = import.meta.resolve('@tombolbayar/test-support/loopback-guard-preload');

let sandbox: SandboxGateway;
before(async () => {
  sandbox = await startSandbox();
});
after(async () => {
  await sandbox.close();
});

for (const name of ['hono', 'fastify']) {
  describe(`examples/${name}`, () => {
    let child: ChildProcess | undefined;
    const dir = mkdtempSync(join(tmpdir(), `pb-example-${name}-`));
    after(async () => {
      if (child && child.exitCode === null) {
        const exited = new Promise((resolve) => child!.once('exit', resolve));
        child.kill('SIGINT');
        await exited;
      }
      rmSync(dir, { recursive: true, force: true });
    });

    test('is the whole server the README shows', () => {
      const readme = readFileSync(new URL('../../README.md', import.meta.url), 'utf8');
      assert.ok(readme.includes(`\`\`\`js\n${readFileSync(join(EXAMPLES, name, 'server.mjs'), 'utf8')}\`\`\``), `README's ${name} server is examples/${name}/server.mjs`);
    });

    test('serves its page, creates a VA order, and is told when it is paid', async () => {
      const port = await freePort();
      let output = '';
      child = spawn(process.execPath, ['--import', LOOPBACK_GUARD, join(EXAMPLES, name, 'server.mjs')], {
        cwd: dir,
        env: {
          ...process.env,
          PORT: String(port),
          GATEWAY_URL: sandbox.url,
          MERCHANT_CODE,
          MERCHANT_PRIVATE_KEY: merchantKeys().privateKey,
          PLATFORM_PUBLIC_KEY: platformKeys().publicKey,
        },
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      child.stdout!.on('data', (chunk: Buffer) => (output += chunk.toString()));
      child.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString()));
      const origin = `http://127.0.0.1:${port}`;
      await waitFor(() => output.includes(`shop on ${origin}`) || child!.exitCode !== null, 'the shop to listen', 60_000); // a whole process starting, on a busy machine
      assert.equal(child.exitCode, null, output);

      const page = await fetch(`${origin}/`);
      assert.match(await page.text(), /<pay-button endpoint="\/pay" item="kopi-gayo-250">/);
      assert.equal((await fetch(`${origin}/pay/pay-button.js`)).status, 200);

      const created = await fetch(`${origin}/pay/va`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', origin },
        body: JSON.stringify({ item: 'kopi-gayo-250', method: 'VA_BCA', idempotencyKey: newKey() }),
      });
      const body = await created.json() as { orderNum: string; payMoney: string };
      assert.equal(created.status, 201, JSON.stringify(body));
      assert.equal(body.payMoney, '150000');
      await sandbox.pay(body.orderNum);
      await waitFor(() => output.includes(`paid: ${body.orderNum}, Rp 150000 by VA_BCA`), 'onPaid in the example');
    });
  });
}
