/**
 * The customer's personal data in the order store (UU PDP): finding a person's orders, redacting
 * them in place, and the retention pass. Redaction blanks the name, e-mail and phone, drops the
 * merchant's `metadata` (it may hold anything) and any `onPaid` error text, and keeps the financial
 * record: order number, amounts, method, times, state, the merchant's `reference`.
 *
 * On SQLite, every connection runs with `secure_delete` (`database.ts`), so the bytes a redaction
 * frees are zeroed, and `flush()` checkpoints the WAL and truncates it, so the old page images
 * leave the log file too.
 */
import { sql, type Kysely } from 'kysely';
import { iso, toOrder, type Order, type UnreadableRow } from './order-model.ts';
import type { OrderStatus, PayButtonDatabase } from './schema.ts';

/** Who the data belongs to: any of the three; an order matches when it matches every one given. */
export interface PersonQuery {
  readonly email?: string | undefined;
  readonly phone?: string | undefined;
  readonly orderNum?: string | undefined;
}

/** The states after which an order can change no more (`paid` still runs `onPaid`, see `erasable`). */
export const FINAL_STATUSES = ['paid', 'expired', 'failed'] as const satisfies readonly OrderStatus[];

/** What a redacted order holds instead of the customer's values. */
export const REDACTED = { customer_name: '', email: '', phone: '', metadata: null, fulfil_error: null } as const;

export class PersonalDataStore {
  constructor(
    private readonly db: Kysely<PayButtonDatabase>,
    /** The SQLite file's WAL truncation, when the plug-in opened the file (`database.ts`). */
    private readonly truncateWal: (() => Promise<boolean>) | undefined,
    private readonly unreadable?: UnreadableRow,
  ) {}

  /** The orders of the person (redacted ones included: they match by order number only). */
  async find(query: PersonQuery, limit: number): Promise<(Order & { readonly redactedAt: Date | null })[]> {
    let select = this.db.selectFrom('tombolbayar_orders').selectAll();
    // E-mail addresses are compared without case (the part people type differently).
    if (query.email !== undefined) select = select.where(sql<string>`lower(email)`, '=', query.email.toLowerCase());
    if (query.phone !== undefined) select = select.where('phone', '=', query.phone);
    if (query.orderNum !== undefined) select = select.where('order_num', '=', query.orderNum);
    const rows = await select.orderBy('created_at').orderBy('order_num').limit(limit).execute();
    return rows.map((row) => ({ ...toOrder(row, this.unreadable), redactedAt: row.redacted_at ? new Date(row.redacted_at) : null }));
  }

  /**
   * Redact these orders, each only while it is final (a paid one once `onPaid` has returned):
   * an order that moved on since it was read is left alone. Returns the order numbers redacted.
   */
  async redact(orderNums: readonly string[], now: Date): Promise<string[]> {
    if (orderNums.length === 0) return [];
    const rows = await this.db
      .updateTable('tombolbayar_orders')
      .set({ ...REDACTED, redacted_at: iso(now) })
      .where('order_num', 'in', [...orderNums])
      .where((eb) => eb.or([eb('status', 'in', ['expired', 'failed']), eb.and([eb('status', '=', 'paid'), eb('fulfilled_at', 'is not', null)])]))
      .returning('order_num')
      .execute();
    return rows.map((row) => row.order_num);
  }

  /**
   * The retention pass: redact up to `limit` final orders last changed before `cutoff` and not
   * redacted yet (a paid order only once fulfilled). The states are literals in the SQL so SQLite
   * can use the partial index `paybutton_orders_unredacted_final` (named before the table was renamed). Returns how many.
   */
  async redactBefore(cutoff: Date, now: Date, limit: number): Promise<number> {
    const due = this.db
      .selectFrom('tombolbayar_orders')
      .select('order_num')
      .where('redacted_at', 'is', null)
      .where('status', 'in', FINAL_STATUSES.map((status) => sql.lit<OrderStatus>(status)))
      .where('updated_at', '<', iso(cutoff))
      .where((eb) => eb.or([eb('status', '!=', sql.lit<OrderStatus>('paid')), eb('fulfilled_at', 'is not', null)]))
      .orderBy('updated_at')
      .limit(limit);
    const result = await this.db
      .updateTable('tombolbayar_orders')
      .set({ ...REDACTED, redacted_at: iso(now) })
      .where('order_num', 'in', due)
      .where('redacted_at', 'is', null)
      .executeTakeFirst();
    return Number(result.numUpdatedRows ?? 0n);
  }

  /**
   * SQLite: move the WAL into the database file and truncate the log, so no old page image with
   * the redacted values stays in it. Best effort: a reader in another process can keep the log
   * from being truncated until it ends (the next checkpoint then copies it over). PostgreSQL:
   * nothing (its old row versions go at the next VACUUM, see SECURITY.md).
   */
  async flush(): Promise<boolean> {
    return this.truncateWal ? this.truncateWal() : true;
  }
}
