/**
 * Issue 36: which final states each merchant is notified of. Paid only for a new merchant (as the
 * family does), failed and expired on request, from every place a merchant is set up: the
 * `createGateway` options, `updateMerchant`, the CLI and the sandbox dashboard. A restart that
 * names the merchant again keeps its setting; a merchant stored before the setting existed keeps
 * every kind it was sent (the migration changes nothing under a running integration).
 */
import assert from 'node:assert/strict';
import { rmSync } from 'node:fs';
import { after, before, describe, test } from 'node:test';
import { Migrator, sql } from 'kysely';
import { createGateway, GatewayConfigError } from '../src/index.ts';
import { main } from '../src/cli.ts';
import { databaseIn } from '../src/options.ts';
import { ensureSchema, openDatabase } from '../src/store/database.ts';
import { MIGRATIONS, migrateToLatest } from '../src/store/migrations.ts';
import { findMerchant } from '../src/store/merchants.ts';
import { ENGINES, freshStore, tempDir } from './support/engines.ts';
import { MERCHANT_CODE, notifiedOf, startHarness, type Harness } from './support/harness.ts';
import { merchantKeys, platformKeys } from './support/keys.ts';

async function run(args: readonly string[]) {
  const stdout: string[] = [];
  const stderr: string[] = [];
  const code = await main(args, { out: (line) => stdout.push(line), err: (line) => stderr.push(line), env: {} });
  return { code, stdout: stdout.join('\n'), stderr: stderr.join('\n') };
}

/** A form POST as the dashboard's own page sends it (repeated `notify` fields, as checkboxes do). */
async function postForm(url: string, body: URLSearchParams) {
  const response = await fetch(url, {
    method: 'POST',
    redirect: 'manual',
    headers: { 'content-type': 'application/x-www-form-urlencoded', 'sec-fetch-site': 'same-origin', origin: new URL(url).origin },
    body: body.toString(),
  });
  return { status: response.status, text: await response.text(), location: response.headers.get('location') };
}

describe('notification kinds in the options', () => {
  const base = { platformPrivateKey: platformKeys().privateKey, logger: false as const, database: { kind: 'sqlite' as const, file: ':memory:' } };
  for (const notify of [[], ['failed'], ['paid', 'refunded']]) {
    test(`refuses notify ${JSON.stringify(notify)}, naming the option`, () => {
      const merchants = [{ merchantCode: MERCHANT_CODE, publicKey: merchantKeys().publicKey, notify: notify as never }];
      assert.throws(() => createGateway({ ...base, merchants }), (error: unknown) => error instanceof GatewayConfigError && /merchants\.0\.notify.*: must list paid/.test(error.message));
    });
  }
});

