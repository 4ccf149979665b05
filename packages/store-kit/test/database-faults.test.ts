import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { admitRequest, databaseFault, postgresPoolConfig, retryAfterSeconds, SHED_EVENT_LOOP_DELAY_MS, type DatabaseFault } from '../src/index.ts';

const pgError = (code: string, message = 'server said no') => Object.assign(new Error(message), { code, severity: 'FATAL' });
const socketError = (code: string) => Object.assign(new Error(`connect ${code} 127.0.0.1:5432`), { code, errno: -111, syscall: 'connect' });

describe('databaseFault: which errors are the database failing, not the request', () => {
  const table: Array<[string, unknown, DatabaseFault | undefined]> = [
    ['pg_terminate_backend (57P01)', pgError('57P01', 'terminating connection due to administrator command'), 'connection_lost'],
    ['crash shutdown (57P02)', pgError('57P02'), 'connection_lost'],
    ['server starting up (57P03)', pgError('57P03', 'the database system is starting up'), 'connection_lost'],
    ['idle-in-transaction timeout (25P03)', pgError('25P03'), 'connection_lost'],
    ['idle session timeout (57P05)', pgError('57P05'), 'connection_lost'],
    ['connection exception class 08', pgError('08006'), 'connection_lost'],
    ['connection refused', socketError('ECONNREFUSED'), 'connection_lost'],
    ['connection reset', socketError('ECONNRESET'), 'connection_lost'],
    ['broken pipe', socketError('EPIPE'), 'connection_lost'],
    ['host name not found', socketError('ENOTFOUND'), 'connection_lost'],
    ['pg: connection ended mid-query', new Error('Connection terminated unexpectedly'), 'connection_lost'],
    ['pg: connect timeout', new Error('Connection terminated due to connection timeout'), 'connection_lost'],
    ['pg-pool: no free client in time', new Error('timeout exceeded when trying to connect'), 'connection_lost'],
    ['pg: silent connection (query_timeout)', new Error('Query read timeout'), 'connection_lost'],
    ['pg: client after an error', new Error('Client has encountered a connection error and is not queryable'), 'connection_lost'],
    ['statement timeout (57014)', pgError('57014', 'canceling statement due to statement timeout'), 'timed_out'],
    ['too many connections (53300)', pgError('53300'), 'overloaded'],
    ['out of memory (53200)', pgError('53200'), 'overloaded'],
    ['lock not available (55P03)', pgError('55P03'), 'overloaded'],
    ['serialization failure (40001)', pgError('40001'), 'conflict'],
    ['deadlock (40P01)', pgError('40P01'), 'conflict'],
    ['SQLite busy', Object.assign(new Error('database is locked'), { code: 'SQLITE_BUSY' }), 'overloaded'],
    ['SQLite busy snapshot', Object.assign(new Error('x'), { code: 'SQLITE_BUSY_SNAPSHOT' }), 'overloaded'],
    ['SQLite disk I/O error', Object.assign(new Error('disk I/O error'), { code: 'SQLITE_IOERR_WRITE' }), 'connection_lost'],
    ['wrapped in a typed error (cause)', new Error('The order store failed', { cause: new Error('Connection terminated unexpectedly') }), 'connection_lost'],
    ['IPv4 and IPv6 both refused (AggregateError)', new AggregateError([socketError('ECONNREFUSED'), socketError('ECONNREFUSED')]), 'connection_lost'],
    // Not faults: the request's or the code's own errors.
    ['unique violation (23505)', pgError('23505', 'duplicate key value'), undefined],
    ['syntax error (42601)', pgError('42601'), undefined],
    ['undefined table (42P01)', pgError('42P01'), undefined],
    ['SQLite constraint', Object.assign(new Error('UNIQUE constraint failed'), { code: 'SQLITE_CONSTRAINT_UNIQUE' }), undefined],
    ['a plain bug', new TypeError("Cannot read properties of undefined (reading 'x')"), undefined],
    ['a string thrown', 'Connection terminated', undefined],
    ['null', null, undefined],
    ['undefined', undefined, undefined],
    ['a number code', Object.assign(new Error('x'), { code: 57014 }), undefined],
    ['a cause cycle', (() => { const e = new Error('a') as Error & { cause?: unknown }; e.cause = e; return e; })(), undefined],
  ];
  for (const [name, error, expected] of table) {
    it(`${name} -> ${expected ?? 'not a fault'}`, () => {
      assert.equal(databaseFault(error), expected);
    });
  }

  it('says when to come back, in whole seconds', () => {
    for (const fault of ['connection_lost', 'timed_out', 'overloaded', 'conflict'] as const) {
      const seconds = retryAfterSeconds(fault);
      assert.ok(Number.isInteger(seconds) && seconds >= 1 && seconds <= 10, fault);
    }
  });
});

describe('postgresPoolConfig: a deadline on every wait', () => {
  it('applies the defaults', () => {
    const config = postgresPoolConfig({ url: 'postgres://db/x' });
    assert.equal(config.connectionTimeoutMillis, 5_000);
    assert.equal(config.statement_timeout, 15_000);
    assert.equal(config.query_timeout, 20_000);
    assert.equal(config.idle_in_transaction_session_timeout, 30_000);
    assert.equal(config.keepAlive, true);
    assert.equal(config.keepAliveInitialDelayMillis, 10_000);
    assert.equal(config.max, 10);
    assert.equal(config.options, undefined);
  });

  it('takes every setting, and the query timeout follows the statement timeout', () => {
    const config = postgresPoolConfig({ url: 'postgres://db/x', maxConnections: 3, connectTimeoutMs: 100, statementTimeoutMs: 200, idleInTransactionTimeoutMs: 300, keepAliveInitialDelayMs: 400, searchPath: 'shop' });
    assert.deepEqual(
      [config.max, config.connectionTimeoutMillis, config.statement_timeout, config.query_timeout, config.idle_in_transaction_session_timeout, config.keepAliveInitialDelayMillis, config.options],
      [3, 100, 200, 5_200, 300, 400, '-c search_path=shop'],
    );
    assert.equal(postgresPoolConfig({ url: 'postgres://db/x', queryTimeoutMs: 50 }).query_timeout, 50);
  });
});

describe('admitRequest: shed past the bound or a late event loop, drop what nobody waits for', () => {
  const table: Array<[number, number, boolean, number, string]> = [
    [0, 1, false, 0, 'admit'],
    [63, 64, false, 0, 'admit'],
    [64, 64, false, 0, 'shed'],
    [100, 64, false, 0, 'shed'],
    [0, 64, false, SHED_EVENT_LOOP_DELAY_MS, 'admit'],
    [0, 64, false, SHED_EVENT_LOOP_DELAY_MS + 1, 'shed'],
    [0, 64, true, 0, 'client_gone'],
    [64, 64, true, 1_000, 'client_gone'],
  ];
  for (const [inFlight, maxInFlight, clientGone, loopDelayMs, expected] of table) {
    it(`${inFlight}/${maxInFlight}, loop ${loopDelayMs} ms late${clientGone ? ', client gone' : ''} -> ${expected}`, () => {
      assert.equal(admitRequest({ inFlight, maxInFlight, clientGone, loopDelayMs }), expected);
    });
  }
});
