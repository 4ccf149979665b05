/**
 * The `tombolbayar-gateway` CLI as a newcomer uses it: help, keys, merchants, and a first request.
 * One-shot commands run in-process through `main` (same code path as the bin, minus the process
 * start); the bin itself is spawned for `--help` and for serving.
 */
import assert from 'node:assert/strict';
import { existsSync, readFileSync, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { generateKeyPair, verify } from '@tombolbayar/protocol/node';
import { parseCli, UsageError } from '../src/cli/args.ts';
import { loadOrCreatePlatformKey } from '../src/cli/key-files.ts';
import { main } from '../src/cli.ts';
import { merchantClient } from './support/client.ts';
import { runCli, startGatewayProcess } from './support/cli-process.ts';
import { tempDir } from './support/engines.ts';

async function run(args: readonly string[]) {
  const stdout: string[] = [];
  const stderr: string[] = [];
  // No DATABASE_URL: these commands work on the SQLite store of the data dir.
  const code = await main(args, { out: (line) => stdout.push(line), err: (line) => stderr.push(line), env: {} });
  return { code, stdout: stdout.join('\n'), stderr: stderr.join('\n') };
}

describe('tombolbayar-gateway CLI', () => {
  let dir: string;
  before(() => {
    dir = tempDir('gw-cli-');
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  test('--help (from the installed bin) documents every flag and command', async () => {
    const { code, stdout } = await runCli(['--help']);
    assert.equal(code, 0);
    for (const word of ['--port', '--host', '--data', '--database-url', '--platform-key', '--merchant', '--public-url', '--sandbox', '--time-scale', 'merchant create', 'merchant brand', '--accent', '--support', 'merchant list', 'platform-key']) {
      assert.ok(stdout.includes(word), `help mentions ${word}`);
    }
  });

  test('usage errors exit 2 with a message', async () => {
    for (const [args, message] of [
      [['--no-such-flag'], /Unknown option '--no-such-flag'/],
      [['--port', 'eighty'], /--port must be a port number/],
      [['--time-scale', '0'], /--time-scale must be more than 0/],
      [['frobnicate'], /unknown command "frobnicate"/],
      [['merchant'], /merchant needs a subcommand/],
      [['merchant', 'create'], /needs a merchant code/],
      [['merchant', 'create', 'AB', '--data', dir], /CODE must be 5 to 50 characters/],
      [['merchant', 'create', '../../etc', '--data', dir], /it names the key files/],
      [['--merchant', 'NOEQUALS'], /--merchant must be CODE=PUBLIC_KEY_FILE/],
      [['--data', dir, '--merchant', 'SHOP-X1=/nonexistent.pem'], /--merchant SHOP-X1: cannot read/],
      [['--data', dir, '--platform-key', '/nonexistent.pem'], /--platform-key: cannot read/],
    ] as const) {
      const { code, stderr } = await run(args);
      assert.equal(code, 2, `${args.join(' ')} -> ${stderr}`);
      assert.match(stderr, message);
      assert.match(stderr, /--help/);
    }
  });

  test('platform-key generates the key once, keeps it private, and prints the public half', async () => {
    const first = await run(['platform-key', '--data', dir]);
    assert.equal(first.code, 0);
    assert.match(first.stdout, /^-----BEGIN PUBLIC KEY-----/);
    assert.doesNotMatch(first.stdout, /PRIVATE/);
    assert.equal(statSync(join(dir, 'platform-private.pem')).mode & 0o777, 0o600);
    const second = await run(['platform-key', '--data', dir]);
    assert.equal(second.stdout, first.stdout, 'the same key on every run');
  });

  test('the platform key pair is generated only when the data dir has none', () => {
    const keysDir = join(dir, 'generate-once');
    let generated = 0;
    const counting = () => {
      generated += 1;
      return generateKeyPair();
    };
    const first = loadOrCreatePlatformKey({ dataDir: keysDir }, counting);
    assert.equal(first.created, true);
    assert.equal(generated, 1);
    for (let start = 0; start < 3; start++) {
      const again = loadOrCreatePlatformKey({ dataDir: keysDir }, counting);
      assert.equal(again.created, false);
      assert.equal(again.privateKeyPem, first.privateKeyPem);
    }
    assert.equal(generated, 1, 'no key pair generated on a start that finds one');
    assert.equal(readFileSync(join(keysDir, 'platform-public.pem'), 'utf8'), first.publicKeyPem);
  });

  test('merchant create writes a key pair and registers it; list shows it; a newcomer can call with it', async () => {
    const created = await run(['merchant', 'create', 'SHOP-001', '--name', 'Toko Kopi', '--data', dir]);
    assert.equal(created.code, 0, created.stderr);
    const privateFile = join(dir, 'merchants', 'SHOP-001-private.pem');
    assert.ok(created.stdout.includes(privateFile), 'it says where the keys went');
    assert.equal(statSync(privateFile).mode & 0o777, 0o600);
    assert.ok(existsSync(join(dir, 'merchants', 'SHOP-001-public.pem')));

    const again = await run(['merchant', 'create', 'SHOP-001', '--data', dir]);
    assert.equal(again.code, 2);
    assert.match(again.stderr, /already exists/);

    assert.match((await run(['merchant', 'list', '--data', dir])).stdout, /SHOP-001\s+Toko Kopi\s+0/);

    const gateway = await startGatewayProcess(['--sandbox', '--data', dir]);
    try {
      const client = merchantClient(gateway.url, { merchantCode: 'SHOP-001', privateKey: readFileSync(privateFile, 'utf8') });
      const answer = await client.createLink({ method: 'QRIS' });
      assert.equal(answer.body.platRespCode, 'SUCCESS', answer.body.platRespMessage);
      const { platSign, ...fields } = answer.body;
      assert.ok(verify(fields, platSign, readFileSync(join(dir, 'platform-public.pem'), 'utf8')));
    } finally {
      assert.equal(await gateway.stop(), 0, 'SIGTERM: graceful exit 0');
    }
    assert.match((await run(['merchant', 'list', '--data', dir])).stdout, /SHOP-001\s+Toko Kopi\s+1/);
  });

  test('merchant brand sets how the payment page shows a merchant, keeps what is not given, names a bad flag', async () => {
    assert.equal((await run(['merchant', 'create', 'SHOP-BRAND', '--name', 'Toko Brand', '--data', dir])).code, 0);
    const set = await run(['merchant', 'brand', 'SHOP-BRAND', '--name', 'Toko Kopi Senja', '--accent', '#C2410C', '--support', 'halo@senja.example', '--data', dir]);
    assert.equal(set.code, 0, set.stderr);
    assert.match(set.stdout, /colour:\s+#c2410c/);
    const partial = await run(['merchant', 'brand', 'SHOP-BRAND', '--support', '', '--data', dir]);
    assert.match(partial.stdout, /name:\s+Toko Kopi Senja/, 'what was not given stays');
    assert.match(partial.stdout, /support:\s+\(a generic line\)/, 'an empty flag unsets');
    const bad = await run(['merchant', 'brand', 'SHOP-BRAND', '--accent', 'orange', '--logo', 'javascript:alert(1)', '--data', dir]);
    assert.equal(bad.code, 2);
    assert.match(bad.stderr, /--logo: must be an http\(s\) URL/);
    assert.match(bad.stderr, /--accent: must be a colour as #rrggbb/);
    assert.doesNotMatch(bad.stderr, /javascript|orange/, 'what was typed is not echoed');
    const unknown = await run(['merchant', 'brand', 'NOBODY', '--accent', '#000000', '--data', dir]);
    assert.equal(unknown.code, 2);
    assert.match(unknown.stderr, /no merchant NOBODY; create it first/);

    const gateway = await startGatewayProcess(['--data', dir, '--sandbox']);
    try {
      const privateKey = readFileSync(join(dir, 'merchants', 'SHOP-BRAND-private.pem'), 'utf8');
      const answer = await merchantClient(gateway.url, { merchantCode: 'SHOP-BRAND', privateKey }).createLink();
      const page = await (await fetch(`${gateway.url}/pay?orderNum=${answer.body.platOrderNum}`)).text();
      assert.match(page, /<span>Toko Kopi Senja<\/span>/);
      assert.ok(page.includes('/pay/assets/brand.css?accent=c2410c'));
    } finally {
      assert.equal(await gateway.stop(), 0);
    }
  });

  test('flags and environment are parsed with defaults', () => {
    const config = parseCli(['--sandbox', '--merchant', 'A-B-C-1=k.pem', '--merchant', 'X-Y-Z-2=l.pem'], { DATABASE_URL: 'postgres://u@h/db', PORT: '5000' });
    assert.equal(config.port, 5000);
    assert.equal(config.host, '127.0.0.1');
    assert.equal(config.databaseUrl, 'postgres://u@h/db');
    assert.equal(config.sandbox, true);
    assert.equal(config.timeScale, 1);
    assert.deepEqual(config.merchants.map((m) => m.merchantCode), ['A-B-C-1', 'X-Y-Z-2']);
    assert.equal(parseCli([], {}).dataDir, './.tombolbayar/gateway');
    assert.equal(parseCli([], {}).port, 4000);
    assert.throws(() => parseCli(['--public-url', 'ftp://x'], {}), UsageError);
  });
});
