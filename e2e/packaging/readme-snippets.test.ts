/**
 * Every README shop as a merchant copies it, from an empty folder: the root README's "Put it in a
 * real shop", and the plug-in README's "A whole server" (ESM and CommonJS), "On Hono",
 * "On Fastify", the `node:http` recipe and "On Next.js (App Router)". Each folder gets the
 * README's own text and nothing else: its files (named as the README names them), its shell lines
 * run in order (`npm init`, `npm install`, `merchant create`, the sandbox in the background, the
 * keys exported from the files it names, `node server.mjs` or `next build && next start`), then a
 * customer pays one order and the shop prints `paid: …` once. A README that stops working fails.
 *
 * Where a user's shell and this test part ways, on purpose and nothing else:
 * - `npm install` takes `@tombolbayar/*` from the packed tarballs (with the tarballs of their
 *   own `@tombolbayar` dependencies, which the registry would bring), better-sqlite3 linked from
 *   the workspace (as installed-packages.test.ts does), everything else from npm's cache first.
 * - The sandbox's `--port` is a free port, and `GATEWAY_URL` and `PORT` say so to the shop (every
 *   README server reads both); `PUBLIC_URL` is never set, the snippets derive it.
 * - Every Node process carries the loopback guard; Next's telemetry is off.
 */
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import type { Browser } from 'playwright-core';
import { eventually } from '@tombolbayar/test-support/eventually';
import { freePort } from '@tombolbayar/test-support/network';
import { start, stop, succeed, type Started } from './processes.ts';
import { launchChromium, payOnHostedPage } from '../support.ts';
import { packPackages } from './tarball.ts';
import { fileBlock, section, shellBlock, shellCommands, type ShellCommand } from './readme.ts';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const ROOT_README = 'README.md';
const SERVER_README = 'packages/server/README.md';
const GUARD = import.meta.resolve('@tombolbayar/test-support/loopback-guard-preload');
const GUARDED_ENV = { NODE_OPTIONS: `--import=${GUARD}`, NEXT_TELEMETRY_DISABLED: '1' };
const INSTALL_FLAGS = ['--prefer-offline', '--ignore-scripts', '--no-audit', '--no-fund'];

/** A step of a shop: a README's shell block run line by line, or a code block written to its file. */
type Step =
  | { readonly shell: string; readonly readme: string; readonly index: number; readonly firstLine?: boolean }
  | { readonly file: string; readonly readme: string; readonly heading: string };

interface Shop {
  readonly name: string;
  readonly steps: readonly Step[];
  /** Files the README also shows, started after the first with the same environment. */
  readonly alsoRun?: readonly string[];
}

const SHOPS: readonly Shop[] = [
  // First: its build takes minutes of CPU, and the other shops run beside it (see the describe).
  {
    name: '@tombolbayar/server README: On Next.js (App Router), next build && next start',
    steps: [
      { shell: 'On Next.js (App Router)', readme: SERVER_README, index: 0 },
      ...['next.config.mjs', 'lib/pay.ts', 'app/pay/[...path]/route.ts', 'app/layout.tsx', 'app/page.tsx', 'app/pay-button.d.ts'].map((file) => ({
        file, readme: SERVER_README, heading: 'On Next.js (App Router)',
      })),
      { shell: 'On Next.js (App Router)', readme: SERVER_README, index: 1 },
    ],
  },
  {
    name: 'the root README: Put it in a real shop (Express)',
    steps: [
      { shell: 'Put it in a real shop', readme: ROOT_README, index: 0 },
      { file: 'server.js', readme: ROOT_README, heading: 'Put it in a real shop' },
      { shell: 'Put it in a real shop', readme: ROOT_README, index: 2 },
    ],
  },
  {
    name: '@tombolbayar/server README: A whole server (Express, ESM and CommonJS)',
    steps: [
      { shell: 'Install', readme: SERVER_README, index: 0, firstLine: true },
      { file: 'server.mjs', readme: SERVER_README, heading: 'A whole server' },
      { file: 'server.cjs', readme: SERVER_README, heading: 'A whole server' },
      { shell: 'Keys', readme: SERVER_README, index: 0 },
    ],
    alsoRun: ['server.cjs'],
  },
  ...(['On Hono', 'On Fastify'] as const).map((heading) => ({
    name: `@tombolbayar/server README: ${heading}`,
    steps: [
      { shell: heading, readme: SERVER_README, index: 0 },
      { file: 'server.mjs', readme: SERVER_README, heading },
      { shell: 'Keys', readme: SERVER_README, index: 0 },
    ],
  })),
  {
    name: '@tombolbayar/server README: Any framework (node:http)',
    steps: [
      { shell: 'Any framework: the fetch core', readme: SERVER_README, index: 0 },
      { file: 'server.mjs', readme: SERVER_README, heading: 'Any framework: the fetch core' },
      { shell: 'Keys', readme: SERVER_README, index: 0 },
    ],
  },
];

let work: string;
let tarballs: string[] = [];
let browser: Browser;
const readmes = new Map<string, string>();
const readme = (path: string): string => {
  if (!readmes.has(path)) readmes.set(path, readFileSync(join(ROOT, path), 'utf8'));
  return readmes.get(path)!;
};