for (const engine of ENGINES) {
  describe(`notification kinds on ${engine}`, () => {
    test('a merchant stored before the setting existed keeps every kind; one created after gets paid', async () => {
      const store = freshStore(engine);
      const database = openDatabase(databaseIn(store.dataDir, store.database));
      try {
        if (store.database.kind === 'postgres') await ensureSchema(database, store.database.schema);
        const before = Object.fromEntries(Object.entries(MIGRATIONS).filter(([name]) => name < '2026_12_01_001_merchant_notify_kinds'));
        const older = new Migrator({
          db: database.db,
          provider: { getMigrations: async () => before },
          migrationTableName: 'gateway_migrations',
          migrationLockTableName: 'gateway_migrations_lock',
          ...(store.database.kind === 'postgres' ? { migrationTableSchema: store.database.schema } : {}),
        });
        assert.equal((await older.migrateToLatest()).error, undefined);
        await sql`insert into merchants (merchant_code, name, public_key, created_at, updated_at) values ('OLD-SHOP-1', null, ${merchantKeys().publicKey}, 1, 1)`.execute(database.db);
        await migrateToLatest(database.db, database.engine);
        assert.deepEqual((await findMerchant(database.db, 'OLD-SHOP-1'))?.notify, ['paid', 'failed', 'expired']);
      } finally {
        await database.close();
      }
      const gateway = createGateway({ database: store.database, dataDir: store.dataDir, platformPrivateKey: platformKeys().privateKey, logger: false, merchants: [{ merchantCode: 'NEW-SHOP-1', publicKey: merchantKeys().publicKey }] });
      try {
        assert.deepEqual((await gateway.findMerchant('NEW-SHOP-1'))?.notify, ['paid']);
        assert.deepEqual((await gateway.findMerchant('OLD-SHOP-1'))?.notify, ['paid', 'failed', 'expired'], 'untouched by the start');
      } finally {
        await gateway.close();
        await store.cleanup();
      }
    });

    test('options set it; a restart without notify keeps what is stored, one with notify replaces it', async () => {
      const store = freshStore(engine);
      const start = (options: object) => createGateway({ database: store.database, dataDir: store.dataDir, platformPrivateKey: platformKeys().privateKey, logger: false, ...options });
      const keep = async (options: object, expected: readonly string[]) => {
        const gateway = start(options);
        try {
          assert.deepEqual((await gateway.findMerchant(MERCHANT_CODE))?.notify, expected);
        } finally {
          await gateway.close();
        }
      };
      try {
        await keep(notifiedOf(['paid', 'expired']), ['paid', 'expired']);
        await keep({ merchants: [{ merchantCode: MERCHANT_CODE, publicKey: merchantKeys().publicKey }] }, ['paid', 'expired']);
        await keep(notifiedOf(['paid']), ['paid']);
      } finally {
        await store.cleanup();
      }
    });
  });

  describe(`the sandbox dashboard's setting on ${engine}`, () => {
    let h: Harness;
    before(async () => {
      h = await startHarness(engine);
    });
    after(() => h.stop());

    test('shows the kinds, saves the boxes ticked (paid always), refuses what is not a kind', async () => {
      const page = `${h.url}/sandbox/dashboard/merchants/${MERCHANT_CODE}`;
      const shown = await (await fetch(page)).text();
      assert.match(shown, /Notifications sent/);
      assert.match(shown, /<input type="checkbox" name="notify" value="paid" checked disabled>/);
      assert.match(shown, /<input type="checkbox" name="notify" value="failed">/);
      const saved = await postForm(`${page}/notify`, new URLSearchParams([['notify', 'paid'], ['notify', 'failed'], ['notify', 'expired']]));
      assert.equal(saved.status, 303);
      assert.deepEqual((await h.gateway.findMerchant(MERCHANT_CODE))?.notify, ['paid', 'failed', 'expired']);
      assert.match(await (await fetch(`${h.url}${saved.location}`)).text(), /value="expired" checked/);
      assert.equal((await postForm(`${page}/notify`, new URLSearchParams([['notify', 'paid']]))).status, 303);
      assert.deepEqual((await h.gateway.findMerchant(MERCHANT_CODE))?.notify, ['paid'], 'unticked: only paid');
      const refused = await postForm(`${page}/notify`, new URLSearchParams([['notify', 'paid'], ['notify', 'refunded']]));
      assert.equal(refused.status, 400);
      assert.match(refused.text, /notify: must list paid and any of failed, expired/);
      assert.equal((await postForm(`${h.url}/sandbox/dashboard/merchants/NOBODY-1/notify`, new URLSearchParams([['notify', 'paid']]))).status, 404);
    });
  });
}

describe('the CLI: merchant create|update --notify, and list', () => {
  let dir: string;
  before(() => {
    dir = tempDir('gw-notify-cli-');
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  test('create with and without --notify, update, list; a bad list is a usage error naming the flag', async () => {
    const plain = await run(['merchant', 'create', 'SHOP-PLAIN', '--data', dir]);
    assert.equal(plain.code, 0, plain.stderr);
    assert.match(plain.stdout, /notified of: paid \(as the family/);
    const every = await run(['merchant', 'create', 'SHOP-EVERY', '--notify', 'paid,failed,expired', '--data', dir]);
    assert.equal(every.code, 0, every.stderr);
    assert.match(every.stdout, /notified of: paid, failed, expired$/m);
    const updated = await run(['merchant', 'update', 'SHOP-PLAIN', '--notify', 'expired,paid', '--data', dir]);
    assert.equal(updated.code, 0, updated.stderr);
    assert.match(updated.stdout, /Merchant SHOP-PLAIN is notified of: paid, expired\./);
    const listed = (await run(['merchant', 'list', '--data', dir])).stdout;
    assert.match(listed, /NOTIFY/);
    assert.match(listed, /SHOP-EVERY\s+-\s+0\s+paid,failed,expired/);
    assert.match(listed, /SHOP-PLAIN\s+-\s+0\s+paid,expired/);
    for (const [args, message] of [
      [['merchant', 'update', 'SHOP-PLAIN', '--notify', 'failed'], /--notify must list paid/],
      [['merchant', 'update', 'SHOP-PLAIN'], /merchant update needs a setting: --notify/],
      [['merchant', 'create', 'SHOP-BAD', '--notify', 'paid,refunded'], /--notify must list paid.*refunded is not one/],
      [['merchant', 'update', 'NOBODY-1', '--notify', 'paid'], /no merchant NOBODY-1; create it first/],
    ] as const) {
      const result = await run([...args, '--data', dir]);
      assert.equal(result.code, 2, `${args.join(' ')}: ${result.stderr}`);
      assert.match(result.stderr, message);
    }
  });
});
