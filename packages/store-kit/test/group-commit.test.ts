import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { Kysely, sql, type Generated } from 'kysely';
import { GroupCommitSqliteDialect, loadSqliteDriver } from '../src/index.ts';

const dir = mkdtempSync(join(tmpdir(), 'group-commit-'));
after(() => rmSync(dir, { recursive: true, force: true }));

interface Tables {
  items: { id: Generated<number>; name: string; parent: number | null };
  counter: { id: number; n: number };
}

let files = 0;

/** A store opened through the dialect, and a second connection that sees only what is committed. */
function open() {
  const file = join(dir, `store-${files++}.sqlite`);
  const Sqlite = loadSqliteDriver();
  const sqlite = new Sqlite(file);
  sqlite.pragma('journal_mode = WAL');
  sqlite.pragma('foreign_keys = ON');
  sqlite.exec(`
    create table items (id integer primary key, name text not null unique,
      parent integer references items (id) deferrable initially deferred);
    create table counter (id integer primary key, n integer not null);
    insert into counter values (1, 0);
  `);
  const db = new Kysely<Tables>({ dialect: new GroupCommitSqliteDialect(sqlite) });
  const observer = new Sqlite(file, { readonly: true });
  const committed = () => (observer.prepare('select name from items order by id').all() as { name: string }[]).map((row) => row.name);
  return { db, sqlite, committed, close: async () => (observer.close(), await db.destroy()) };
}

const insert = (db: Kysely<Tables>, name: string, parent: number | null = null) => db.insertInto('items').values({ name, parent }).execute();

describe('group commit (SQLite)', () => {
  it('a write alone commits at once, on its own', async () => {
    const store = open();
    const pending = insert(store.db, 'alone');
    await Promise.resolve();
    assert.equal(store.sqlite.inTransaction, false, 'no group was opened for one write');
    await pending;
    assert.deepEqual(store.committed(), ['alone']);
    await store.close();
  });

  it('writes crowding into one turn share a commit, and each settles only once it is committed', async () => {
    const store = open();
    const names = ['a', 'b', 'c', 'd', 'e'];
    let groupSeen = false;
    const settled = names.map((name) =>
      insert(store.db, name).then(() => {
        // Whatever a write's promise says has happened is on disk for every other connection.
        assert.ok(store.committed().includes(name), `${name} is committed when its promise settles`);
      }),
    );
    while (!groupSeen && store.committed().length < names.length) {
      groupSeen = store.sqlite.inTransaction;
      await Promise.resolve();
    }
    await Promise.all(settled);
    assert.ok(groupSeen, 'the writes after the first were grouped in one transaction');
    assert.deepEqual(store.committed().sort(), names);
    await store.close();
  });

  it('a statement that fails is refused at once; the rest of its group commits', async () => {
    const store = open();
    await insert(store.db, 'taken');
    const outcomes = await Promise.allSettled([insert(store.db, 'x'), insert(store.db, 'taken'), insert(store.db, 'y')]);
    assert.deepEqual(outcomes.map((outcome) => outcome.status), ['fulfilled', 'rejected', 'fulfilled']);
    assert.match(String((outcomes[1] as PromiseRejectedResult).reason), /UNIQUE constraint failed/);
    assert.deepEqual(store.committed(), ['taken', 'x', 'y']);
    await store.close();
  });

  it('a commit that fails refuses every write of its group, and none of them is kept', async () => {
    const store = open();
    await insert(store.db, 'first');
    await new Promise((resolve) => setImmediate(resolve));
    // The deferred foreign key is checked at COMMIT: the group's commit fails, not the statement.
    const outcomes = await Promise.allSettled([insert(store.db, 'lead'), insert(store.db, 'ok'), insert(store.db, 'orphan', 999)]);
    assert.equal(outcomes[0]!.status, 'fulfilled', 'the turn\'s first write committed on its own');
    assert.deepEqual(outcomes.slice(1).map((outcome) => outcome.status), ['rejected', 'rejected']);
    assert.match(String((outcomes[2] as PromiseRejectedResult).reason), /FOREIGN KEY constraint failed/);
    assert.deepEqual(store.committed(), ['first', 'lead']);
    assert.equal(store.sqlite.inTransaction, false);
    await insert(store.db, 'after');
    assert.deepEqual(store.committed(), ['first', 'lead', 'after'], 'the store goes on');
    await store.close();
  });

  it('a read made while a group is open settles after that group is committed', async () => {
    const store = open();
    await insert(store.db, 'seed');
    const writes = [insert(store.db, 'one'), insert(store.db, 'two')];
    const read = store.db.selectFrom('items').select('name').orderBy('id').execute();
    const names = (await read).map((row) => row.name);
    assert.deepEqual(names, ['seed', 'one', 'two']);
    assert.deepEqual(store.committed(), names, 'nobody is answered from data a failed commit could take back');
    await Promise.all(writes);
    await store.close();
  });

  it('transactions wait for the open group and run one at a time', async () => {
    const store = open();
    const increment = () =>
      store.db.transaction().execute(async (trx) => {
        const { n } = await trx.selectFrom('counter').select('n').where('id', '=', 1).executeTakeFirstOrThrow();
        await new Promise((resolve) => setImmediate(resolve));
        await trx.updateTable('counter').set({ n: n + 1 }).where('id', '=', 1).execute();
      });
    const work = [insert(store.db, 'before'), insert(store.db, 'grouped'), increment(), increment(), insert(store.db, 'between'), increment()];
    await Promise.all(work);
    assert.equal((await store.db.selectFrom('counter').select('n').executeTakeFirstOrThrow()).n, 3);
    assert.deepEqual(store.committed().sort(), ['before', 'between', 'grouped']);
    await assert.rejects(
      store.db.transaction().execute(async (trx) => {
        await trx.insertInto('items').values({ name: 'rolled back', parent: null }).execute();
        throw new Error('changed my mind');
      }),
      /changed my mind/,
    );
    assert.equal(store.committed().includes('rolled back'), false);
    assert.equal((await sql<{ n: number }>`select count(*) as n from items`.execute(store.db)).rows[0]!.n, 3);
    await store.close();
  });

  it('closing commits the group still open', async () => {
    const store = open();
    const writes = [insert(store.db, 'p'), insert(store.db, 'q')];
    while (!store.sqlite.inTransaction) await Promise.resolve();
    await store.db.destroy();
    await Promise.all(writes);
    const reopened = new (loadSqliteDriver())(join(dir, `store-${files - 1}.sqlite`), { readonly: true });
    assert.deepEqual((reopened.prepare('select name from items order by id').all() as { name: string }[]).map((row) => row.name), ['p', 'q']);
    reopened.close();
  });
});
