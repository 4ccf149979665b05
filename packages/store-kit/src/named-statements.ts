/**
 * PostgreSQL statements prepared once per connection. Kysely's driver sends every query as an
 * unnamed statement, so the server parses and plans the same text again on every request; with a
 * name, a connection parses it once and each run after that is bind and execute only (bench/: a
 * payment link on PostgreSQL runs five statements between the plug-in and the gateway, every one
 * of them the same few texts).
 *
 * The stores' SQL texts are a fixed set (values always travel as parameters, and the prepared
 * queries compile once), so each text gets a name derived from it (a hash) and keeps it; the set is bounded
 * all the same (`limit`), beyond which texts run unnamed, as before. Statements that cannot be
 * prepared (several commands in one text, as migrations send) run unnamed too.
 */
import { createHash } from 'node:crypto';
import type { PostgresPool, PostgresPoolClient, PostgresQueryResult } from 'kysely';
import { databaseFault } from './database-faults.ts';

export const NAMED_STATEMENT_LIMIT = 500;

export interface NamedStatementOptions {
  /** Most texts given a name (default `NAMED_STATEMENT_LIMIT`). */
  readonly limit?: number;
  /**
   * Told when a checked-out client's connection fails (ended by the server, reset, silent past the
   * query timeout). The client is then dropped from the pool when released, never reused.
   */
  readonly onClientError?: (error: Error) => void;
}

/** What a client checked out of a `pg.Pool` offers beyond Kysely's view of it. */
interface PgPoolClient extends PostgresPoolClient {
  on?(event: 'error', listener: (error: Error) => void): unknown;
  removeListener?(event: 'error', listener: (error: Error) => void): unknown;
  release(error?: Error | boolean): void;
}

/**
 * A pool whose clients run each recurring SQL text as a named (per-connection prepared) statement,
 * and whose checked-out clients never crash the process: `pg` emits `error` on a client whose
 * connection dies while it is checked out (the pool listens only to idle ones), and an `error`
 * without a listener ends the process. Each checked-out client gets a listener; a client whose
 * connection failed (an `error` event, or a query that failed with a lost connection, such as the
 * client-side query timeout on a silent one) is released with the error, so the pool destroys it
 * and opens a fresh one for the next request.
 */
export function withNamedStatements(pool: PostgresPool, options: NamedStatementOptions | number = {}): PostgresPool {
  const { limit = NAMED_STATEMENT_LIMIT, onClientError } = typeof options === 'number' ? { limit: options } : options;
  const names = new Map<string, string>();
  const nameOf = (text: string): string | undefined => {
    let name = names.get(text);
    if (name === undefined && names.size < limit && !text.includes(';')) {
      // Named by the text itself: two wrappers of one pool (two routers, one recreated) never give
      // one name to two texts on a shared connection, which PostgreSQL would refuse.
      name = `paybutton_${createHash('sha256').update(text).digest('hex').slice(0, 32)}`;
      names.set(text, name);
    }
    return name;
  };
  return {
    async connect(): Promise<PostgresPoolClient> {
      const client = (await pool.connect()) as PgPoolClient;
      let broken: Error | undefined;
      const onError = (error: Error): void => {
        broken ??= error;
        onClientError?.(error);
      };
      client.on?.('error', onError);
      const run = <R>(sqlOrCursor: unknown, parameters?: ReadonlyArray<unknown>): Promise<PostgresQueryResult<R>> => {
        const query = client.query as (config: unknown, values?: ReadonlyArray<unknown>) => Promise<PostgresQueryResult<R>>;
        if (typeof sqlOrCursor !== 'string') return query.call(client, sqlOrCursor, parameters);
        const name = nameOf(sqlOrCursor);
        if (name === undefined) return query.call(client, sqlOrCursor, parameters);
        return query.call(client, { name, text: sqlOrCursor, values: parameters });
      };
      return {
        query<R>(sqlOrCursor: unknown, parameters?: ReadonlyArray<unknown>): Promise<PostgresQueryResult<R>> {
          return run<R>(sqlOrCursor, parameters).catch((error: unknown) => {
            if (databaseFault(error) === 'connection_lost') broken ??= error instanceof Error ? error : new Error(String(error));
            throw error;
          });
        },
        release: () => {
          client.removeListener?.('error', onError);
          // After an error the pool may still emit one more on this client: it must not crash us.
          if (broken) client.on?.('error', () => {});
          client.release(broken);
        },
      } as PostgresPoolClient;
    },
    end: () => pool.end(),
  };
}
