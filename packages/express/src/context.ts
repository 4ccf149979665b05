/** Everything the routes and services share, built once by `payButton()`. */
import type { PayButtonEvents } from './events.ts';
import type { GatewayClient } from './gateway/client.ts';
import type { CreatePolicy } from './gateway/create.ts';
import type { ResolvedOptions } from './options.ts';
import type { Confirmation } from './orders/confirm.ts';
import type { Store } from './store/index.ts';

export interface Context {
  readonly options: ResolvedOptions;
  /** `publicUrl + mountPath`, checked once (`callbackBase`): the base of notifyUrl and redirectUrl. */
  readonly callbackBase: string;
  readonly store: Store;
  readonly client: GatewayClient;
  readonly events: PayButtonEvents;
  readonly policy: CreatePolicy;
  /** Resolves once the store is migrated; rejects with `store_unavailable`. */
  readonly ready: () => Promise<void>;
  /** Creates in progress in this process, by orderNum: a double click waits on the first. */
  readonly inflight: Map<string, Promise<unknown>>;
  /** Gateway queries in flight in this process, by orderNum: concurrent askers share one. */
  readonly confirming: Map<string, Promise<Confirmation>>;
  /** Work started by a request but not awaited by it (fulfilment after a status poll). */
  readonly background: Set<Promise<unknown>>;
  readonly now: () => Date;
}

/** Run work the response does not wait for, tracked so `close()` can wait for it. */
export function inBackground(context: Context, work: () => Promise<unknown>): void {
  const task = work()
    .catch((error: unknown) => context.events.emit('warning', { code: 'background_failed', message: 'background work failed', error }))
    .finally(() => context.background.delete(task));
  context.background.add(task);
}
