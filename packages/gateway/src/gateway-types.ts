/**
 * The gateway's types: what an operator calls in any mode (`Gateway`), and what the sandbox adds
 * when it is composed onto one (`SandboxGateway`, `sandbox/compose.ts`).
 */
import type { MethodCode } from '@tombolbayar/protocol';
import type { Express } from 'express';
import type { Logger } from 'pino';
import type { Registry } from 'prom-client';
import type { Clock } from './domain/clock.ts';
import type { NotificationKind } from './domain/notify-kinds.ts';
import type { Merchant, Order } from './domain/types.ts';
import type { Deliveries } from './notify/deliveries.ts';
import type { MerchantRegistration } from './options.ts';
import type { ErasureReport } from './privacy/personal-data.ts';
import type { PersonalOrder } from './store/personal-data.ts';

/** What an operator calls, in any mode. */
export interface Gateway {
  readonly app: Express;
  /** Resolves once the database is migrated and the merchants of the options are registered. */
  readonly ready: Promise<void>;
  /** Start serving HTTP; default port 0 (any free port) on 127.0.0.1. */
  listen(port?: number, host?: string): Promise<{ url: string; port: number }>;
  /** The URL `listen` bound, once listening. */
  readonly url: string | undefined;
  /** Stop the sweep, the worker (waiting for deliveries in flight), the server and the store. Idempotent. */
  close(): Promise<void>;
  /** The platform public key (SPKI PEM) merchants verify `platSign` with. */
  readonly platformPublicKey: string;
  /** True for a `SandboxGateway` (what `createGateway({ sandbox: true })` returns). */
  readonly sandbox: boolean;
  registerMerchant(merchant: MerchantRegistration): Promise<void>;
  /**
   * Change which final states a registered merchant is notified of (`paid` always, `failed`,
   * `expired`); resolves with the merchant as stored. Throws MerchantRegistrationError naming
   * `notify` or `merchantCode`. Notifications already queued stay queued.
   */
  updateMerchant(merchantCode: string, changes: { readonly notify: readonly NotificationKind[] }): Promise<Merchant>;
  listMerchants(): Promise<Merchant[]>;
  findMerchant(merchantCode: string): Promise<Merchant | undefined>;
  /** The order by platform number, expiry applied. */
  findOrder(platOrderNum: string): Promise<Order | undefined>;
  findOrderByOrderNum(merchantCode: string, orderNum: string): Promise<Order | undefined>;
  /** The hosted-page link of an order. */
  paymentUrl(platOrderNum: string): string;
  /** Expire overdue orders now; returns how many. */
  sweepExpired(): Promise<number>;
  /**
   * Customers' personal data (UU PDP), across every merchant: `export` every order of a person
   * (by `email`, `phone` or `orderNum`), `erase` them (an order still pending, or whose notification
   * is still being delivered, is refused with its reason), `applyRetention` now. A bad query throws
   * a `GatewayConfigError` naming the field.
   */
  readonly personalData: {
    export(query: { email?: string; phone?: string; orderNum?: string }): Promise<Omit<PersonalOrder, 'notificationsPending'>[]>;
    erase(query: { email?: string; phone?: string; orderNum?: string }): Promise<ErasureReport>;
    applyRetention(): Promise<number>;
  };
  readonly deliveries: Deliveries & {
    /** Run one delivery round in this process now; returns how many notifications it handled. */
    runOnce(): Promise<number>;
  };
  readonly logger: Logger;
  /**
   * The prom-client Registry holding the gateway's metrics (`tombolbayar_gateway_*`): the one given
   * as `metrics.registry`, else the gateway's own; undefined with `metrics: false`. `GET /metrics`
   * serves it; an application may also merge it into its own exposition.
   */
  readonly metrics: Registry | undefined;
}

/**
 * A gateway created with `sandbox: true`: the operator's API plus what the sandbox simulates in
 * process (the customer paying, an order expiring or failing, a movable clock). Without the
 * sandbox these members do not exist, in the type or on the object.
 */
export interface SandboxGateway extends Gateway {
  readonly sandbox: true;
  /** PENDING -> PAID (the customer paid); for a link without method, pass the method chosen. */
  pay(platOrderNum: string, options?: { method?: MethodCode }): Promise<Order>;
  /** PENDING -> EXPIRED now, whatever the expiry time. */
  expire(platOrderNum: string): Promise<Order>;
  fail(platOrderNum: string): Promise<Order>;
  chooseMethod(platOrderNum: string, method: MethodCode): Promise<Order>;
  /** `now()`, and `advance(ms)` to move the gateway's time forward (expiry, notification retries). */
  readonly clock: Clock;
}

/** What a `SandboxGateway` simulates, beside the operator's API. */
export type Simulations = Pick<SandboxGateway, 'pay' | 'expire' | 'fail' | 'chooseMethod' | 'clock'>;
