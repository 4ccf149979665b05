/**
 * Starting while the database is down: the gateway keeps trying, with a growing wait and one clear
 * log line per try, and is ready the moment the database answers. Only an unreachable or busy
 * database (`databaseFault`: refused, reset, silent, starting up, too many connections) is waited
 * out; any other error (a failed migration, a statement timeout, a bad schema name) fails the start
 * as before.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { databaseFault } from '@tombolbayar/store-kit';
import type { Logger } from 'pino';

/** The wait before try `attempt + 1` (pure): 250 ms doubling to at most 10 s. */
export function startupRetryDelayMs(attempt: number): number {
  return Math.min(10_000, 250 * 2 ** Math.max(0, attempt - 1));
}

export interface StartupRetryOptions {
  readonly logger: Logger;
  /** Aborted when the gateway is closed during the wait. */
  readonly signal: AbortSignal;
  /** Called before each wait (the gateway answers 503 meanwhile). */
  readonly onWaiting: () => void;
}

/** Run `step` until it succeeds, waiting out database faults. */
export async function untilDatabaseAnswers<T>(step: () => Promise<T>, options: StartupRetryOptions): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await step();
    } catch (error) {
      const fault = databaseFault(error);
      // Only an unreachable or busy database is waited out: a statement that ran past its timeout
      // (a long migration) would time out again on every try.
      if ((fault !== 'connection_lost' && fault !== 'overloaded') || options.signal.aborted) throw error;
      const retryInMs = startupRetryDelayMs(attempt);
      options.logger.warn(
        { attempt, retryInMs, fault, cause: (error as Error).message },
        `database not reachable at start (${fault}); trying again in ${retryInMs} ms`,
      );
      options.onWaiting();
      await sleep(retryInMs, undefined, { signal: options.signal });
    }
  }
}
