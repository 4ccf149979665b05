/**
 * The Next.js example (examples/next) as a merchant runs it: copied out of the repository, the
 * packed tarballs installed beside next, react and react-dom (npm's cache first), `next build` once
 * (with no keys in the environment: the route makes its handler on the first request), then
 * `next start` on 127.0.0.1 against the installed sandbox gateway, and a customer in Chromium who
 * presses `<pay-button>`, pays on the hosted page and sees the shop say paid, with `onPaid` run
 * once. Every Node process here (next build's workers included, through NODE_OPTIONS) carries the
 * loopback guard, and Next's telemetry is off: nothing leaves the machine.
 */
import assert from 'node:assert/strict';
import { type ChildProcess } from 'node:child_process';
import { cpSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { freePort } from '@tombolbayar/test-support/network';
import { start, stop, succeed, type Started } from './processes.ts';
import { launchChromium, payOnHostedPage } from '../support.ts';
import { packPackages } from './tarball.ts';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const EXAMPLE = join(ROOT, 'examples', 'next');
/** What a checkout of the example may hold that a merchant's copy would not. */
const NOT_COPIED = new Set(['node_modules', '.next', '.tombolbayar', 'package-lock.json', 'next-env.d.ts']);
const GUARD = import.meta.resolve('@tombolbayar/test-support/loopback-guard-preload');
/** For every Node process of the app, and the processes they start. */
const GUARDED_ENV = { NODE_OPTIONS: `--import=${GUARD}`, NEXT_TELEMETRY_DISABLED: '1' };

interface PaidOrder {
  readonly orderNum: string;
  readonly payMoney: string;
  readonly runs: number;
}

let work: string;
let shopDir: string;
let gateway: Started;
let shop: Started;
let shopUrl: string;
const children: ChildProcess[] = [];
const timings: string[] = [];

async function timed<T>(what: string, step: () => Promise<T>): Promise<T> {
  const started = performance.now();
  const result = await step();
  timings.push(`${what} ${((performance.now() - started) / 1000).toFixed(1)} s`);
  return result;
}

before(async () => {
  work = mkdtempSync(join(tmpdir(), 'tombolbayar-next-'));
  const tarballs = await timed('npm pack', () => packPackages(join(work, 'tarballs')));
  shopDir = join(work, 'shop');
  cpSync(EXAMPLE, shopDir, { recursive: true, filter: (source) => !NOT_COPIED.has(basename(source)) });
  // better-sqlite3 is linked from the workspace rather than compiled again (see installed-packages).
  const driver = join(ROOT, 'node_modules', 'better-sqlite3');
  await timed('npm install', () =>
    succeed('npm', ['install', '--prefer-offline', '--ignore-scripts', '--no-audit', '--no-fund', ...tarballs, driver], { cwd: shopDir, timeoutMs: 300_000 }));
  const next = join(shopDir, 'node_modules', 'next', 'dist', 'bin', 'next');
  await timed('next build', () => succeed(process.execPath, [next, 'build'], { cwd: shopDir, env: GUARDED_ENV, timeoutMs: 300_000 }));

  const bin = join(shopDir, 'node_modules', '@tombolbayar', 'gateway', 'bin', 'tombolbayar-gateway.js');
  await succeed(process.execPath, [bin, 'merchant', 'create', 'SHOP-001', '--name', 'Toko Kopi'], { cwd: shopDir, env: GUARDED_ENV });
  gateway = await start([bin, '--sandbox', '--port', '0', '--log-level', 'warn'], { cwd: shopDir, env: GUARDED_ENV }, /listening on (http:\/\/\S+)/);
  children.push(gateway.child);

  const port = await freePort();
  shopUrl = `http://127.0.0.1:${port}`;
  const keys = join(shopDir, '.tombolbayar', 'gateway');
  const env = {
    ...GUARDED_ENV,
    PORT: String(port),
    PUBLIC_URL: shopUrl,
    GATEWAY_URL: gateway.match[1]!,
    MERCHANT_CODE: 'SHOP-001',
    MERCHANT_PRIVATE_KEY: readFileSync(join(keys, 'merchants', 'SHOP-001-private.pem'), 'utf8'),
    PLATFORM_PUBLIC_KEY: readFileSync(join(keys, 'platform-public.pem'), 'utf8'),
  };
  shop = await timed('next start', () => start([next, 'start', '--hostname', '127.0.0.1', '--port', String(port)], { cwd: shopDir, env }, /Ready in/));
  children.push(shop.child);
});

after(async () => {
  await Promise.all(children.map(stop));
  if (work) rmSync(work, { recursive: true, force: true });
});

describe('the Next.js example, built from the packed tarballs', () => {
  it("is what the plug-in's README shows: the route and next.config.mjs, word for word", () => {
    const readme = readFileSync(join(ROOT, 'packages', 'server', 'README.md'), 'utf8');
    for (const file of ['app/pay/[...path]/route.ts', 'next.config.mjs']) {
      assert.ok(readme.includes(`\n${readFileSync(join(EXAMPLE, file), 'utf8')}\`\`\``), `the README shows examples/next/${file}`);
    }
  });

  it('a customer pays with <pay-button> and the shop says paid; onPaid ran once', async (t) => {
    const browser = await launchChromium();
    try {
      const page = await browser.newPage();
      const problems: string[] = [];
      page.on('pageerror', (error) => problems.push(error.message));
      await page.goto(shopUrl);
      const [popup] = await Promise.all([page.waitForEvent('popup'), page.locator('pay-button button').click()]);
      await payOnHostedPage(popup);
      await page.locator('pay-button[state="paid"]').waitFor({ timeout: 30_000 });
      const outcome = page.locator('#outcome').filter({ hasText: 'Paid, thank you!' });
      await outcome.waitFor();
      const status = await outcome.textContent();
      const orderNum = /Order (\S+) is on its way/.exec(status ?? '')?.[1];
      assert.ok(orderNum, `the shop says paid: ${status}`);

      // onPaid may finish just after the element knows the order is paid: wait for its record.
      const handle = await page.waitForFunction(
        async (wanted) => {
          const { orders } = (await (await fetch('/api/paid')).json()) as { orders: PaidOrder[] };
          return orders.find((order) => order.orderNum === wanted);
        },
        orderNum,
        { polling: 100, timeout: 20_000 },
      );
      const recorded = (await handle.jsonValue()) as PaidOrder;
      assert.equal(recorded.runs, 1, 'onPaid ran once');
      assert.equal(recorded.payMoney, '150000', 'at the price of the server, not the page');
      assert.match(shop.output(), new RegExp(`paid: ${orderNum}, Rp 150000 by VA_BCA`));
      assert.doesNotMatch(shop.output(), /mount_path_mismatch|mountPath is/, 'mountPath matches the route');
      assert.doesNotMatch(shop.output(), /outside the loopback network/);
      assert.deepEqual(problems, []);
    } finally {
      await browser.close();
      for (const line of timings) t.diagnostic(line);
    }
  });
});
