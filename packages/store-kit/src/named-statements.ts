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

export const NAMED_STATEMENT_LIMIT = 500;

/** A pool whose clients run each recurring SQL text as a named (per-connection prepared) statement. */
export function withNamedStatements(pool: PostgresPool, limit = NAMED_STATEMENT_LIMIT): PostgresPool {
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
      const client = await pool.connect();
      return {
        query<R>(sqlOrCursor: unknown, parameters?: ReadonlyArray<unknown>): Promise<PostgresQueryResult<R>> {
          const query = client.query as (config: unknown, values?: ReadonlyArray<unknown>) => Promise<PostgresQueryResult<R>>;
          if (typeof sqlOrCursor !== 'string') return query.call(client, sqlOrCursor, parameters);
          const name = nameOf(sqlOrCursor);
          if (name === undefined) return query.call(client, sqlOrCursor, parameters);
          return query.call(client, { name, text: sqlOrCursor, values: parameters });
        },
        release: () => client.release(),
      } as PostgresPoolClient;
    },
    end: () => pool.end(),
  };
}
