/**
 * The packages as a user gets them: `npm pack` every published package, install the tarballs into
 * a temporary app outside the workspace (from npm's cache where it can), and there, with plain
 * `node`: import every entry (ESM and `require`), run the installed `tombolbayar-gateway` bin,
 * type-check a strict TypeScript consumer, and pay one order end to end through the installed
 * plug-in (an ESM and a CommonJS Express app), gateway and script-tag element in Chromium.
 *
 * better-sqlite3 is linked from the workspace's own install rather than compiled again (80 s here),
 * so the install runs no scripts (`--ignore-scripts`: none of our packages has one, and the linked
 * driver must not be rebuilt in place); everything else comes from the tarballs and the registry
 * (npm's cache first).
 */
import assert from 'node:assert/strict';
import { type ChildProcess } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { eventually } from '@tombolbayar/test-support/eventually';
import { freePort } from '@tombolbayar/test-support/network';
import { run, start, stop, succeed } from './processes.ts';
import { launchChromium, payOnHostedPage } from '../support.ts';
import { listTarball, packPackages, PACKAGES, type TarballSummary } from './tarball.ts';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const FIXTURE = fileURLToPath(new URL('./installed-app/', import.meta.url));
/** Every entry a Node program may import (the script-tag files are for browsers: paid with below). */
const NODE_ENTRIES = [
  '@tombolbayar/protocol', '@tombolbayar/protocol/node', '@tombolbayar/protocol/methods', '@tombolbayar/protocol/formats',
  '@tombolbayar/store-kit', '@tombolbayar/gateway', '@tombolbayar/express', '@tombolbayar/server', '@tombolbayar/server/fetch',
  '@tombolbayar/server/express', '@tombolbayar/server/node', '@tombolbayar/server/next',
  '@tombolbayar/pay-button', '@tombolbayar/pay-button/define', '@tombolbayar/pay-button/react',
];
/** What the app installs besides the tarballs: Express (5, and 4 under an alias), React for `/react`, and the consumer's types. */
const REGISTRY_PACKAGES = ['express@^5.1.0', 'express4@npm:express@^4.21.0', 'react@^19.0.0', '@types/react@^19.0.0', '@types/node@^20.19.0'];

let work: string;
let app: string;
let tarballs: TarballSummary[] = [];
let tarballPaths: string[] = [];
/** The packed tarball of `@tombolbayar/<name>`. */
const tarballFile = (name: string): string => {
  const file = tarballPaths.find((path) => new RegExp(`/tombolbayar-${name}-\\d+\\.\\d+\\.\\d+\\.tgz$`).test(path));
  assert.ok(file, `the tarball of @tombolbayar/${name}`);
  return file;
};
const children: ChildProcess[] = [];

before(async () => {
  work = mkdtempSync(join(tmpdir(), 'tombolbayar-installed-'));
  const files = await packPackages(join(work, 'tarballs'));
  tarballPaths = files;
  tarballs = await Promise.all(files.map(listTarball));

  app = join(work, 'app');
  cpSync(FIXTURE, app, { recursive: true });
  writeFileSync(join(app, 'package.json'), JSON.stringify({ name: 'installed-app', version: '1.0.0', private: true }, null, 2));
  const driver = join(ROOT, 'node_modules', 'better-sqlite3');
  await succeed('npm', ['install', '--prefer-offline', '--ignore-scripts', '--no-audit', '--no-fund', ...files, driver, ...REGISTRY_PACKAGES], { cwd: app, timeoutMs: 180_000 });
});

after(async () => {
  await Promise.all(children.map(stop));
  if (work) rmSync(work, { recursive: true, force: true });
});

