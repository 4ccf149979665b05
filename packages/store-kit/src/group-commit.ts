/**
 * Kysely's SQLite dialect with group commit. Each commit is most of what a small write costs on
 * SQLite (the WAL frames, the lock, the header: bench/); a payment link makes three, in two
 * processes. Here a write outside a transaction opens a group (`BEGIN IMMEDIATE`) or joins the one
 * open, runs at once, and is committed with every other write made before the event loop's next
 * turn (`setImmediate`): under load one commit serves many requests; alone, a write waits one turn.
 *
 * What a caller sees does not change:
 * - A write's promise settles only once its group is committed: what it returns is durable, as with
 *   an autocommit (a crash or a failed commit can only lose writes nobody was told about).
 * - A read outside a group runs at once on committed data. A read while a group is open runs inside
 *   it and also settles only when the group is committed, so nobody is answered from data that a
 *   failed commit could still take back.
 * - A failed statement is rejected at once and leaves the group as it was (SQLite undoes that one
 *   statement); an error that ends the transaction itself (disk full, I/O) rejects the whole group.
 * - `db.transaction()` runs alone, as before: it waits for the open group to be committed, takes
 *   the connection, and other queries wait for it to end (Kysely's own SQLite driver has the same
 *   one-connection rule).
 */
import type BetterSqlite3 from 'better-sqlite3';
import {
  SqliteAdapter, SqliteIntrospector, SqliteQueryCompiler, type CompiledQuery, type DatabaseConnection, type DatabaseIntrospector, type Dialect,
  type DialectAdapter, type Driver, type Kysely, type QueryCompiler, type QueryResult,
} from 'kysely';
import { withStatementCache } from './statement-cache.ts';

interface Member {
  readonly settle: () => void;
  readonly fail: (error: unknown) => void;
}

interface Group {
  readonly members: Member[];
}

/** An explicit transaction and the promise the other queries wait on until it ends. */
interface Held {
  readonly owner: DatabaseConnection;
  readonly ended: Promise<void>;
  readonly end: () => void;
}

const quoted = (name: string) => `"${name.replaceAll('"', '""')}"`;

class GroupConnection implements DatabaseConnection {
  constructor(private readonly driver: GroupCommitDriver) {}

  executeQuery<R>(compiled: CompiledQuery): Promise<QueryResult<R>> {
    return this.driver.execute<R>(this, compiled);
  }

  streamQuery<R>(compiled: CompiledQuery): AsyncIterableIterator<QueryResult<R>> {
    return this.driver.stream<R>(this, compiled);
  }
}

class GroupCommitDriver implements Driver {
  readonly #sqlite: BetterSqlite3.Database;
  readonly #statements: ReturnType<typeof withStatementCache>;
  #group: Group | undefined;
  #held: Held | undefined;
  /** A write was committed on its own in this turn of the event loop: the next one starts a group. */
  #wroteThisTurn = false;

  constructor(sqlite: BetterSqlite3.Database) {
    this.#sqlite = sqlite;
    this.#statements = withStatementCache(sqlite);
  }

  async init(): Promise<void> {}

  /** Connections are views of the one SQLite connection; a transaction makes its own exclusive. */
  async acquireConnection(): Promise<DatabaseConnection> {
    return new GroupConnection(this);
  }