/** The workspace's `@tombolbayar` dependencies of a package, itself included, transitively. */
function withOwnDependencies(name: string, found = new Set<string>()): Set<string> {
  if (found.has(name)) return found;
  found.add(name);
  const manifest = JSON.parse(readFileSync(join(ROOT, 'packages', name.replace('@tombolbayar/', ''), 'package.json'), 'utf8')) as { dependencies?: Record<string, string> };
  for (const dependency of Object.keys(manifest.dependencies ?? {})) if (dependency.startsWith('@tombolbayar/')) withOwnDependencies(dependency, found);
  return found;
}

function tarballOf(name: string): string {
  const file = tarballs.find((path) => path.includes(`/tombolbayar-${name.replace('@tombolbayar/', '')}-`) && /-\d+\.\d+\.\d+\.tgz$/.test(path));
  assert.ok(file, `a packed tarball of ${name}`);
  return file;
}

/** `npm install ...` as the README says it, with the packages of this repository from their tarballs. */
function installArguments(words: readonly string[]): string[] {
  const ours = new Set<string>();
  const rest: string[] = [];
  for (const word of words) {
    if (word.startsWith('@tombolbayar/')) withOwnDependencies(word, ours);
    else if (word === 'better-sqlite3') rest.push(join(ROOT, 'node_modules', 'better-sqlite3'));
    else rest.push(word);
  }
  // The gateway depends on better-sqlite3: link the workspace's build rather than compile it.
  if (ours.has('@tombolbayar/gateway') && !words.includes('better-sqlite3')) rest.push(join(ROOT, 'node_modules', 'better-sqlite3'));
  return ['install', ...INSTALL_FLAGS, ...rest, ...[...ours].map(tarballOf)];
}

/** A shop's folder as its shell lines left it. */
class Folder {
  readonly env: Record<string, string> = { ...GUARDED_ENV };
  readonly children: Started[] = [];
  gatewayUrl?: string;
  shop?: Started;
  shopUrl?: string;

  constructor(readonly dir: string) {}

  async run(command: ShellCommand): Promise<void> {
    const [program, ...args] = command.words;
    if (program === 'npm' && (args[0] === 'init' || args[0] === 'pkg')) {
      await succeed('npm', args, { cwd: this.dir });
    } else if (program === 'npm' && args[0] === 'install') {
      await succeed('npm', installArguments(args.slice(1)), { cwd: this.dir, timeoutMs: 300_000 });
    } else if (program === 'npx' && args[0] === 'tombolbayar-gateway') {
      await this.#gateway(args.slice(1), command.background);
    } else if (program === 'export') {
      for (const assignment of args) this.#export(assignment);
    } else if (program === 'node') {
      assert.equal(args.length, 1, `node FILE: ${command.words.join(' ')}`);
      await this.startShop(args[0]!);
    } else if (program === 'npx' && args[0] === 'next') {
      await this.#next(args.slice(1), command.background);
    } else {
      assert.fail(`a README line this test does not know how to follow: ${command.words.join(' ')}`);
    }
  }

  async #gateway(args: string[], background: boolean): Promise<void> {
    const bin = realpathSync(join(this.dir, 'node_modules', '.bin', 'tombolbayar-gateway'));
    if (!background) {
      await succeed(process.execPath, [bin, ...args], { cwd: this.dir, env: this.env });
      return;
    }
    assert.ok(args.includes('--sandbox'), `the gateway in the background is the sandbox: ${args.join(' ')}`);
    const port = args.indexOf('--port');
    const onFreePort = port >= 0 ? args.map((arg, i) => (i === port + 1 ? '0' : arg)) : [...args, '--port', '0'];
    const gateway = await start([bin, ...onFreePort], { cwd: this.dir, env: this.env }, /listening on (http:\/\/\S+)/);
    this.children.push(gateway);
    this.gatewayUrl = gateway.match[1]!;
    this.env.GATEWAY_URL = this.gatewayUrl;
  }

  #export(assignment: string): void {
    const [, name, value] = /^(\w+)=(.*)$/s.exec(assignment) ?? assert.fail(`export NAME=VALUE: ${assignment}`);
    const file = /^\$\(cat (\S+)\)$/.exec(value!);
    assert.ok(file || !value!.includes('$'), `a value this test can read: ${value}`);
    this.env[name!] = file ? readFileSync(join(this.dir, file[1]!), 'utf8') : value!;
  }

  async startShop(file: string): Promise<void> {
    if (this.shop) await stop(this.shop.child);
    const port = await freePort();
    this.shop = await start([file], { cwd: this.dir, env: { ...this.env, PORT: String(port) } }, /shop on (http:\/\/\S+)/);
    this.children.push(this.shop);
    this.shopUrl = this.shop.match[1]!;
  }

  async #next(args: string[], background: boolean): Promise<void> {
    const next = join(this.dir, 'node_modules', 'next', 'dist', 'bin', 'next');
    if (args[0] === 'build') {
      await succeed(process.execPath, [next, ...args], { cwd: this.dir, env: this.env, timeoutMs: 480_000 });
      return;
    }
    assert.equal(args[0], 'start', `next build or next start: ${args.join(' ')}`);
    assert.ok(!background);
    const port = await freePort();
    this.shop = await start([next, ...args], { cwd: this.dir, env: { ...this.env, PORT: String(port) }, timeoutMs: 60_000 }, /Ready in/);
    this.children.push(this.shop);
    this.shopUrl = `http://127.0.0.1:${port}`;
  }
}

