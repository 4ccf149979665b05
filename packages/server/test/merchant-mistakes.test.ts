/**
 * The mistakes merchants make, each in a real server process started as the README's server is
 * (default logger, start-up check), reading what its terminal says (issue 21): every mistake is
 * named there, with what to fix, and no key or signature is ever printed.
 */
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import type { SandboxGateway } from '@tombolbayar/gateway';
import { MERCHANT_CODE, merchantKeys, platformKeys, strangerKeys } from './support/keys.ts';
import type { MistakeServerConfig } from './support/mistake-server.ts';
import { testGateway } from './support/sandbox-gateway.ts';

const SERVER = fileURLToPath(new URL('./support/mistake-server.ts', import.meta.url));
const PACKAGE_DIR = fileURLToPath(new URL('..', import.meta.url));

interface Shop {
  readonly url: string;
  /** Resolves with the output so far once `pattern` appears in it (30 s at most). */
  waitFor(pattern: RegExp): Promise<string>;
  output(): string;
  stop(): Promise<void>;
}

let dir: string;
let gateway: SandboxGateway;
let gatewayUrl: string;
const children: ChildProcess[] = [];

/** Start the server with `mistake`; `waitFor` reads its terminal whether or not it comes up. */
function launch(mistake: Partial<MistakeServerConfig>): Omit<Shop, 'url'> {
  const config: MistakeServerConfig = {
    gatewayUrl,
    merchantCode: MERCHANT_CODE,
    privateKey: merchantKeys().privateKey,
    platformPublicKey: platformKeys().publicKey,
    databaseFile: join(mkdtempSync(join(dir, 'shop-')), 'orders.sqlite'),
    mountAt: '/pay',
    ...mistake,
  };
  const child = spawn(process.execPath, ['--import', '@tombolbayar/test-support/loopback-guard-preload', '--import', 'tsx', SERVER], {
    cwd: PACKAGE_DIR,
    env: { ...process.env, MISTAKE_SERVER: JSON.stringify(config), LOG_LEVEL: 'info', DATABASE_URL: '' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  children.push(child);
  let output = '';
  const waiters = new Set<() => void>();
  const onData = (chunk: Buffer) => {
    output += chunk.toString();
    for (const check of waiters) check();
  };
  child.stdout!.on('data', onData);
  child.stderr!.on('data', onData);
  const waitFor = (pattern: RegExp) =>
    new Promise<string>((resolve, reject) => {
      const timer = setTimeout(() => {
        waiters.delete(check);
        reject(new Error(`no line matching ${pattern} within 30 s; the terminal said:\n${output}`));
      }, 30_000);
      const check = () => {
        if (!pattern.test(output)) return;
        clearTimeout(timer);
        waiters.delete(check);
        resolve(output);
      };
      waiters.add(check);
      check();
    });
  return {
    waitFor,
    output: () => output,
    stop: () =>
      new Promise<void>((resolve) => {
        if (child.exitCode !== null || child.signalCode !== null) return resolve();
        child.once('exit', () => resolve());
        child.kill('SIGTERM');
      }),
  };
}

/** Start the server and wait for its `shop on URL` line. */
async function startShop(mistake: Partial<MistakeServerConfig>): Promise<Shop> {
  const shop = launch(mistake);
  const seen = await shop.waitFor(/shop on (http:\/\/\S+)/);
  return { ...shop, url: /shop on (http:\/\/\S+)/.exec(seen)![1]! };
}

function closedPort(): Promise<number> {
  return new Promise((resolve) => {
    const server = createServer().listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

/** What no terminal line may ever contain: key material or a signature. */
function assertNoSecrets(output: string): void {
  for (const pem of [merchantKeys().privateKey, strangerKeys().privateKey]) {
    const body = pem.split('\n').filter((line) => line && !line.startsWith('-----'));
    for (const line of body) assert.ok(!output.includes(line), 'a private key reached the terminal');
  }
  assert.doesNotMatch(output, /"(platSign|sign)":"[A-Za-z0-9+/=]{20,}/, 'a signature reached the terminal');
}

before(async () => {
  dir = mkdtempSync(join(tmpdir(), 'tombolbayar-mistakes-'));
  gateway = testGateway(dir);
  gatewayUrl = (await gateway.listen()).url;
});

after(async () => {
  const running = children.filter((child) => child.exitCode === null && child.signalCode === null);
  await Promise.all(running.map((child) => new Promise((resolve) => {
    child.once('exit', resolve);
    child.kill('SIGKILL');
  })));
  await gateway.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('the terminal of a merchant who made a mistake', () => {
  test('a right configuration: the start-up check says all is well', async () => {
    const shop = await startShop({});
    await shop.waitFor(/reachable; merchant MERCH-TEST-01 known, its key accepted; the platform key verifies/);
    await shop.stop();
    assertNoSecrets(shop.output());
  });

  const startupMistakes: Array<{ name: string; mistake: () => Promise<Partial<MistakeServerConfig>>; says: RegExp }> = [
    { name: 'the gateway is down', mistake: async () => ({ gatewayUrl: `http://127.0.0.1:${await closedPort()}` }), says: /start-up check: cannot reach the gateway at http:\/\/127\.0\.0\.1:\d+ \(.*\); check gatewayUrl/ },
    { name: 'another platform public key', mistake: async () => ({ platformPublicKey: strangerKeys().publicKey }), says: /start-up check: the gateway's answers do not verify with platformPublicKey/ },
    { name: 'a wrong merchant code', mistake: async () => ({ merchantCode: 'MERCH-TYPO-01' }), says: /start-up check: the gateway does not know merchant MERCH-TYPO-01/ },
    { name: 'a private key the gateway does not know', mistake: async () => ({ privateKey: strangerKeys().privateKey }), says: /start-up check: the gateway refused a signed query from merchant MERCH-TEST-01 .*is privateKey the key whose public half is registered/ },
    { name: 'a gatewayUrl that is not a gateway', mistake: async () => ({ gatewayUrl: `${gatewayUrl}/nothing-here` }), says: /start-up check: .* answered without a platSign|start-up check: the gateway at .* answered HTTP 404/ },
  ];
  for (const { name, mistake, says } of startupMistakes) {
    test(`${name}: named at start, before any customer`, async () => {
      const shop = await startShop(await mistake());
      await shop.waitFor(says);
      await shop.stop();
      assertNoSecrets(shop.output());
    });
  }

  test('a store that cannot be opened: the server stops at start, naming the file and why', async () => {
    const shop = launch({ databaseFile: '/dev/null/orders.sqlite' });
    await shop.waitFor(/database: cannot open the SQLite file \/dev\/null\/orders\.sqlite \(.*EEXIST.*\); choose a file in a folder this process can create and write/);
    await shop.stop();
  });

  test('mounted at /api/pay without mountPath: named at the first request, with the fix', async () => {
    const shop = await startShop({ mountAt: '/api/pay' });
    await fetch(`${shop.url}/api/pay/pay-button.js`);
    await shop.waitFor(/mountPath is \/pay but the router is reached at \/api\/pay.*pass mountPath: '\/api\/pay'/);
    await shop.stop();
  });

  test('the shop opened as localhost instead of 127.0.0.1: the refused origin and the allowed ones', async () => {
    const shop = await startShop({});
    const port = new URL(shop.url).port;
    const answer = await fetch(`${shop.url}/pay/links`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', origin: `http://localhost:${port}` },
      body: JSON.stringify({ item: 'kopi', idempotencyKey: 'k-0123456789abcdef0123' }),
    });
    assert.equal(answer.status, 403);
    const body = (await answer.json()) as { error: { message: string } };
    assert.match(body.error.message, new RegExp(`not allowed from http://localhost:${port}; its server log names the setting to change`));
    await shop.waitFor(new RegExp(`refused a request from a page on http://localhost:${port}: allowed origins are http://127\\.0\\.0\\.1:${port}\\. If pages on http://localhost:${port} are the shop's, add it: allowedOrigins: \\['http://localhost:${port}'\\]`));
    await shop.stop();
  });

  test('a bug in quote(): the error and its stack in the terminal, plain words for the customer', async () => {
    const shop = await startShop({ quoteThrows: true });
    const answer = await fetch(`${shop.url}/pay/links`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', origin: shop.url },
      body: JSON.stringify({ item: 'kopi', idempotencyKey: 'k-0123456789abcdef0124' }),
    });
    assert.equal(answer.status, 500);
    assert.doesNotMatch(await answer.text(), /Cannot read properties/);
    const said = await shop.waitFor(/quote\(\) threw; the customer was told the order could not be priced/);
    assert.match(said, /Cannot read properties of undefined \(reading 'price'\)/);
    assert.match(said, /at Object\.quote \(.*mistake-server\.ts:\d+/, 'the stack points at the merchant\'s quote()');
    await shop.stop();
  });

  test('onPaid throws for a paid order: said as an error, with its cause', async () => {
    const shop = await startShop({ onPaidThrows: true });
    const answer = await fetch(`${shop.url}/pay/links`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', origin: shop.url },
      body: JSON.stringify({ item: 'kopi', idempotencyKey: 'k-0123456789abcdef0125' }),
    });
    assert.equal(answer.status, 201, await answer.clone().text());
    const { orderNum } = (await answer.json()) as { orderNum: string };
    const order = await gateway.findOrderByOrderNum(MERCHANT_CODE, orderNum);
    const paid = await fetch(`${gatewayUrl}/sandbox/orders/${encodeURIComponent(order!.platOrderNum)}/pay`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ method: 'VA_BCA' }),
    });
    assert.equal(paid.status, 200, await paid.text());
    await shop.waitFor(new RegExp(`onPaid threw for paid order ${orderNum}[\\s\\S]*the warehouse API answered 502`));
    await shop.stop();
    assertNoSecrets(shop.output());
  });
});
