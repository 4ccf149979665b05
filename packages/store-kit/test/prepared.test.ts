import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Kysely, SqliteDialect, type Generated, type KyselyPlugin } from 'kysely';
import { loadSqliteDriver, prepare, withStatementCache, type Param } from '../src/index.ts';

interface Db {
  items: { id: Generated<number>; name: string; state: string; note: string | null };
}

function open(): { db: Kysely<Db>; sqlite: InstanceType<ReturnType<typeof loadSqliteDriver>> } {
  const sqlite = new (loadSqliteDriver())(':memory:');
  sqlite.exec('create table items (id integer primary key, name text not null unique, state text not null, note text)');
  return { db: new Kysely<Db>({ dialect: new SqliteDialect({ database: withStatementCache(sqlite) }) }), sqlite };
}

let builds = 0;
const insert = prepare((db: Kysely<Db>, value: Param<{ name: string; note: string | null }>) => {
  builds++;
  return db.insertInto('items').values({ name: value('name'), state: 'new', note: value('note') }).onConflict((c) => c.column('name').doNothing()).returningAll();
});
const advance = prepare((db: Kysely<Db>, value: Param<{ name: string; note: string }>) =>
  db.updateTable('items').set({ state: 'done', note: value('note') }).where('name', '=', value('name')).where('state', 'in', ['new', 'open']).returningAll(),
);

describe('prepared queries', () => {
  it('bind named values in the places the compiler put them, keep constants, and compile once per kind of instance', async () => {
    const { db } = open();
    const other = open().db; // another instance of the same dialect: the same compiled text
    builds = 0;
    assert.deepEqual(await insert.first(db, { name: 'a', note: null }), { id: 1, name: 'a', state: 'new', note: null });
    assert.deepEqual(await insert.first(db, { name: 'b', note: 'x' }), { id: 2, name: 'b', state: 'new', note: 'x' });
    assert.equal(await insert.first(db, { name: 'a', note: 'again' }), undefined, 'the conflict inserts nothing and returns no row');
    assert.deepEqual(await insert.first(other, { name: 'a', note: null }), { id: 1, name: 'a', state: 'new', note: null });
    assert.equal(builds, 1);
    assert.deepEqual(await advance.rows(db, { name: 'b', note: 'y' }), [{ id: 2, name: 'b', state: 'done', note: 'y' }]);
    assert.deepEqual(await advance.rows(db, { name: 'b', note: 'z' }), [], 'the constant states still guard the update');
  });

  it('compile again for an instance whose plugins change the SQL (withSchema)', async () => {
    const { db, sqlite } = open();
    sqlite.exec("attach database ':memory:' as aux; create table aux.items (id integer primary key, name text not null unique, state text not null, note text)");
    await insert.execute(db.withSchema('aux'), { name: 'in-aux', note: null });
    await insert.execute(db, { name: 'in-main', note: null });
    assert.deepEqual(sqlite.prepare('select name from aux.items').all(), [{ name: 'in-aux' }]);
    assert.deepEqual(sqlite.prepare('select name from main.items').all(), [{ name: 'in-main' }]);
  });

  it('run inside a transaction of the instance', async () => {
    const { db } = open();
    await assert.rejects(
      db.transaction().execute(async (trx) => {
        await insert.execute(trx, { name: 'rolled-back', note: null });
        throw new Error('abort');
      }),
      /abort/,
    );
    await db.transaction().execute(async (trx) => insert.execute(trx, { name: 'kept', note: null }));
    assert.deepEqual((await db.selectFrom('items').select('name').execute()).map((row) => row.name), ['kept']);
  });

  it('with reuse off, build every run, so the plugins of an instance someone else made see each query', async () => {
    const sqlite = new (loadSqliteDriver())(':memory:');
    sqlite.exec('create table items (id integer primary key, name text not null unique, state text not null, note text)');
    let seen = 0;
    const tracer: KyselyPlugin = { transformQuery: (args) => (seen++, args.node), transformResult: async (args) => args.result };
    const traced = new Kysely<Db>({ dialect: new SqliteDialect({ database: sqlite }), plugins: [tracer] });
    await insert.execute(traced, { name: 'one', note: null }, false);
    await insert.execute(traced, { name: 'two', note: 'x' }, false);
    assert.equal(seen, 2);
    assert.deepEqual(sqlite.prepare('select name, note from items order by id').all(), [{ name: 'one', note: null }, { name: 'two', note: 'x' }]);
    await assert.rejects(insert.execute(traced, { name: 'three' } as { name: string; note: string | null }, false), /no value for note/);
  });

  it('refuse a run that lacks a value (null is a value; undefined is not)', async () => {
    const { db } = open();
    await assert.rejects(insert.rows(db, { name: 'x' } as { name: string; note: string | null }), /no value for note/);
  });
});
