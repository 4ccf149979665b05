/** What the domain functions need from the running gateway, passed explicitly (no globals). */
import type { Logger } from 'pino';
import type { GatewayMetrics } from '../observability/metrics.ts';
import type { PlatformSigner } from '../notify/notification.ts';
import type { Database } from '../store/database.ts';
import type { Clock } from './clock.ts';
import type { GatewayHooks } from './hooks.ts';
import type { FeeTable, LimitTable } from './pricing.ts';

export type CallbackUrlChecker = (url: string, options: { production: boolean }) => { ok: true } | { ok: false; reason: string };

export interface DomainContext {
  readonly database: Database;
  readonly clock: Clock;
  readonly fees: FeeTable;
  readonly limits: LimitTable;
  readonly sandbox: boolean;
  /** The seams a mode composes onto: `PRODUCTION_HOOKS` unless the sandbox is (`domain/hooks.ts`). */
  readonly hooks: GatewayHooks;
  readonly sign: PlatformSigner;
  readonly checkCallbackUrl: CallbackUrlChecker;
  /** Called after a transaction that queued a notification committed (wakes the worker). */
  readonly onNotificationQueued: () => void;
  readonly logger: Logger;
  /** Where orders created, transitions and queued notifications are counted; absent: not counted. */
  readonly metrics?: GatewayMetrics;
}