  async beginTransaction(connection: DatabaseConnection): Promise<void> {
    for (let held = this.#heldByOther(connection); held; held = this.#heldByOther(connection)) await held;
    let end!: () => void;
    const ended = new Promise<void>((resolve) => (end = resolve));
    this.#held = { owner: connection, ended, end };
    // A transaction starts from committed data: the open group goes first.
    if (this.#group) this.#commit(this.#group);
    this.#run('begin');
  }

  async commitTransaction(): Promise<void> {
    this.#run('commit');
  }

  async rollbackTransaction(): Promise<void> {
    if (this.#sqlite.inTransaction) this.#run('rollback');
  }

  async savepoint(connection: DatabaseConnection, name: string): Promise<void> {
    this.#run(`savepoint ${quoted(name)}`);
  }

  async rollbackToSavepoint(connection: DatabaseConnection, name: string): Promise<void> {
    this.#run(`rollback to ${quoted(name)}`);
  }

  async releaseSavepoint(connection: DatabaseConnection, name: string): Promise<void> {
    this.#run(`release ${quoted(name)}`);
  }

  async releaseConnection(connection: DatabaseConnection): Promise<void> {
    const held = this.#held;
    if (held?.owner !== connection) return;
    this.#held = undefined;
    held.end();
  }

  async destroy(): Promise<void> {
    if (this.#group) this.#commit(this.#group);
    this.#sqlite.close();
  }

  async execute<R>(connection: DatabaseConnection, compiled: CompiledQuery): Promise<QueryResult<R>> {
    if (this.#held?.owner === connection) return this.#query<R>(compiled, this.#statement(compiled));
    for (let held = this.#heldByOther(connection); held; held = this.#heldByOther(connection)) await held;
    const statement = this.#statement(compiled);
    if (!this.#group && statement.readonly) return this.#query<R>(compiled, statement);
    if (!this.#group && !this.#wroteThisTurn) {
      // The turn's first write commits on its own (no wait, no BEGIN/COMMIT of ours): a quiet
      // store pays nothing for grouping; only writes that crowd into one turn are grouped.
      this.#wroteThisTurn = true;
      setImmediate(() => (this.#wroteThisTurn = false));
      return this.#query<R>(compiled, statement);
    }
    const group = this.#group ?? this.#open();
    let result: QueryResult<R>;
    try {
      result = this.#query<R>(compiled, statement);
    } catch (error) {
      // SQLite undid the statement; if it ended the transaction too, the whole group is gone.
      if (!this.#sqlite.inTransaction) this.#abandon(group, error);
      throw error;
    }
    return new Promise((resolve, reject) => group.members.push({ settle: () => resolve(result), fail: reject }));
  }

  async *stream<R>(connection: DatabaseConnection, compiled: CompiledQuery): AsyncIterableIterator<QueryResult<R>> {
    if (this.#held?.owner !== connection) {
      for (let held = this.#heldByOther(connection); held; held = this.#heldByOther(connection)) await held;
      if (this.#group) this.#commit(this.#group);
    }
    const statement = this.#statement(compiled);
    if (!statement.reader) throw new Error('SQLite can only stream queries that return rows');
    for (const row of statement.iterate(compiled.parameters as unknown[])) yield { rows: [row as R] };
  }

  /**
   * Another transaction than `connection`'s own holds the connection: what to wait for. Callers
   * loop on it and go on in the same microtask as the check (an `await` in between would let a
   * second caller take the connection first).
   */
  #heldByOther(connection: DatabaseConnection): Promise<void> | undefined {
    return this.#held && this.#held.owner !== connection ? this.#held.ended : undefined;
  }

  #statement(compiled: CompiledQuery): BetterSqlite3.Statement {
    return this.#statements.prepare(compiled.sql) as unknown as BetterSqlite3.Statement;
  }

  #query<R>(compiled: CompiledQuery, statement: BetterSqlite3.Statement): QueryResult<R> {
    const parameters = compiled.parameters as unknown[];
    if (statement.reader) return { rows: statement.all(parameters) as R[] };
    const { changes, lastInsertRowid } = statement.run(parameters);
    return { numAffectedRows: BigInt(changes), insertId: BigInt(lastInsertRowid), rows: [] };
  }

  #run(sql: string): void {
    this.#statements.prepare(sql).run([]);
  }

  #open(): Group {
    // IMMEDIATE: the write lock now (waiting busy_timeout for another process), never an upgrade
    // from a read snapshot that another process's commit could make stale.
    this.#run('begin immediate');
    const group: Group = { members: [] };
    this.#group = group;
    setImmediate(() => this.#commit(group));
    return group;
  }

  #commit(group: Group): void {
    if (this.#group !== group) return;
    this.#group = undefined;
    try {
      this.#run('commit');
    } catch (error) {
      if (this.#sqlite.inTransaction) this.#rollbackQuietly();
      for (const member of group.members) member.fail(error);
      return;
    }
    for (const member of group.members) member.settle();
  }

  #abandon(group: Group, error: unknown): void {
    if (this.#group !== group) return;
    this.#group = undefined;
    for (const member of group.members) member.fail(error);
  }

  #rollbackQuietly(): void {
    try {
      this.#run('rollback');
    } catch {
      // Already rolled back by SQLite: nothing is left open either way.
    }
  }
}

/** Kysely's SQLite dialect over a better-sqlite3 connection, writes committed in groups (above). */
export class GroupCommitSqliteDialect implements Dialect {
  constructor(private readonly sqlite: BetterSqlite3.Database) {}

  createDriver(): Driver {
    return new GroupCommitDriver(this.sqlite);
  }

  createQueryCompiler(): QueryCompiler {
    return new SqliteQueryCompiler();
  }

  createAdapter(): DialectAdapter {
    return new SqliteAdapter();
  }

  createIntrospector(db: Kysely<any>): DatabaseIntrospector {
    return new SqliteIntrospector(db);
  }
}
