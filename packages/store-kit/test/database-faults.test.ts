import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { admitRequest, carriesBody, closesConnection, createInFlightLimiter, databaseFault, postgresPoolConfig, retryAfterSeconds, SHED_EVENT_LOOP_DELAY_MS, type DatabaseFault, type ShedReason, type ShedReport } from '../src/index.ts';

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

describe('admitRequest: shed past a bound or a late event loop, drop what nobody waits for', () => {
  const base = { inFlight: 0, maxInFlight: 64, reading: 0, maxReading: 256, clientOpen: 0, maxPerClient: 64, hasBody: false, clientGone: false, loopDelayMs: 0, maxLoopDelayMs: SHED_EVENT_LOOP_DELAY_MS };
  const table: Array<[string, Partial<typeof base>, string]> = [
    ['nothing in flight', {}, 'admit'],
    ['one slot left', { inFlight: 63 }, 'admit'],
    ['every slot taken', { inFlight: 64 }, 'in_flight'],
    ['past the bound', { inFlight: 100 }, 'in_flight'],
    ['loop late by the threshold', { loopDelayMs: SHED_EVENT_LOOP_DELAY_MS }, 'admit'],
    ['loop late past the threshold', { loopDelayMs: SHED_EVENT_LOOP_DELAY_MS + 1 }, 'event_loop'],
    ['loop late past a threshold of its own', { loopDelayMs: 101, maxLoopDelayMs: 100 }, 'event_loop'],
    ['loop late, shedding on the delay turned off (maxEventLoopDelayMs: false)', { loopDelayMs: 10_000, maxLoopDelayMs: Infinity }, 'admit'],
    ['loop late and turned off, but at the bound', { loopDelayMs: 10_000, maxLoopDelayMs: Infinity, inFlight: 64 }, 'in_flight'],
    ['bodies still arriving do not take work slots', { reading: 255, hasBody: true }, 'admit'],
    ['the reading budget spent, a body to read', { reading: 256, hasBody: true }, 'reading'],
    ['the reading budget spent, no body', { reading: 256 }, 'admit'],
    ['the client has its cap open', { clientOpen: 64 }, 'per_client'],
    ['the client below its cap', { clientOpen: 63 }, 'admit'],
    ['client gone', { clientGone: true }, 'client_gone'],
    ['client gone while saturated', { clientGone: true, inFlight: 64, loopDelayMs: 1_000 }, 'client_gone'],
  ];
  for (const [name, state, expected] of table) {
    it(`${name} -> ${expected}`, () => {
      assert.equal(admitRequest({ ...base, ...state }), expected);
    });
  }
});

describe('createInFlightLimiter: a body still arriving costs no work slot; one client is capped', () => {
  it('takes a threshold of its own for the event loop, or false, and refuses anything else, naming the option', () => {
    for (const maxEventLoopDelayMs of [1, 500, false] as const) assert.equal(createInFlightLimiter({ maxInFlight: 1, maxEventLoopDelayMs }).maxInFlight, 1);
    for (const bad of [0, -1, 2.5, Number.NaN, true]) {
      assert.throws(() => createInFlightLimiter({ maxInFlight: 1, maxEventLoopDelayMs: bad as number }), /maxEventLoopDelayMs must be a whole number of at least 1, or false/);
    }
  });

  it('counts a request as in flight once its body arrived, and frees every count once done', () => {
    const limiter = createInFlightLimiter({ maxInFlight: 1, maxReading: 2, maxPerClient: 2 });
    const slow = limiter.arrive({ client: 'a', hasBody: true, clientGone: false });
    const other = limiter.arrive({ client: 'b', hasBody: false, clientGone: false });
    assert.equal(slow.decision, 'admit');
    assert.equal(other.decision, 'admit', 'the slow body took no work slot');
    assert.deepEqual([limiter.snapshot().inFlight, limiter.snapshot().reading], [1, 1]);
    assert.equal(limiter.arrive({ client: 'c', hasBody: false, clientGone: false }).decision, 'in_flight');
    assert.equal(limiter.arrive({ client: 'a', hasBody: true, clientGone: false }).decision, 'in_flight');
    if (other.decision !== 'admit' || slow.decision !== 'admit') throw new Error('admitted above');
    other.done();
    const second = limiter.arrive({ client: 'a', hasBody: true, clientGone: false });
    assert.equal(second.decision, 'admit');
    assert.equal(limiter.arrive({ client: 'a', hasBody: false, clientGone: false }).decision, 'per_client');
    assert.equal(limiter.arrive({ client: 'd', hasBody: true, clientGone: false }).decision, 'reading');
    slow.bodyArrived();
    slow.bodyArrived();
    assert.deepEqual([limiter.snapshot().inFlight, limiter.snapshot().reading], [1, 1]);
    slow.done();
    slow.done();
    if (second.decision === 'admit') second.done();
    const snapshot = limiter.snapshot();
    assert.deepEqual([snapshot.inFlight, snapshot.reading, snapshot.shed, snapshot.saturated], [0, 0, 4, true]);
  });

  it('reports the first refusal at once and then counts until the next report', () => {
    const reports: ShedReport[] = [];
    const limiter = createInFlightLimiter({ maxInFlight: 1, onShed: (report) => reports.push(report) });
    const held = limiter.arrive({ client: undefined, hasBody: false, clientGone: false });
    for (let i = 0; i < 5; i++) limiter.arrive({ client: undefined, hasBody: false, clientGone: false });
    assert.deepEqual(reports.map((report) => [report.reason, report.shedSinceLastReport, report.inFlight]), [['in_flight', 1, 1]]);
    if (held.decision === 'admit') held.done();
    assert.equal(limiter.snapshot().shed, 5);
  });

  it('closes the connection of a refusal only when the client looks like the cause', () => {
    const table: Array<[ShedReason, boolean]> = [['in_flight', false], ['event_loop', false], ['reading', true], ['per_client', true]];
    for (const [reason, closes] of table) assert.equal(closesConnection(reason), closes, reason);
  });

  it('carriesBody reads Content-Length and Transfer-Encoding, from Node headers or a Headers', () => {
    assert.equal(carriesBody({ 'content-length': '100' }), true);
    assert.equal(carriesBody({ 'content-length': '0' }), false);
    assert.equal(carriesBody({ 'transfer-encoding': 'chunked' }), true);
    assert.equal(carriesBody({}), false);
    assert.equal(carriesBody(new Headers({ 'content-length': '2' })), true);
    assert.equal(carriesBody(new Headers()), false);
  });
});
