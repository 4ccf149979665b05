/**
 * Recognising unique-constraint violations on both engines, so the domain can tell "this
 * orderNum is taken" from "this random VA number collided, draw another".
 */

/** The unique constraints the domain reacts to. */
export type UniqueConstraint = 'order_num' | 'va_number' | 'other';

interface DriverError {
  code?: unknown;
  constraint?: unknown;
  message?: unknown;
}

/** Which unique constraint the error violated, or undefined when it is no unique violation. */
export function uniqueViolation(error: unknown): UniqueConstraint | undefined {
  if (typeof error !== 'object' || error === null) return undefined;
  const { code, constraint, message } = error as DriverError;
  // PostgreSQL: SQLSTATE 23505 with the constraint's name.
  if (code === '23505') {
    if (constraint === 'orders_merchant_order_unique') return 'order_num';
    if (constraint === 'orders_va_number_unique') return 'va_number';
    return 'other';
  }
  // SQLite (better-sqlite3): "UNIQUE constraint failed: orders.merchant_code, orders.order_num".
  if (code === 'SQLITE_CONSTRAINT_UNIQUE' || code === 'SQLITE_CONSTRAINT_PRIMARYKEY') {
    const text = typeof message === 'string' ? message : '';
    if (text.includes('orders.order_num')) return 'order_num';
    if (text.includes('orders.va_number')) return 'va_number';
    return 'other';
  }
  return undefined;
}