async function build(shop: Shop, folder: Folder): Promise<void> {
  for (const step of shop.steps) {
    if ('file' in step) {
      const target = join(folder.dir, step.file);
      mkdirSync(dirname(target), { recursive: true });
      writeFileSync(target, fileBlock(section(readme(step.readme), step.heading), step.file));
      continue;
    }
    const commands = shellCommands(shellBlock(section(readme(step.readme), step.shell), step.index));
    for (const command of step.firstLine ? commands.slice(0, 1) : commands) await folder.run(command);
  }
}

/** A customer presses Bayar on the shop's page and pays on the hosted page; the orderNum `onPaid` printed. */
async function payInBrowser(folder: Folder): Promise<string> {
  const page = await browser.newPage();
  const problems: string[] = [];
  page.on('pageerror', (error) => problems.push(error.message));
  try {
    await page.goto(folder.shopUrl!);
    const [popup] = await Promise.all([page.waitForEvent('popup'), page.locator('pay-button button').click()]);
    await payOnHostedPage(popup);
    await page.locator('pay-button[state="paid"]').waitFor();
    assert.deepEqual(problems, []);
  } finally {
    await page.close();
  }
  return paidOrder(folder);
}

/** Without a page (server.cjs serves none): a link as the element asks for it, paid by its number with the README's CLI. */
async function payByApi(folder: Folder): Promise<string> {
  const response = await fetch(`${folder.shopUrl}/pay/links`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', origin: folder.shopUrl! },
    body: JSON.stringify({ idempotencyKey: randomUUID(), item: 'kopi-gayo-250', method: 'VA_BCA' }),
  });
  const link = (await response.json()) as { orderNum: string };
  assert.equal(response.status, 201, JSON.stringify(link));
  const bin = realpathSync(join(folder.dir, 'node_modules', '.bin', 'tombolbayar-gateway'));
  await succeed(process.execPath, [bin, 'pay', link.orderNum, '--url', folder.gatewayUrl!], { cwd: folder.dir, env: folder.env });
  return paidOrder(folder, link.orderNum);
}

/** Waits for the shop's `paid: ORDER` line and the gateway's acknowledged notification; then `onPaid` ran once. */
async function paidOrder(folder: Folder, wanted = '\\S+?'): Promise<string> {
  const line = new RegExp(`^paid: (${wanted}),?(?: |$)`, 'm');
  const orderNum = await eventually(() => line.exec(folder.shop!.output())?.[1], 60_000, `the shop's "paid: …" line`);
  await eventually(async () => {
    const answer = (await (await fetch(`${folder.gatewayUrl}/sandbox/deliveries?orderNum=${orderNum}`)).json()) as { deliveries: { deliveredAt: string | null }[] };
    return answer.deliveries.some((delivery) => delivery.deliveredAt) || undefined;
  }, 60_000, `the gateway's notification of ${orderNum} acknowledged`);
  const runs = folder.shop!.output().split('\n').filter((text) => text.startsWith(`paid: ${orderNum}`));
  assert.equal(runs.length, 1, `onPaid ran once for ${orderNum}:\n${folder.shop!.output()}`);
  return orderNum;
}

before(async () => {
  work = mkdtempSync(join(tmpdir(), 'tombolbayar-readme-'));
  tarballs = await packPackages(join(work, 'tarballs'));
  browser = await launchChromium();
});

after(async () => {
  await browser?.close();
  if (work) rmSync(work, { recursive: true, force: true });
});

// Two at a time: Next.js's build is CPU, the other shops mostly npm and waiting, and each shop has
// its own folder, ports and processes (npm's cache is safe to share).
describe('every README shop works as copied into an empty folder', { concurrency: 2 }, () => {
  for (const shop of SHOPS) {
    it(shop.name, async (t) => {
      const started = performance.now();
      const folder = new Folder(mkdtempSync(join(work, 'shop-')));
      try {
        await build(shop, folder);
        assert.ok(folder.shop && folder.gatewayUrl, 'the README started a sandbox and a shop');
        t.diagnostic(`${shop.name}: paid ${await payInBrowser(folder)}`);
        for (const file of shop.alsoRun ?? []) {
          await folder.startShop(file);
          t.diagnostic(`${file}: paid ${await payByApi(folder)}`);
        }
        assert.doesNotMatch(folder.shop!.output(), /outside the loopback network/);
      } catch (error) {
        // What the merchant's terminals would show, to see why.
        for (const child of folder.children) t.diagnostic(child.output().slice(-3000));
        throw error;
      } finally {
        await Promise.all(folder.children.map((child) => stop(child.child)));
        t.diagnostic(`${((performance.now() - started) / 1000).toFixed(1)} s`);
      }
    });
  }
});
