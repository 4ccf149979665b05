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
  release(error?: Error | boolean): void;
}

/** A `pg.Pool` tells when it hands a client out ('acquire') and takes it back ('release'), synchronously. */
interface PoolEvents {
  on?(event: 'acquire' | 'release', listener: (...args: any[]) => void): unknown;
  off?(event: 'acquire' | 'release', listener: (...args: any[]) => void): unknown;
}

/** The wrapped pool, and `detach()` to take our listeners off a pool that outlives us (the merchant's). */
export type NamedStatementPool = PostgresPool & { detach(): void };

// Facts about a client, whichever wrapper (two routers may share one pool) or caller took it out.
/** Clients handed out and not released yet. */
const checkedOut = new WeakSet<object>();
/** Clients with our listener (it stays for the client's life). */
const guarded = new WeakSet<object>();
/** Why a client must not go back to the pool. */
const broken = new WeakMap<object, Error>();

/**
 * A pool whose clients run each recurring SQL text as a named (per-connection prepared) statement,
 * and whose checked-out clients never crash the process: `pg` emits `error` on a client whose
 * connection dies while it is checked out (the pool listens only to idle ones), and an `error`
 * without a listener ends the process. Each client gets a listener of ours the moment the pool
 * hands it out (its 'acquire' event, synchronous: a termination that arrives in the same read as
 * the previous query's end finds it there); a client whose connection failed (an `error` event, or
 * a query that failed with a lost connection, such as the client-side query timeout on a silent
 * one) is released with the error, so the pool destroys it and opens a fresh one for the next
 * request. Errors of idle clients stay the pool's to report (its own 'error' event).
 */
export function withNamedStatements(pool: PostgresPool, options: NamedStatementOptions | number = {}): NamedStatementPool {
  const { limit = NAMED_STATEMENT_LIMIT, onClientError } = typeof options === 'number' ? { limit: options } : options;
  const markBroken = (client: object, error: unknown): void => {
    if (!broken.has(client)) broken.set(client, error instanceof Error ? error : new Error(String(error)));
  };
  const takeOut = (client: PgPoolClient): void => {
    checkedOut.add(client);
    if (guarded.has(client) || typeof client.on !== 'function') return;
    guarded.add(client);
    client.on('error', (error) => {
      // Idle: the pool has its own listener and reports it; checked out: ours is the only one.
      if (!checkedOut.has(client)) return;
      markBroken(client, error);
      onClientError?.(error);
    });
  };
  const events = pool as PoolEvents;
  // Released by anyone (also the merchant's own `pool.query` on a shared pool): idle again.
  const putBack = (_error: unknown, client: PgPoolClient): void => {
    checkedOut.delete(client);
    broken.delete(client);
  };
  events.on?.('acquire', takeOut);
  events.on?.('release', putBack);
  const names = new Map<string, string>();
  const nameOf = (text: string): string | undefined => {
    let name = names.get(text);
    if (name === undefined && names.size < limit && !text.includes(';')) {
      // Named by the text itself: two wrappers of one pool (two routers, one recreated) never give
      // one name to two texts on a shared connection, which PostgreSQL would refuse.
      name = `tombolbayar_${createHash('sha256').update(text).digest('hex').slice(0, 32)}`;
      names.set(text, name);
    }
    return name;
  };
  return {
    async connect(): Promise<PostgresPoolClient> {
      const client = (await pool.connect()) as PgPoolClient;
      takeOut(client); // a pool without 'acquire' events: from here on
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
            if (databaseFault(error) === 'connection_lost') markBroken(client, error);
            throw error;
          });
        },
        release: () => {
          checkedOut.delete(client);
          const error = broken.get(client);
          broken.delete(client);
          client.release(error);
        },
      } as PostgresPoolClient;
    },
    end: () => pool.end(),
    detach: () => {
      events.off?.('acquire', takeOut);
      events.off?.('release', putBack);
    },
  };
}
