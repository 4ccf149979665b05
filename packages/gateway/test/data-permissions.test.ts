/**
 * Issue 12: the gateway's data directory is 0700 and its SQLite files 0600 (they hold customers'
 * personal data), whether the store or the CLI creates them first. On an upgrade, a data directory
 * an older version left 0755 and database files it left 0644 are tightened when opened; a folder
 * the operator chose for an explicit database file, and every parent folder, are left alone.
 */
import assert from 'node:assert/strict';
import { chmodSync, existsSync, mkdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { createGateway } from '../src/index.ts';
import { tempDir } from './support/engines.ts';
import { merchantClient } from './support/client.ts';
import { merchantKeys, platformKeys } from './support/keys.ts';
import { runCli, startGatewayProcess } from './support/cli-process.ts';

const modeOf = (path: string) => statSync(path).mode & 0o777;
const SQLITE_FILES = ['gateway.sqlite', 'gateway.sqlite-wal', 'gateway.sqlite-shm'];

/** A folder as an older version (or the umask) left it: 0755, whatever the umask says. */
function wideFolder(path: string): void {
  mkdirSync(path, { recursive: true, mode: 0o755 });
  chmodSync(path, 0o755);
}

/** An empty file as an older version left it: 0644. */
function wideFile(path: string): void {
  writeFileSync(path, '', { mode: 0o644 });
  chmodSync(path, 0o644);
}

function assertPrivate(dataDir: string): void {
  assert.equal(modeOf(dataDir).toString(8), '700', 'the data directory');
  for (const name of SQLITE_FILES) {
    const file = join(dataDir, name);
    assert.ok(existsSync(file), `${name} exists (WAL mode)`);
    assert.equal(modeOf(file).toString(8), '600', name);
  }
}

test('the store creates its folder 0700 and its SQLite files 0600 (embedded gateway)', async () => {
  const root = tempDir();
  const dataDir = join(root, 'nested', 'gateway');
  const gateway = createGateway({
    database: { kind: 'sqlite', file: join(dataDir, 'gateway.sqlite') },
    dataDir,
    platformPrivateKey: platformKeys().privateKey,
    merchants: [{ merchantCode: 'M-PERM-001', publicKey: merchantKeys().publicKey }],
    sandbox: true,
    logger: false,
    notifications: { worker: false },
  });
  try {
    const { url } = await gateway.listen();
    const created = await merchantClient(url, { merchantCode: 'M-PERM-001', privateKey: merchantKeys().privateKey }).createVa();
    assert.equal(created.body.platRespCode, 'SUCCESS', 'an order (personal data) was written');
    assertPrivate(dataDir);
    assert.equal(modeOf(join(root, 'nested')).toString(8), '700', 'every folder it created');
  } finally {
    await gateway.close();
    rmSync(root, { recursive: true, force: true });
  }
});

test('upgrade: the data directory left 0755 becomes 0700 and its database files 0600; its parent is untouched', async () => {
  const root = tempDir();
  chmodSync(root, 0o755);
  const dataDir = join(root, 'gateway');
  wideFolder(dataDir);
  const file = join(dataDir, 'gateway.sqlite');
  wideFile(file);
  const gateway = createGateway({ database: { kind: 'sqlite', file }, dataDir, platformPrivateKey: platformKeys().privateKey, logger: false, notifications: { worker: false } });
  try {
    await gateway.ready;
    assert.equal(modeOf(file).toString(8), '600');
    assert.equal(modeOf(dataDir).toString(8), '700', 'the gateway\'s own data directory');
    assert.equal(modeOf(root).toString(8), '755', 'a parent folder is never changed');
  } finally {
    await gateway.close();
    rmSync(root, { recursive: true, force: true });
  }
});

test('a database file the operator placed in a folder of their own: the file is tightened, the folder left as it is', async () => {
  const shared = tempDir();
  chmodSync(shared, 0o755);
  const dataDir = join(tempDir(), 'data');
  const file = join(shared, 'payments.sqlite');
  wideFile(file);
  const gateway = createGateway({ database: { kind: 'sqlite', file }, dataDir, platformPrivateKey: platformKeys().privateKey, logger: false, notifications: { worker: false } });
  try {
    await gateway.ready;
    assert.equal(modeOf(file).toString(8), '600');
    assert.equal(modeOf(shared).toString(8), '755', 'not the gateway\'s folder');
    assert.equal(existsSync(dataDir), false, 'the data directory is not created when nothing goes there');
  } finally {
    await gateway.close();
    rmSync(shared, { recursive: true, force: true });
  }
});

test('upgrade through the CLI: an existing --data directory 0755 with 0644 files is tightened by any command', async () => {
  const root = tempDir();
  chmodSync(root, 0o755);
  try {
    for (const command of [['merchant', 'list'], ['platform-key'], ['merchant', 'create', 'M-PERM-002']]) {
      const dataDir = join(root, command.join('-'));
      wideFolder(dataDir);
      wideFolder(join(dataDir, 'merchants'));
      wideFile(join(dataDir, 'gateway.sqlite'));
      const run = await runCli([...command, '--data', dataDir]);
      assert.equal(run.code, 0, run.stderr);
      assert.equal(modeOf(dataDir).toString(8), '700', command.join(' '));
      // platform-key never opens the store; the others do, and tighten its file.
      if (command[0] !== 'platform-key') assert.equal(modeOf(join(dataDir, 'gateway.sqlite')).toString(8), '600', `${command.join(' ')}: the database file`);
      if (command[1] === 'create') assert.equal(modeOf(join(dataDir, 'merchants')).toString(8), '700', 'DATA/merchants is the CLI\'s own too');
    }
    const keysDir = join(root, 'my-keys');
    wideFolder(keysDir);
    const named = await runCli(['merchant', 'create', 'M-PERM-003', '--data', join(root, 'named'), '--keys-dir', keysDir]);
    assert.equal(named.code, 0, named.stderr);
    assert.equal(modeOf(keysDir).toString(8), '755', 'a --keys-dir the operator named is left as it is');
    assert.equal(modeOf(join(keysDir, 'M-PERM-003-private.pem')).toString(8), '600');
    assert.equal(modeOf(root).toString(8), '755', 'a parent folder is never changed');
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
});

test('the CLI: a fresh --data directory is 0700 with 0600 database files, whichever command runs first', async () => {
  const root = tempDir();
  try {
    const listed = join(root, 'by-list');
    const list = await runCli(['merchant', 'list', '--data', listed]);
    assert.equal(list.code, 0, list.stderr);
    assert.equal(modeOf(listed).toString(8), '700');
    assert.equal(modeOf(join(listed, 'gateway.sqlite')).toString(8), '600');

    const served = join(root, 'by-serve');
    mkdirSync(root, { recursive: true });
    const gateway = await startGatewayProcess(['--sandbox', '--data', served]);
    try {
      assertPrivate(served);
    } finally {
      await gateway.stop();
    }
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
});
