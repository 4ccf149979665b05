import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Kysely, SqliteDialect, type Generated } from 'kysely';
import { loadSqliteDriver, prepare, withStatementCache, type Param } from '../src/index.ts';

interface Db {
  items: { id: Generated<number>; name: string; state: string; note: string | null };
}

function open(): { db: Kysely<Db> } {
  const sqlite = new (loadSqliteDriver())(':memory:');
  sqlite.exec("create table items (id integer primary key, name text not null unique, state text not null, note text)");
  const db = new Kysely<Db>({ dialect: new SqliteDialect({ database: withStatementCache(sqlite) }) });
  return { db };
}

describe('prepared queries', () => {
  it('bind named values in the places the compiler put them, keep constants, and compile once', async () => {
    const { db } = open();
    let builds = 0;
    const insert = prepare(db, (db, value: Param<{ name: string; note: string | null }>) => {
      builds++;
      return db.insertInto('items').values({ name: value('name'), state: 'new', note: value('note') }).onConflict((c) => c.column('name').doNothing()).returningAll();
    });
    const advance = prepare(db, (db, value: Param<{ name: string; note: string }>) =>
      db.updateTable('items').set({ state: 'done', note: value('note') }).where('name', '=', value('name')).where('state', 'in', ['new', 'open']).returningAll(),
    );
    assert.deepEqual(await insert.first({ name: 'a', note: null }), { id: 1, name: 'a', state: 'new', note: null });
    assert.deepEqual(await insert.first({ name: 'b', note: 'x' }), { id: 2, name: 'b', state: 'new', note: 'x' });
    assert.equal(await insert.first({ name: 'a', note: 'again' }), undefined, 'the conflict inserts nothing and returns no row');
    assert.equal(builds, 1);
    assert.deepEqual(await advance.rows({ name: 'b', note: 'y' }), [{ id: 2, name: 'b', state: 'done', note: 'y' }]);
    assert.deepEqual(await advance.rows({ name: 'b', note: 'z' }), [], 'the constant states still guard the update');
  });

  it('run inside a transaction of the instance they were built with', async () => {
    const { db } = open();
    const insert = prepare(db, (db, value: Param<{ name: string }>) => db.insertInto('items').values({ name: value('name'), state: 'new', note: null }));
    await assert.rejects(
      db.transaction().execute(async (trx) => {
        await insert.execute({ name: 'rolled-back' }, trx);
        throw new Error('abort');
      }),
      /abort/,
    );
    await db.transaction().execute(async (trx) => insert.execute({ name: 'kept' }, trx));
    assert.deepEqual((await db.selectFrom('items').select('name').execute()).map((row) => row.name), ['kept']);
  });

  it('refuse a run that lacks a value (null is a value; undefined is not)', async () => {
    const { db } = open();
    const select = prepare(db, (db, value: Param<{ name: string }>) => db.selectFrom('items').selectAll().where('name', '=', value('name')));
    await assert.rejects(select.rows({} as { name: string }), /no value for name/);
  });
});
