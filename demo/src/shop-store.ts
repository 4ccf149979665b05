/**
 * The shop's own books: the orders it showed the customer and the sales `onPaid` recorded. Kept
 * apart from the plug-in's store, as a real shop keeps its order table apart from its payment
 * provider's, in an SQLite file beside the plug-in's.
 */
import { preparePrivateSqliteFile } from '@tombolbayar/store-kit';
import BetterSqlite3 from 'better-sqlite3';

export type ShopOrderStatus = 'pending' | 'paid' | 'expired' | 'failed';

export interface ShopOrder {
  readonly orderNum: string;
  readonly items: string;
  readonly payMoney: number;
  /** The chosen method's fee, once known: the customer pays `payMoney + payFee`. */
  readonly payFee: number | null;
  readonly method: string | null;
  readonly status: ShopOrderStatus;
  readonly createdAt: string;
  readonly paidAt: string | null;
}

export interface ShopStore {
  recordOrder(order: { orderNum: string; items: string; payMoney: number; method: string | null }): void;
  setStatus(orderNum: string, status: ShopOrderStatus, method: string | null, payFee?: number | null): void;
  /** Idempotent: a second call for one order changes nothing and returns false. */
  recordSale(orderNum: string, paidAt: Date, method?: string | null): boolean;
  recent(limit?: number): ShopOrder[];
  sales(): number;
  close(): void;
}

export function openShopStore(file: string): ShopStore {
  // Customers' orders: the file (and its -wal, -shm) 0600, its folder 0700, like the plug-in's store.
  preparePrivateSqliteFile(file, { ownsFolder: true });
  const db = new BetterSqlite3(file);
  db.pragma('journal_mode = WAL');
  db.pragma('busy_timeout = 5000');
  db.exec(`
    CREATE TABLE IF NOT EXISTS shop_orders (
      order_num TEXT PRIMARY KEY,
      items TEXT NOT NULL,
      pay_money INTEGER NOT NULL,
      pay_fee INTEGER,
      method TEXT,
      status TEXT NOT NULL DEFAULT 'pending',
      created_at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now')),
      paid_at TEXT
    );
    CREATE TABLE IF NOT EXISTS sales (
      order_num TEXT PRIMARY KEY,
      paid_at TEXT NOT NULL
    );
  `);
  // A file from before the fee was kept: add its column (SQLite has no ADD COLUMN IF NOT EXISTS).
  const columns = db.prepare('SELECT name FROM pragma_table_info(?)').all('shop_orders') as Array<{ name: string }>;
  if (!columns.some((column) => column.name === 'pay_fee')) db.exec('ALTER TABLE shop_orders ADD COLUMN pay_fee INTEGER');
  const insertOrder = db.prepare(
    'INSERT INTO shop_orders (order_num, items, pay_money, method) VALUES (?, ?, ?, ?) ON CONFLICT (order_num) DO NOTHING',
  );
  // A late "expired" never overwrites a sale: paid is final. The method is recorded whenever it is
  // known, paid or not: onPaid may mark the row paid before this order's transition event is handled.
  const updateStatus = db.prepare(
    "UPDATE shop_orders SET status = CASE WHEN status = 'paid' THEN status ELSE ? END, method = COALESCE(?, method), pay_fee = COALESCE(?, pay_fee) WHERE order_num = ?",
  );
  const insertSale = db.prepare('INSERT INTO sales (order_num, paid_at) VALUES (?, ?) ON CONFLICT (order_num) DO NOTHING');
  const markPaid = db.prepare("UPDATE shop_orders SET status = 'paid', paid_at = ?, method = COALESCE(?, method) WHERE order_num = ?");
  const selectRecent = db.prepare(
    'SELECT order_num AS orderNum, items, pay_money AS payMoney, pay_fee AS payFee, method, status, created_at AS createdAt, paid_at AS paidAt FROM shop_orders ORDER BY created_at DESC LIMIT ?',
  );
  const countSales = db.prepare('SELECT COUNT(*) AS count FROM sales');
  const sale = db.transaction((orderNum: string, paidAt: string, method: string | null) => {
    const inserted = insertSale.run(orderNum, paidAt).changes === 1;
    if (inserted) markPaid.run(paidAt, method, orderNum);
    return inserted;
  });

  return {
    recordOrder: (order) => void insertOrder.run(order.orderNum, order.items, order.payMoney, order.method),
    setStatus: (orderNum, status, method, payFee) => void updateStatus.run(status, method, payFee ?? null, orderNum),
    recordSale: (orderNum, paidAt, method) => sale(orderNum, paidAt.toISOString(), method ?? null),
    recent: (limit = 20) => selectRecent.all(limit) as ShopOrder[],
    sales: () => (countSales.get() as { count: number }).count,
    close: () => db.close(),
  };
}
