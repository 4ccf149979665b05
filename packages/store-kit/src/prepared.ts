/**
 * A Kysely query built and compiled once, then run many times with new values. Kysely builds an
 * operation tree and compiles it to SQL on every call; on the stores' hot paths that was the top
 * non-crypto function of a request (bench/: Kysely's query building and compiling, about 5 % of a
 * payment link's CPU). The SQL text never changes, only the values do, so each query is compiled
 * once and reused: the builder keeps its typing and the dialect its quoting, and SQLite's
 * statement cache (`withStatementCache`) sees the same text every time.
 *
 * Values are named at build time with `value(name)`, which stands in a unique marker string; the
 * compiler places each marker among the query's parameters, and a run binds the named values in
 * those places. Constants written into the query stay as they were compiled.
 *
 * What a query compiles to depends on the instance that runs it: its dialect (`?` or `$1`) and its
 * plugins (`withSchema`). So the compiled form is kept per kind of instance, told apart by a small
 * probe query compiled once per instance (a transaction compiles like the instance it came from).
 *
 * Reuse is only for instances the store opened itself, whose plugins it knows: a plugin's
 * `transformQuery` runs when a query is compiled, so on an instance someone else made (the
 * plug-in's `database: { kind: 'kysely', db }`, which may carry tracing or tenancy plugins) every
 * run builds and compiles the query as Kysely normally does (`reuse: false`).
 */
import type { CompiledQuery, Kysely, QueryResult } from 'kysely';

/** What a builder callback returns: any Kysely query that compiles (select, insert, update, ...). */
interface Compilable<R> {
  compile(): CompiledQuery<R>;
}

type Slot = { readonly name: string } | { readonly constant: unknown };

interface Compiled<R> {
  readonly query: CompiledQuery<R>;
  readonly slots: readonly Slot[];
}

/**
 * The stand-in for a named value inside a builder. Annotate the builder's parameter with it
 * (`value: Param<{ orderNum: string }>`) and the run's values are typed from it.
 */
export type Param<V> = <K extends keyof V & string>(name: K) => V[K];

const MARKER = '\u0000tombolbayar-prepared:';

function valueOf(values: unknown, name: string): unknown {
  const value = (values as Record<string, unknown>)[name];
  if (value === undefined) throw new TypeError(`prepared query: no value for ${name}`);
  return value;
}

/** Instance -> what its compiler produces for a probe (dialect and plugins in one string). */
const flavours = new WeakMap<object, string>();

function flavourOf(runner: Kysely<any>): string {
  let flavour = flavours.get(runner);
  if (flavour === undefined) {
    flavour = runner.selectFrom('probe_table').select('probe_column').where('probe_column', '=', 1).compile().sql;
    flavours.set(runner, flavour);
  }
  return flavour;
}

export class PreparedQuery<DB, V, R> {
  private readonly compiled = new Map<string, Compiled<R>>();

  constructor(private readonly build: (db: Kysely<DB>, value: Param<V>) => Compilable<R>) {}

  private compile(runner: Kysely<DB>): Compiled<R> {
    const flavour = flavourOf(runner);
    let compiled = this.compiled.get(flavour);
    if (!compiled) {
      const query = this.build(runner, (name) => `${MARKER}${name}` as never).compile();
      const slots = query.parameters.map((parameter): Slot =>
        typeof parameter === 'string' && parameter.startsWith(MARKER) ? { name: parameter.slice(MARKER.length) } : { constant: parameter },
      );
      this.compiled.set(flavour, (compiled = { query, slots }));
    }
    return compiled;
  }

  /**
   * Run with `values` (every name the builder used) on `runner`: an instance or a transaction.
   * `reuse: false` builds and compiles this run's query afresh (an instance with unknown plugins).
   */
  async execute(runner: Kysely<DB>, values: V, reuse = true): Promise<QueryResult<R>> {
    if (!reuse) return runner.executeQuery(this.build(runner, (name) => valueOf(values, name) as never));
    const { query, slots } = this.compile(runner);
    const parameters = slots.map((slot) => ('constant' in slot ? slot.constant : valueOf(values, slot.name)));
    return runner.executeQuery({ ...query, parameters });
  }

  /** The rows of a run (RETURNING or SELECT). */
  async rows(runner: Kysely<DB>, values: V, reuse = true): Promise<R[]> {
    return (await this.execute(runner, values, reuse)).rows;
  }

  /** The first row of a run, or undefined. */
  async first(runner: Kysely<DB>, values: V, reuse = true): Promise<R | undefined> {
    return (await this.execute(runner, values, reuse)).rows[0];
  }
}

/** `new PreparedQuery(build)`, reading better where queries are declared. */
export function prepare<DB, V, R>(build: (db: Kysely<DB>, value: Param<V>) => Compilable<R>): PreparedQuery<DB, V, R> {
  return new PreparedQuery(build);
}
