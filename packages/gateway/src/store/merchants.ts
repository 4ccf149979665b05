/** Merchant rows: who may call the gateway, and with which public key their `sign` verifies. */
import { prepare, type Param } from '@tombolbayar/store-kit';
import type { Kysely, Selectable } from 'kysely';
import type { Merchant } from '../domain/types.ts';
import type { Executor } from './executor.ts';
import type { GatewayDatabase, MerchantsTable } from './schema.ts';

function toMerchant(row: Selectable<MerchantsTable>): Merchant {
  return {
    merchantCode: row.merchant_code,
    name: row.name,
    publicKey: row.public_key,
    createdAt: Number(row.created_at),
    updatedAt: Number(row.updated_at),
  };
}

/** Insert the merchant, or replace its key and name when it exists (keys rotate). */
export async function upsertMerchant(
  db: Executor,
  merchant: { merchantCode: string; publicKey: string; name?: string | null | undefined },
  now: number,
): Promise<void> {
  await db
    .insertInto('merchants')
    .values({
      merchant_code: merchant.merchantCode,
      name: merchant.name ?? null,
      public_key: merchant.publicKey,
      created_at: now,
      updated_at: now,
    })
    .onConflict((conflict) =>
      conflict.column('merchant_code').doUpdateSet({
        public_key: merchant.publicKey,
        name: merchant.name ?? null,
        updated_at: now,
      }),
    )
    .execute();
}

/** Every signed request looks its merchant up: compiled once. */
const byMerchantCode = prepare((db: Kysely<GatewayDatabase>, value: Param<{ merchantCode: string }>) =>
  db.selectFrom('merchants').selectAll().where('merchant_code', '=', value('merchantCode')),
);

export async function findMerchant(db: Executor, merchantCode: string): Promise<Merchant | undefined> {
  const row = await byMerchantCode.first(db, { merchantCode });
  return row ? toMerchant(row) : undefined;
}

export async function listMerchants(db: Executor): Promise<Merchant[]> {
  const rows = await db.selectFrom('merchants').selectAll().orderBy('merchant_code').execute();
  return rows.map(toMerchant);
}
