/** Merchant rows: who may call the gateway, with which public key their `sign` verifies, and what they are notified of. */
import { prepare, type Param } from '@tombolbayar/store-kit';
import type { Kysely, Selectable } from 'kysely';
import { DEFAULT_NOTIFICATION_KINDS, kindsFromStored, type NotificationKind } from '../domain/notify-kinds.ts';
import type { Merchant } from '../domain/types.ts';
import type { Executor } from './executor.ts';
import type { GatewayDatabase, MerchantsTable } from './schema.ts';

function toMerchant(row: Selectable<MerchantsTable>): Merchant {
  return {
    merchantCode: row.merchant_code,
    name: row.name,
    publicKey: row.public_key,
    notify: kindsFromStored(row.notify_kinds),
    createdAt: Number(row.created_at),
    updatedAt: Number(row.updated_at),
  };
}

/**
 * Insert the merchant, or replace its key and name when it exists (keys rotate). `notify` is
 * stored when given; without it a new merchant gets the default and an existing one keeps its own
 * (a restart with the same `--merchant` flags never undoes a `merchant update`).
 */
export async function upsertMerchant(
  db: Executor,
  merchant: { merchantCode: string; publicKey: string; name?: string | null | undefined; notify?: readonly NotificationKind[] | undefined },
  now: number,
): Promise<void> {
  await db
    .insertInto('merchants')
    .values({
      merchant_code: merchant.merchantCode,
      name: merchant.name ?? null,
      public_key: merchant.publicKey,
      notify_kinds: JSON.stringify(merchant.notify ?? DEFAULT_NOTIFICATION_KINDS),
      created_at: now,
      updated_at: now,
    })
    .onConflict((conflict) =>
      conflict.column('merchant_code').doUpdateSet({
        public_key: merchant.publicKey,
        name: merchant.name ?? null,
        ...(merchant.notify ? { notify_kinds: JSON.stringify(merchant.notify) } : {}),
        updated_at: now,
      }),
    )
    .execute();
}

/** Set the kinds an existing merchant is notified of; false when there is no such merchant. */
export async function saveMerchantNotify(db: Executor, merchantCode: string, notify: readonly NotificationKind[], now: number): Promise<boolean> {
  const result = await db
    .updateTable('merchants')
    .set({ notify_kinds: JSON.stringify(notify), updated_at: now })
    .where('merchant_code', '=', merchantCode)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) > 0;
}

/** Every signed request looks its merchant up: compiled once. */
const byMerchantCode = prepare((db: Kysely<GatewayDatabase>, value: Param<{ merchantCode: string }>) =>
  db.selectFrom('merchants').selectAll().where('merchant_code', '=', value('merchantCode')),
);

export async function findMerchant(db: Executor, merchantCode: string): Promise<Merchant | undefined> {
  const row = await byMerchantCode.first(db, { merchantCode });
  return row ? toMerchant(row) : undefined;
}

/** The kinds a merchant is notified of (the default for an unknown code: never more than asked). */
export async function merchantNotifyKinds(db: Executor, merchantCode: string): Promise<readonly NotificationKind[]> {
  const row = await db.selectFrom('merchants').select('notify_kinds').where('merchant_code', '=', merchantCode).executeTakeFirst();
  return kindsFromStored(row?.notify_kinds);
}

export async function listMerchants(db: Executor): Promise<Merchant[]> {
  const rows = await db.selectFrom('merchants').selectAll().orderBy('merchant_code').execute();
  return rows.map(toMerchant);
}
