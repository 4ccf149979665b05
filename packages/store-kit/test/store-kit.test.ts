import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { DriverMissingError, loadPostgresDriver, loadSqliteDriver, resolveDriver, startCheckpointer, withStatementCache } from '../src/index.ts';

const dir = mkdtempSync(join(tmpdir(), 'store-kit-'));
after(() => rmSync(dir, { recursive: true, force: true }));

describe('drivers', () => {
  it('load the installed drivers', () => {
    const Sqlite = loadSqliteDriver();
    const db = new Sqlite(':memory:');
    assert.deepEqual(db.prepare('select 1 as one').get(), { one: 1 });
    db.close();
    assert.equal(typeof loadPostgresDriver().Pool, 'function');
    assert.match(resolveDriver('better-sqlite3'), /better-sqlite3/);
  });

  it('a missing driver is an error that names the package to install and the engine', () => {
    for (const [driver, engine] of [['pg', 'PostgreSQL'], ['better-sqlite3', 'SQLite']] as const) {
      const error = new DriverMissingError(driver, new Error(`Cannot find module '${driver}'`));
      assert.equal(error.name, 'DriverMissingError');
      assert.equal(error.driver, driver);
      assert.equal(error.message, `The ${engine} store needs the "${driver}" package: run \`npm install ${driver}\``);
    }
  });
});

describe('statement cache', () => {
  it('prepares each SQL text once, a busy statement again, and evicts the oldest past the limit', () => {
    const sqlite = new (loadSqliteDriver())(':memory:');
    const cached = withStatementCache(sqlite, 2);
    const first = cached.prepare('select 1');
    assert.equal(cached.prepare('select 1'), first);
    sqlite.exec('create table t (n integer); insert into t values (1), (2)');
    const scan = cached.prepare('select n from t');
    const iterator = scan.iterate([])[Symbol.iterator]();
    iterator.next();
    assert.notEqual(cached.prepare('select n from t'), scan, 'a statement being iterated is not handed out again');
    iterator.return?.();
    cached.prepare('select 2');
    assert.notEqual(cached.prepare('select 1'), first, 'the oldest was evicted at the limit of two');
    cached.close();
  });
});

describe('checkpointer', () => {
  it('turns automatic checkpoints off while it runs, checkpoints on its own thread, and stops once', async () => {
    const file = join(dir, 'wal.sqlite');
    const sqlite = new (loadSqliteDriver())(file);
    sqlite.pragma('journal_mode = WAL');
    sqlite.exec('create table t (n text)');
    const checkpointer = startCheckpointer(sqlite, file, 20);
    assert.equal(sqlite.pragma('wal_autocheckpoint', { simple: true }), 0);
    const sizeBefore = statSync(file).size;
    const insert = sqlite.prepare('insert into t values (?)');
    for (let n = 0; n < 2000; n++) insert.run('x'.repeat(100));
    // With automatic checkpoints off, only the thread's checkpoints copy the WAL's pages (about
    // 200 kB here) into the database file.
    for (let tries = 0; statSync(file).size < sizeBefore + 100_000 && tries < 100; tries++) await new Promise((resolve) => setTimeout(resolve, 50));
    assert.ok(statSync(file).size >= sizeBefore + 100_000, `database file ${statSync(file).size} B: the WAL was never checkpointed`);
    await Promise.all([checkpointer.stop(), checkpointer.stop()]);
    sqlite.close();
  });

  it('truncates the WAL on its thread when asked (an erasure leaves no old page image in the log)', async () => {
    const file = join(dir, 'truncate.sqlite');
    const sqlite = new (loadSqliteDriver())(file);
    sqlite.pragma('journal_mode = WAL');
    sqlite.exec("create table t (n text); insert into t values ('secret@example.com')");
    const checkpointer = startCheckpointer(sqlite, file, 60_000);
    sqlite.exec("update t set n = ''");
    assert.ok(statSync(`${file}-wal`).size > 0);
    assert.deepEqual(await Promise.all([checkpointer.truncate(), checkpointer.truncate()]), [true, true]);
    assert.equal(statSync(`${file}-wal`).size, 0);
    await checkpointer.stop();
    assert.equal(await checkpointer.truncate(), false, 'stopped: nothing to ask');
    sqlite.close();
  });
});