describe('the packages as installed from their tarballs', () => {
  it('ship compiled JavaScript, .d.ts types and source maps; no TypeScript sources, tests or tsconfig', (t) => {
    for (const tarball of tarballs) {
      const files = tarball.files;
      assert.ok(files.includes('package/LICENSE') && files.includes('package/README.md'), `${tarball.name}: LICENSE and README`);
      assert.ok(files.some((file) => file.endsWith('.d.ts')) && files.some((file) => file.endsWith('.js.map')), `${tarball.name}: types and maps`);
      const unwanted = files.filter((file) => (file.endsWith('.ts') && !file.endsWith('.d.ts')) || /\/(test|tests)\/|tsconfig|tsbuildinfo/.test(file));
      assert.deepEqual(unwanted, [], `${tarball.name} ships what users do not need`);
      t.diagnostic(`${tarball.name}: ${(tarball.bytes / 1024).toFixed(1)} kB packed, ${files.length} files`);
    }
  });

  it('every published package passes `npm publish --dry-run` under its own name, with public access', async () => {
    // Offline, against a closed loopback port: a dry run needs no registry (asked, npm retries a
    // refused one for minutes), and a test never leaves the machine.
    const args = ['publish', '--dry-run', '--json', '--ignore-scripts', '--offline', '--registry', 'http://127.0.0.1:9/', ...PACKAGES.flatMap((name) => ['-w', name])];
    const result = await run('npm', args, { cwd: ROOT });
    assert.equal(result.code, 0, `npm ${args.join(' ')} failed:\n${result.output}`);
    for (const name of PACKAGES) {
      assert.match(result.output, new RegExp(`"id": "${name}@\\d+\\.\\d+\\.\\d+"`), `${name} would be published`);
    }
    assert.match(result.output, /with tag latest and public access \(dry-run\)/, 'a scoped package is published public');
    assert.doesNotMatch(result.output, /with tag latest and (default|restricted) access/);
  });

  it('every Node entry loads with plain node, through import and through require', async () => {
    const script = NODE_ENTRIES.map((entry) => `await import(${JSON.stringify(entry)});`).join('\n');
    await succeed(process.execPath, ['--input-type=module', '-e', script], { cwd: app });
    const required = NODE_ENTRIES.map((entry) => `require(${JSON.stringify(entry)});`).join('\n');
    await succeed(process.execPath, ['--input-type=commonjs', '-e', required], { cwd: app });
  });

  it('an app on Hono that installs only @tombolbayar/server and hono pulls in neither express nor its types', async () => {
    const honoApp = join(work, 'hono-app');
    mkdirSync(honoApp);
    writeFileSync(join(honoApp, 'package.json'), JSON.stringify({ name: 'hono-app', version: '1.0.0', private: true, type: 'module' }, null, 2));
    const wanted = ['protocol', 'store-kit', 'pay-button', 'server'].map((name) => tarballFile(name));
    await succeed('npm', ['install', '--prefer-offline', '--ignore-scripts', '--no-audit', '--no-fund', ...wanted, 'hono@^4.8.0'], { cwd: honoApp, timeoutMs: 180_000 });
    for (const name of ['express', '@types/express', 'pino-pretty']) {
      const listed = await run('npm', ['ls', name, '--all', '--parseable'], { cwd: honoApp });
      assert.equal(listed.output.split('\n').filter((line) => line.includes(`node_modules/${name}`)).join('\n'), '', `${name} is not installed`);
    }
    await succeed(process.execPath, ['--input-type=module', '-e', "await import('@tombolbayar/server'); await import('@tombolbayar/server/hono');"], { cwd: honoApp });
  });

  it("the gateway's internals are no entry of the published API (only under this repository's export condition)", async () => {
    const internal = await run(process.execPath, ['--input-type=module', '-e', "await import('@tombolbayar/gateway/internal')"], { cwd: app });
    assert.notEqual(internal.code, 0);
    assert.match(internal.output, /ERR_PACKAGE_PATH_NOT_EXPORTED/);
  });

  it('a strict TypeScript consumer (nodenext) type-checks against the shipped .d.ts', async () => {
    await succeed(join(ROOT, 'node_modules', '.bin', 'tsc'), ['-p', 'tsconfig.json'], { cwd: app });
  });

  it('the installed tombolbayar-gateway bin: --help, merchant create, and a missing driver named', async () => {
    const bin = join(app, 'node_modules', '.bin', 'tombolbayar-gateway');
    assert.match(await succeed(bin, ['--help'], { cwd: app }), /Usage:\n {2}tombolbayar-gateway/);
    const created = await succeed(bin, ['merchant', 'create', 'SHOP-001', '--name', 'Toko Kopi', '--data', 'gw'], { cwd: app });
    assert.match(created, /Merchant SHOP-001 created \(Toko Kopi\)/);
    assert.ok(statSync(join(app, 'gw', 'merchants', 'SHOP-001-private.pem')).isFile());
    // `pg` is an optional peer dependency the app did not install.
    const postgres = await run(bin, ['merchant', 'list', '--database-url', 'postgres://postgres@127.0.0.1:5432/test'], { cwd: app });
    assert.notEqual(postgres.code, 0);
    assert.match(postgres.output, /npm install pg/);
  });

  it('pays one order end to end: installed gateway, plug-in (ESM and CommonJS apps, Express 5 and 4) and script-tag element in Chromium', async (t) => {
    const gateway = await start([join(app, 'node_modules', '@tombolbayar', 'gateway', 'bin', 'tombolbayar-gateway.js'), '--sandbox', '--port', '0', '--data', 'gw', '--log-level', 'warn'], { cwd: app }, /listening on (http:\/\/\S+)/);
    children.push(gateway.child);
    const browser = await launchChromium();
    try {
      const apps = [['server.mjs', 'express'], ['server.cjs', 'express'], ['server.cjs', 'express4']] as const;
      for (const [server, expressPackage] of apps) {
        const port = await freePort();
        const env = {
          EXPRESS_PACKAGE: expressPackage,
          PORT: String(port),
          GATEWAY_URL: gateway.match[1]!,
          MERCHANT_CODE: 'SHOP-001',
          MERCHANT_PRIVATE_KEY_FILE: join(app, 'gw', 'merchants', 'SHOP-001-private.pem'),
          PLATFORM_PUBLIC_KEY_FILE: join(app, 'gw', 'platform-public.pem'),
        };
        const shop = await start([server], { cwd: app, env }, /shop listening on (http:\/\/\S+)/);
        children.push(shop.child);
        const page = await browser.newPage();
        await page.goto(shop.match[1]!);
        const [popup] = await Promise.all([page.waitForEvent('popup'), page.locator('pay-button button').click()]);
        await payOnHostedPage(popup);
        await page.locator('pay-button[state="paid"]').waitFor({ timeout: 30_000 });
        await eventually(() => (/paid \w+/.test(shop.output()) ? true : undefined), 60_000, `${server} (${expressPackage}): onPaid to run`);
        assert.match(shop.output(), /paid \w+/, `${server} (${expressPackage}): onPaid ran`);
        t.diagnostic(`${server} (${expressPackage}): paid`);
        await page.close();
        await stop(shop.child);
      }
    } finally {
      await browser.close();
    }
  });
});
