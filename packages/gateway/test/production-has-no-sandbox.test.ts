/**
 * Issue 33: the sandbox is composed onto a production gateway, never inside it. A gateway started
 * without `sandbox: true` has no sandbox route, no simulations, no fault hooks and no sandbox table
 * (on SQLite, and on PostgreSQL when DATABASE_URL is set); its creates and transitions run with the
 * sandbox's table absent. A database that already has `sandbox_faults` (created by the gateway's
 * initial migration before issue 33) keeps it in production and keeps working in the sandbox.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import pg from 'pg';
import BetterSqlite3 from 'better-sqlite3';
import { createGateway, type Gateway } from '../src/index.ts';
import { gatewayInternals, PRODUCTION_HOOKS, simulationsFor } from '../src/internal.ts';
import { merchantClient } from './support/client.ts';
import { ENGINES, freshStore, type FreshStore } from './support/engines.ts';
import { MERCHANT_CODE, confinedNotifications } from './support/harness.ts';
import { merchantKeys, platformKeys } from './support/keys.ts';

const SANDBOX_TABLES = ['sandbox_faults', 'sandbox_migrations', 'sandbox_migrations_lock'];
const NOTIFY_URL = 'https://shop.example.com/notify';

/** The tables of the store's database (its PostgreSQL schema), read through a connection of the test's own. */
async function tablesOf(store: FreshStore): Promise<string[]> {
  const database = store.database;
  if (database.kind === 'sqlite') {
    const sqlite = new BetterSqlite3(database.file, { readonly: true });
    try {
      return (sqlite.prepare("select name from sqlite_master where type = 'table'").all() as { name: string }[]).map((row) => row.name).sort();
    } finally {
      sqlite.close();
    }
  }
  return withPg(store, async (client) => {
    const result = await client.query<{ name: string }>('select table_name as name from information_schema.tables where table_schema = $1', [database.schema]);
    return result.rows.map((row) => row.name).sort();
  });
}

async function withPg<T>(store: FreshStore, use: (client: pg.Client) => Promise<T>): Promise<T> {
  const database = store.database as { url: string; schema: string };
  const client = new pg.Client({ connectionString: database.url });
  await client.connect();
  try {
    await client.query(`set search_path to ${database.schema}`);
    return await use(client);
  } finally {
    await client.end();
  }
}

/** Run SQL on the store's database, as an earlier gateway version would have. */
async function execute(store: FreshStore, statements: readonly string[]): Promise<void> {
  if (store.database.kind === 'sqlite') {
    const sqlite = new BetterSqlite3(store.database.file);
    try {
      for (const statement of statements) sqlite.exec(statement);
    } finally {
      sqlite.close();
    }
    return;
  }
  await withPg(store, async (client) => {
    for (const statement of statements) await client.query(statement);
  });
}

async function start(store: FreshStore, sandbox: boolean): Promise<{ gateway: Gateway; client: ReturnType<typeof merchantClient> }> {
  const keys = merchantKeys();
  const gateway = createGateway({
    database: store.database,
    dataDir: store.dataDir,
    platformPrivateKey: platformKeys().privateKey,
    merchants: [{ merchantCode: MERCHANT_CODE, publicKey: keys.publicKey, name: 'Toko Test' }],
    sandbox,
    logger: false,
    notifications: confinedNotifications({ worker: false }),
  });
  const { url } = await gateway.listen();
  return { gateway, client: merchantClient(url, { merchantCode: MERCHANT_CODE, privateKey: keys.privateKey }) };
}

const SANDBOX_PATHS = [
  ['POST', '/sandbox/orders/X/pay'],
  ['GET', '/sandbox/orders/X'],
  ['GET', '/sandbox/clock'],
  ['GET', '/sandbox/faults'],
  ['PUT', `/sandbox/faults/${MERCHANT_CODE}`],
  ['GET', '/sandbox/deliveries'],
  ['GET', '/sandbox/dashboard'],
  ['POST', '/pay/sandbox'],
] as const;

