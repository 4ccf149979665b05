/** Merchant branding rows (sandbox dashboard): display name, logo, accent colour and support contact per merchant. */
import type { Selectable } from 'kysely';
import type { Executor } from './executor.ts';
import type { MerchantBrandingTable } from './schema.ts';

/** How a merchant looks; every part optional (null = not set). */
export interface MerchantBranding {
  readonly displayName: string | null;
  readonly logo: string | null;
  readonly accentColor: string | null;
  /** How customers reach the merchant (email, phone or URL), shown as plain text on the hosted page. */
  readonly supportContact: string | null;
}

export const NO_BRANDING: MerchantBranding = Object.freeze({ displayName: null, logo: null, accentColor: null, supportContact: null });

function toBranding(row: Selectable<MerchantBrandingTable>): MerchantBranding {
  return { displayName: row.display_name, logo: row.logo, accentColor: row.accent_color, supportContact: row.support_contact };
}

export async function findBranding(db: Executor, merchantCode: string): Promise<MerchantBranding | undefined> {
  const row = await db.selectFrom('merchant_branding').selectAll().where('merchant_code', '=', merchantCode).executeTakeFirst();
  return row ? toBranding(row) : undefined;
}

/** Insert or replace a merchant's branding (the merchant must exist: foreign key). */
export async function saveBranding(db: Executor, merchantCode: string, branding: MerchantBranding, now: number): Promise<void> {
  const values = {
    display_name: branding.displayName,
    logo: branding.logo,
    accent_color: branding.accentColor,
    support_contact: branding.supportContact,
    updated_at: now,
  };
  await db
    .insertInto('merchant_branding')
    .values({ merchant_code: merchantCode, ...values })
    .onConflict((conflict) => conflict.column('merchant_code').doUpdateSet(values))
    .execute();
}
