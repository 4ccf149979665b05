/**
 * A Kysely query built and compiled once, then run many times with new values. Kysely builds an
 * operation tree and compiles it to SQL on every call; on the stores' hot paths that was the top
 * non-crypto function of a request (bench/: Kysely's `executeQuery` and query building, 5-15 % of
 * a payment link's CPU). The SQL text never changes, only the values do, so each query is
 * compiled on its first run and reused: the builder keeps its typing and the dialect its quoting,
 * and the statement cache of SQLite (`withStatementCache`) sees the same text every time.
 *
 * Values are named at build time with `value(name)`, which stands in a unique marker string; the
 * compiler places each marker among the query's parameters, and a run binds the named values in
 * those places. Constants written into the query stay as they were compiled.
 *
 * A prepared query belongs to the Kysely instance it was built with (its plugins, such as
 * `withSchema`, are part of the compiled text); it runs on that instance or on a transaction of it.
 */
import type { CompiledQuery, Kysely, QueryResult } from 'kysely';

/** What a builder callback returns: any Kysely query that compiles (select, insert, update, ...). */
interface Compilable<R> {
  compile(): CompiledQuery<R>;
}

/** Anything that runs a compiled query: the instance the query was built with, or a transaction of it. */
export interface QueryRunner {
  executeQuery<R>(query: CompiledQuery<R>): Promise<QueryResult<R>>;
}

type Slot = { readonly name: string } | { readonly constant: unknown };

/**
 * The stand-in for a named value inside a builder. Annotate the builder's parameter with it
 * (`value: Param<{ orderNum: string }>`) and the run's values are typed from it.
 */
export type Param<V> = <K extends keyof V & string>(name: K) => V[K];

const MARKER = '\u0000paybutton-prepared:';

export class PreparedQuery<DB, V, R> {
  private compiled: { readonly query: CompiledQuery<R>; readonly slots: readonly Slot[] } | undefined;

  constructor(
    private readonly db: Kysely<DB>,
    private readonly build: (db: Kysely<DB>, value: Param<V>) => Compilable<R>,
  ) {}

  private compile(): { readonly query: CompiledQuery<R>; readonly slots: readonly Slot[] } {
    const query = this.build(this.db, (name) => `${MARKER}${name}` as never).compile();
    const slots = query.parameters.map((parameter): Slot =>
      typeof parameter === 'string' && parameter.startsWith(MARKER) ? { name: parameter.slice(MARKER.length) } : { constant: parameter },
    );
    return { query, slots };
  }

  /** Run with `values` (every name the builder used), on the instance or a transaction of it. */
  execute(values: V, runner: QueryRunner = this.db): Promise<QueryResult<R>> {
    const { query, slots } = (this.compiled ??= this.compile());
    const parameters = slots.map((slot) => {
      if ('constant' in slot) return slot.constant;
      const value = (values as Record<string, unknown>)[slot.name];
      if (value === undefined) throw new TypeError(`prepared query: no value for ${slot.name}`);
      return value;
    });
    return runner.executeQuery({ ...query, parameters });
  }

  /** The rows of a run (RETURNING or SELECT). */
  async rows(values: V, runner?: QueryRunner): Promise<R[]> {
    return (await this.execute(values, runner)).rows;
  }

  /** The first row of a run, or undefined. */
  async first(values: V, runner?: QueryRunner): Promise<R | undefined> {
    return (await this.execute(values, runner)).rows[0];
  }
}

/** `new PreparedQuery(db, build)`, reading better at the call site. */
export function prepare<DB, V, R>(db: Kysely<DB>, build: (db: Kysely<DB>, value: Param<V>) => Compilable<R>): PreparedQuery<DB, V, R> {
  return new PreparedQuery(db, build);
}
