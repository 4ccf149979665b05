/**
 * Creating many orders fast, for the drain and memory benchmarks: the gateway's own domain
 * function `createOrder` (the one `/gateway/pay` calls after authentication: limits, fee, payment
 * code, the insert under its unique indexes), run in transactions of a thousand, without HTTP and
 * without the request signature. The gateway's public API has no bulk create, so this uses its
 * internal entry (`packages/gateway/src/internal.ts`); only benchmarks and tests do that.
 */
import type { MethodCode } from '@tombolbayar/protocol';
import { sign as signFields, toPrivateKey } from '@tombolbayar/protocol/node';
import { pino } from 'pino';
import {
  buildFeeTable, buildLimitTable, checkCallbackUrl, createClock, createOrder, openStore, PRODUCTION_HOOKS, registerMerchant, type DatabaseConfig, type DomainContext,
} from '@tombolbayar/gateway/internal';
import { CUSTOMER, MERCHANT_CODE, MERCHANT_NAME } from './fixtures.ts';

export interface SeedOptions {
  readonly database: DatabaseConfig;
  readonly platformPrivateKey: string;
  readonly merchantPublicKey: string;
  readonly count: number;
  /** orderNum = prefix + index. */
  readonly orderNumPrefix: string;
  readonly notifyUrl: string;
  readonly method: MethodCode;
  readonly sandbox: boolean;
}

export interface SeedResult {
  readonly platOrderNums: string[];
  readonly seconds: number;
}

const BATCH = 1_000;

export async function seedOrders(options: SeedOptions): Promise<SeedResult> {
  const database = await openStore(options.database);
  const platformKey = toPrivateKey(options.platformPrivateKey);
  const clock = createClock();
  const context: DomainContext = {
    database,
    clock,
    fees: buildFeeTable(),
    limits: buildLimitTable(),
    sandbox: options.sandbox,
    // Seeding creates orders only: no notification is queued, in either mode.
    hooks: PRODUCTION_HOOKS,
    sign: (fields) => signFields(fields, platformKey),
    checkCallbackUrl,
    onNotificationQueued: () => {},
    logger: pino({ level: 'silent' }),
  };
  const started = performance.now();
  try {
    await registerMerchant(database.db, { merchantCode: MERCHANT_CODE, publicKey: options.merchantPublicKey, name: MERCHANT_NAME }, clock.now());
    const platOrderNums: string[] = [];
    const merchant = { merchantCode: MERCHANT_CODE, name: MERCHANT_NAME, publicKey: options.merchantPublicKey, notify: ['paid' as const], createdAt: 0, updatedAt: 0 };
    for (let first = 0; first < options.count; first += BATCH) {
      await database.db.transaction().execute(async (trx) => {
        const batch: DomainContext = { ...context, database: { ...database, db: trx as never } };
        for (let index = first; index < Math.min(first + BATCH, options.count); index++) {
          const order = await createOrder(batch, {
            kind: 'va',
            merchant,
            orderNum: `${options.orderNumPrefix}${String(index).padStart(8, '0')}`,
            method: options.method,
            payMoney: Number(CUSTOMER.payMoney),
            productDetail: CUSTOMER.productDetail,
            name: CUSTOMER.name,
            email: CUSTOMER.email,
            phone: CUSTOMER.phone,
            notifyUrl: options.notifyUrl,
            redirectUrl: null,
            expiryPeriod: 120,
            requestDateTime: '20260101120000',
          });
          platOrderNums.push(order.platOrderNum);
        }
      });
    }
    return { platOrderNums, seconds: (performance.now() - started) / 1000 };
  } finally {
    await database.close();
  }
}
