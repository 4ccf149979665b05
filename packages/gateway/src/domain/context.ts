/** What the domain functions need from the running gateway, passed explicitly (no globals). */
import type { Logger } from 'pino';
import type { PlatformSigner } from '../notify/notification.ts';
import type { FaultPolicy } from '../sandbox/fault-policy.ts';
import type { Database } from '../store/database.ts';
import type { Clock } from './clock.ts';
import type { FeeTable, LimitTable } from './pricing.ts';

export type CallbackUrlChecker = (url: string, options: { production: boolean }) => { ok: true } | { ok: false; reason: string };

export interface DomainContext {
  readonly database: Database;
  readonly clock: Clock;
  readonly fees: FeeTable;
  readonly limits: LimitTable;
  readonly sandbox: boolean;
  /** Sandbox faults, injected: `NO_FAULTS` in production (`sandbox/fault-policy.ts`). */
  readonly faults: FaultPolicy;
  readonly sign: PlatformSigner;
  readonly checkCallbackUrl: CallbackUrlChecker;
  /** Called after a transaction that queued a notification committed (wakes the worker). */
  readonly onNotificationQueued: () => void;
  readonly logger: Logger;
}
