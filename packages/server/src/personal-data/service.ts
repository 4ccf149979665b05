/**
 * `pay.personalData`: the merchant's duties to its customers under UU PDP (No. 27/2022) that the
 * plug-in can do itself. `export(query)` gives every order of the person with its personal data
 * (the right of access); `erase(query)` redacts them in place (the right to erasure), keeping the
 * financial record; `applyRetention()` redacts every order finished more than `retentionDays` ago,
 * which the notification sweep runs in each of its rounds, under its lease.
 */
import type { Order } from '../public-order.ts';
import type { PersonalDataStore } from '../store/personal-data.ts';
import { erasureRefusal, REFUSAL_TEXT, type ErasureRefusal } from './decide.ts';
import { parsePersonQuery, type PersonQuery } from './query.ts';

/** The default retention: a finished order's customer data is redacted 90 days after its last change. */
export const DEFAULT_RETENTION_DAYS = 90;

const DAY_MS = 24 * 3600 * 1000;

/** Orders one request or one retention pass works on at most. */
const MAX_ORDERS = 10_000;
const RETENTION_BATCH = 500;

/** One order of the person, as `export()` gives it. */
export interface PersonalDataRecord {
  readonly orderNum: string;
  readonly status: Order['status'];
  readonly name: string;
  readonly email: string;
  readonly phone: string;
  readonly payMoney: string;
  readonly payFee: string | null;
  readonly method: string | null;
  readonly productDetail: string;
  readonly item: string | null;
  readonly reference: string | null;
  readonly metadata: Order['metadata'];
  readonly createdAt: Date;
  readonly paidAt: Date | null;
  /** When the personal data was redacted (retention or erasure); null while it is kept. */
  readonly redactedAt: Date | null;
}

export interface PersonalDataExport {
  readonly orders: readonly PersonalDataRecord[];
}

export interface ErasureReport {
  /** Orders redacted by this call; the amounts and states stay. */
  readonly erased: readonly { readonly orderNum: string; readonly status: Order['status']; readonly payMoney: string }[];
  /** Orders that still need the data; ask again once they are final. */
  readonly refused: readonly { readonly orderNum: string; readonly status: Order['status']; readonly reason: ErasureRefusal; readonly message: string }[];
}

export interface PersonalDataApi {
  /** Every order of the person (by e-mail, phone or order number) with its personal data. */
  export(query: PersonQuery): Promise<PersonalDataExport>;
  /** Redact the person's finished orders; an order still pending (or being fulfilled) is refused. */
  erase(query: PersonQuery): Promise<ErasureReport>;
  /** Redact every finished order past the retention period now; returns how many. */
  applyRetention(): Promise<{ readonly redacted: number }>;
}

export interface PersonalDataDeps {
  readonly ready: () => Promise<void>;
  readonly store: PersonalDataStore;
  readonly now: () => Date;
  /** `false`: no retention pass (the merchant redacts on its own schedule). */
  readonly retentionDays: number | false;
}

export function createPersonalData(deps: PersonalDataDeps): PersonalDataApi {
  const { store } = deps;
  // A truncation a reader held back is tried again at the next pass, until it is done.
  let unflushed = false;
  const flush = async (changed: boolean) => {
    if (changed || unflushed) unflushed = !(await store.flush());
  };
  async function applyRetention(): Promise<{ redacted: number }> {
    if (deps.retentionDays === false) return { redacted: 0 };
    await deps.ready();
    const now = deps.now();
    const cutoff = new Date(now.getTime() - deps.retentionDays * DAY_MS);
    let redacted = 0;
    for (;;) {
      const count = await store.redactBefore(cutoff, now, RETENTION_BATCH);
      redacted += count;
      if (count < RETENTION_BATCH) break;
    }
    await flush(redacted > 0);
    return { redacted };
  }
  return {
    async export(input) {
      const query = parsePersonQuery(input);
      await deps.ready();
      const orders = await store.find(query, MAX_ORDERS);
      return {
        orders: orders.map((order) => ({
          orderNum: order.orderNum,
          status: order.status,
          name: order.name,
          email: order.email,
          phone: order.phone,
          payMoney: order.payMoney,
          payFee: order.payFee,
          method: order.method,
          productDetail: order.productDetail,
          item: order.item,
          reference: order.reference,
          metadata: order.metadata,
          createdAt: order.createdAt,
          paidAt: order.paidAt,
          redactedAt: order.redactedAt,
        })),
      };
    },
    async erase(input) {
      const query = parsePersonQuery(input);
      await deps.ready();
      const orders = (await store.find(query, MAX_ORDERS)).filter((order) => order.redactedAt === null);
      const refused: ErasureReport['refused'][number][] = [];
      const erasable: string[] = [];
      for (const order of orders) {
        const reason = erasureRefusal(order);
        if (reason) refused.push({ orderNum: order.orderNum, status: order.status, reason, message: REFUSAL_TEXT[reason] });
        else erasable.push(order.orderNum);
      }
      // Final orders never change again, so every one read as erasable is redacted.
      const done = new Set(await store.redact(erasable, deps.now()));
      await flush(done.size > 0);
      const erased = orders.filter((order) => done.has(order.orderNum)).map((order) => ({ orderNum: order.orderNum, status: order.status, payMoney: order.payMoney }));
      return { erased, refused };
    },
    applyRetention,
  };
}