for (const engine of ENGINES) {
  describe(`a production gateway has no sandbox in it (${engine})`, () => {
    test('no routes, no simulations, production hooks, no sandbox table; creates and payments work without it', async () => {
      const store = freshStore(engine);
      const { gateway, client } = await start(store, false);
      try {
        for (const [method, path] of SANDBOX_PATHS) {
          const response = await fetch(`${gateway.url}${path}`, { method, ...(method === 'GET' ? {} : { headers: { 'content-type': 'application/json' }, body: '{}' }) });
          assert.equal(response.status, 404, `${method} ${path}`);
          await response.arrayBuffer();
        }
        const internals = gatewayInternals(gateway);
        assert.equal(internals.simulate, undefined, 'no simulations registered');
        assert.equal(internals.pageDeps.sandbox, undefined, 'no simulate buttons on the page');
        assert.equal(internals.domain.hooks, PRODUCTION_HOOKS, 'the create and notification seams are the production no-ops');
        for (const member of ['pay', 'expire', 'fail', 'chooseMethod', 'clock']) assert.ok(!(member in gateway), member);

        const tables = await tablesOf(store);
        assert.ok(tables.includes('orders') && tables.includes('gateway_migrations'), tables.join());
        for (const table of SANDBOX_TABLES) assert.ok(!tables.includes(table), `${table} in ${tables.join()}`);

        // With the sandbox's table absent, a create and a state transaction still succeed: neither reads it.
        const created = await client.createVa({ notifyUrl: NOTIFY_URL });
        assert.equal(created.body.platRespCode, 'SUCCESS', created.body.platRespMessage);
        // The test composes the sandbox's simulation itself; the gateway still has none.
        assert.equal((await simulationsFor(gateway).pay(created.body.platOrderNum!)).status, 'PAID');
        assert.equal(gatewayInternals(gateway).simulate, undefined);
        const deliveries = await gateway.deliveries.list({ platOrderNum: created.body.platOrderNum! });
        assert.deepEqual(deliveries.map((delivery) => [delivery.state, delivery.fault]), [['pending', null]]);
      } finally {
        await gateway.close();
        await store.cleanup();
      }
    });

    test('the sandbox brings its own table; a database that already has sandbox_faults keeps it in production and works in the sandbox', async () => {
      const store = freshStore(engine);
      try {
        const first = await start(store, false);
        await first.gateway.close();
        // What the gateway's initial migration created before issue 33, with a rule in it.
        await execute(store, [
          'create table sandbox_faults (merchant_code text not null, order_num text not null, settings text not null, updated_at bigint not null, constraint sandbox_faults_pk primary key (merchant_code, order_num))',
          `insert into sandbox_faults values ('${MERCHANT_CODE}', '', '{"create":{"respond":"UNKNOWN"}}', 0)`,
        ]);

        const production = await start(store, false);
        try {
          const created = await production.client.createVa({ notifyUrl: NOTIFY_URL });
          assert.equal(created.body.platRespCode, 'SUCCESS', 'production never reads the rule');
        } finally {
          await production.gateway.close();
        }
        const tables = await tablesOf(store);
        assert.ok(tables.includes('sandbox_faults') && !tables.includes('sandbox_migrations'), 'left alone in production');

        const sandbox = await start(store, true);
        try {
          assert.notEqual(gatewayInternals(sandbox.gateway).domain.hooks, PRODUCTION_HOOKS);
          assert.ok(gatewayInternals(sandbox.gateway).simulate);
          const created = await sandbox.client.createVa();
          assert.equal(created.body.platRespCode, 'UNKNOWN', 'the rule written before the upgrade applies');
          const rules = await fetch(`${sandbox.gateway.url}/sandbox/faults`).then((response) => response.json() as Promise<{ faults: unknown[] }>);
          assert.equal(rules.faults.length, 1);
        } finally {
          await sandbox.gateway.close();
        }
        const after = await tablesOf(store);
        for (const table of ['sandbox_faults', 'sandbox_migrations']) assert.ok(after.includes(table), `${table} in ${after.join()}`);
      } finally {
        await store.cleanup();
      }
    });

    test('a sandbox gateway on a fresh database creates its table through its own migrations', async () => {
      const store = freshStore(engine);
      const sandbox = await start(store, true);
      try {
        const tables = await tablesOf(store);
        for (const table of ['sandbox_faults', 'sandbox_migrations']) assert.ok(tables.includes(table), `${table} in ${tables.join()}`);
        const put = await fetch(`${sandbox.gateway.url}/sandbox/faults/${MERCHANT_CODE}`, {
          method: 'PUT',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ create: { respond: 'UNKNOWN', orderCreated: false } }),
        });
        assert.equal(put.status, 200, await put.text());
        assert.equal((await sandbox.client.createVa()).body.platRespCode, 'UNKNOWN');
      } finally {
        await sandbox.gateway.close();
        await store.cleanup();
      }
    });
  });
}
