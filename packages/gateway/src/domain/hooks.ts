/**
 * The seams of the production core that a mode may compose onto (issue 33): what happens around a
 * create, and which outbox rows one notification becomes. Production's are `PRODUCTION_HOOKS`,
 * constants that read nothing and change nothing; the sandbox supplies its fault rules through
 * the same seams (`sandbox/fault-hooks.ts`), from outside the core.
 */
import type { Executor } from '../store/executor.ts';
import type { Order } from './types.ts';

/** The order a create or a notification is about, as the merchant names it. */
export interface OrderKey {
  readonly merchantCode: string;
  readonly orderNum: string;
}

/** What a create answers: the stored order, or UNKNOWN with its message (stored or not). */
export type CreateAnswer =
  | { readonly kind: 'created'; readonly order: Order }
  | { readonly kind: 'unknown'; readonly message: string };

/** One outbox row of a notification: its state, what shaped it, and when it is first due. */
export interface QueuedRow {
  readonly state: 'pending' | 'dropped';
  readonly fault: 'drop' | 'delay' | 'duplicate' | null;
  readonly nextAttemptAt: number;
}

export interface GatewayHooks {
  /** Around a create: runs `create` (or not) and says what to answer. Errors of `create` propagate. */
  aroundCreate(db: Executor, key: OrderKey, create: () => Promise<Order>): Promise<CreateAnswer>;
  /** The outbox rows one notification becomes, decided inside the transaction that queues it. */
  notificationRows(trx: Executor, key: OrderKey, now: number): Promise<readonly QueuedRow[]>;
}

/** Production: create and answer; one pending row, due now. */
export const PRODUCTION_HOOKS: GatewayHooks = Object.freeze({
  aroundCreate: async (_db: Executor, _key: OrderKey, create: () => Promise<Order>): Promise<CreateAnswer> => ({ kind: 'created', order: await create() }),
  notificationRows: (_trx: Executor, _key: OrderKey, now: number): Promise<readonly QueuedRow[]> =>
    Promise.resolve([{ state: 'pending', fault: null, nextAttemptAt: now }]),
});
