/**
 * Issue 12: the gateway's data directory is 0700 and its SQLite files 0600 (they hold customers'
 * personal data), whether the store or the CLI creates them first, and a database file an older
 * version left 0644 is tightened when opened.
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

test('a database file left 0644 by an older version is tightened; an existing folder is left alone', async () => {
  const dataDir = tempDir();
  chmodSync(dataDir, 0o755);
  const file = join(dataDir, 'gateway.sqlite');
  writeFileSync(file, '', { mode: 0o644 });
  chmodSync(file, 0o644);
  const gateway = createGateway({ database: { kind: 'sqlite', file }, dataDir, platformPrivateKey: platformKeys().privateKey, logger: false, notifications: { worker: false } });
  try {
    await gateway.ready;
    assert.equal(modeOf(file).toString(8), '600');
    assert.equal(modeOf(dataDir).toString(8), '755', 'a folder the operator made is not changed');
  } finally {
    await gateway.close();
    rmSync(dataDir, { recursive: true, force: true });
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
