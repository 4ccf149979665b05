/**
 * Sandbox faults as a policy injected into the production code paths (issue 22), instead of
 * `if (sandbox)` branches inside their transactions and handlers. Production gets `NO_FAULTS`,
 * whose every answer is "behave normally" without touching the store; the sandbox gets
 * `STORED_FAULTS`, which reads the fault rules (`store/faults.ts`) and says what to do differently.
 * The code paths ask the policy and follow its answer the same way in both modes.
 */
import type { Executor } from '../store/executor.ts';
import { findFaultRules } from '../store/faults.ts';
import { effectiveFaults, type NotificationFaults } from './faults.ts';

/** What a create does differently, decided before the order is stored. */
export interface CreatePlan {
  /** False when the order is not to be stored at all (`create.orderCreated: false`). */
  readonly storesOrder: boolean;
  /** True when the answer is UNKNOWN instead of the outcome (`create.respond`). */
  readonly answersUnknown: boolean;
  /** Hold the answer back (`create.delayMs`); resolves at once without a fault. */
  hold(): Promise<void>;
}

/** How a notification is queued: dropped, delayed by `delayMs`, and/or duplicated. */
export interface NotificationPlan {
  readonly drop: boolean;
  readonly delayMs: number;
  readonly duplicate: boolean;
}

export interface FaultPolicy {
  /** The plan of a create, read before the order is stored. */
  forCreate(db: Executor, merchantCode: string, orderNum: string): Promise<CreatePlan>;
  /** The plan of a notification, read inside the transaction that queues it. */
  forNotification(trx: Executor, merchantCode: string, orderNum: string): Promise<NotificationPlan>;
}

const NORMAL_CREATE: CreatePlan = Object.freeze({ storesOrder: true, answersUnknown: false, hold: () => Promise.resolve() });
const NORMAL_NOTIFICATION: NotificationPlan = Object.freeze({ drop: false, delayMs: 0, duplicate: false });

/** Production: every plan is the normal one, and nothing is read. */
export const NO_FAULTS: FaultPolicy = Object.freeze({
  forCreate: () => Promise.resolve(NORMAL_CREATE),
  forNotification: () => Promise.resolve(NORMAL_NOTIFICATION),
});

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** The plan of a notification under these faults: pure, table-tested. */
export function notificationPlan(faults: NotificationFaults | undefined): NotificationPlan {
  if (!faults) return NORMAL_NOTIFICATION;
  return { drop: faults.drop ?? false, delayMs: faults.delayMs ?? 0, duplicate: faults.duplicate ?? false };
}

/** The sandbox: the stored fault rules, the order's rule winning over the merchant's. */
export const STORED_FAULTS: FaultPolicy = Object.freeze({
  async forCreate(db: Executor, merchantCode: string, orderNum: string): Promise<CreatePlan> {
    const faults = effectiveFaults(await findFaultRules(db, merchantCode, orderNum)).create;
    if (!faults) return NORMAL_CREATE;
    const answersUnknown = faults.respond === 'UNKNOWN';
    const delayMs = faults.delayMs ?? 0;
    return {
      // Only an UNKNOWN answer can pretend the order was not stored.
      storesOrder: !(answersUnknown && faults.orderCreated === false),
      answersUnknown,
      hold: () => (delayMs > 0 ? sleep(delayMs) : Promise.resolve()),
    };
  },
  async forNotification(trx: Executor, merchantCode: string, orderNum: string): Promise<NotificationPlan> {
    return notificationPlan(effectiveFaults(await findFaultRules(trx, merchantCode, orderNum)).notifications);
  },
});

/** The policy of a gateway: the stored rules in the sandbox, none in production. */
export function faultPolicy(sandbox: boolean): FaultPolicy {
  return sandbox ? STORED_FAULTS : NO_FAULTS;
}
