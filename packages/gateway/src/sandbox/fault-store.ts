/**
 * Sandbox fault rules, stored so they survive a restart and are shared by every gateway process
 * on one database. A rule covers one order (`orderNum`) or every order of a merchant (`''`). The
 * table is the sandbox's own (`migrations.ts`): not part of the gateway's schema.
 */
import type { Executor } from '../store/executor.ts';

export interface SandboxFaultsTable {
  merchant_code: string;
  /** `''` for a rule covering every order of the merchant. */
  order_num: string;
  settings: string;
  updated_at: number;
}

/** The gateway's executor, seeing the sandbox's table too. */
const withFaults = (db: Executor) => db.withTables<{ sandbox_faults: SandboxFaultsTable }>();

export interface FaultRuleRow {
  readonly merchantCode: string;
  /** null for the merchant-wide rule. */
  readonly orderNum: string | null;
  readonly settings: unknown;
  readonly updatedAt: number;
}

const key = (orderNum: string | null | undefined): string => orderNum ?? '';

export async function putFaultRule(
  db: Executor,
  rule: { merchantCode: string; orderNum?: string | null; settings: unknown },
  now: number,
): Promise<void> {
  const settings = JSON.stringify(rule.settings);
  await withFaults(db)
    .insertInto('sandbox_faults')
    .values({ merchant_code: rule.merchantCode, order_num: key(rule.orderNum), settings, updated_at: now })
    .onConflict((conflict) => conflict.columns(['merchant_code', 'order_num']).doUpdateSet({ settings, updated_at: now }))
    .execute();
}

export async function deleteFaultRule(db: Executor, merchantCode: string, orderNum?: string | null): Promise<boolean> {
  const result = await withFaults(db)
    .deleteFrom('sandbox_faults')
    .where('merchant_code', '=', merchantCode)
    .where('order_num', '=', key(orderNum))
    .executeTakeFirst();
  return Number(result.numDeletedRows) > 0;
}

export async function listFaultRules(db: Executor): Promise<FaultRuleRow[]> {
  const rows = await withFaults(db).selectFrom('sandbox_faults').selectAll().orderBy('merchant_code').orderBy('order_num').execute();
  return rows.map((row) => ({
    merchantCode: row.merchant_code,
    orderNum: row.order_num === '' ? null : row.order_num,
    settings: JSON.parse(row.settings) as unknown,
    updatedAt: Number(row.updated_at),
  }));
}

/** The order's own rule and the merchant-wide rule (either may be missing). */
export async function findFaultRules(
  db: Executor,
  merchantCode: string,
  orderNum: string,
): Promise<{ order?: unknown; merchant?: unknown }> {
  const rows = await withFaults(db)
    .selectFrom('sandbox_faults')
    .select(['order_num', 'settings'])
    .where('merchant_code', '=', merchantCode)
    .where('order_num', 'in', ['', orderNum])
    .execute();
  const found: { order?: unknown; merchant?: unknown } = {};
  for (const row of rows) {
    if (row.order_num === '') found.merchant = JSON.parse(row.settings) as unknown;
    else found.order = JSON.parse(row.settings) as unknown;
  }
  return found;
}
