/**
 * Which database errors are faults of the database (a lost or silent connection, a timeout, a
 * server too busy) rather than of the request or the code. A fault is worth a retry: the request
 * that met it answers 503 with `Retry-After`, and a client whose connection is gone is dropped
 * from its pool instead of being handed to the next request.
 *
 * Pure: an error object in, a verdict out (table-tested in test/database-faults.test.ts).
 */

export type DatabaseFault =
  /** The connection is gone or cannot be trusted (ended, reset, refused, silent past the deadline). */
  | 'connection_lost'
  /** The server cancelled the statement (statement timeout); the connection itself is fine. */
  | 'timed_out'
  /** The server, the pool or the file is too busy right now (no free connection, a lock held). */
  | 'overloaded'
  /** A serialization failure or deadlock: the transaction may simply be run again. */
  | 'conflict';

/** Socket errors (errno names) that end a connection. */
const SOCKET_CODES = new Set(['ECONNRESET', 'ECONNREFUSED', 'ECONNABORTED', 'ETIMEDOUT', 'EPIPE', 'EHOSTUNREACH', 'ENETUNREACH', 'ENOTFOUND', 'EAI_AGAIN']);

/** SQLSTATEs outside class 08 (connection exception) that also end the session. */
const SESSION_ENDING_STATES = new Set([
  '57P01', // admin_shutdown: pg_terminate_backend, a fast shutdown
  '57P02', // crash_shutdown
  '57P03', // cannot_connect_now: starting up, recovering
  '57P05', // idle_session_timeout
  '25P03', // idle_in_transaction_session_timeout
]);

/** What node-postgres says when the connection dies under it (it has no code for these). */
const LOST_CONNECTION_MESSAGES = [
  'Connection terminated',
  'timeout exceeded when trying to connect',
  'Query read timeout',
  'is not queryable',
  'Cannot use a pool after calling end',
];

const SQLITE_OVERLOADED = /^SQLITE_(BUSY|LOCKED)/;
const SQLITE_UNAVAILABLE = /^SQLITE_(IOERR|CANTOPEN|FULL|PROTOCOL)/;

function faultOf(error: object): DatabaseFault | undefined {
  const { code, message } = error as { code?: unknown; message?: unknown };
  if (typeof code === 'string') {
    if (SOCKET_CODES.has(code)) return 'connection_lost';
    if (/^[0-9A-Z]{5}$/.test(code)) {
      if (code.startsWith('08') || SESSION_ENDING_STATES.has(code)) return 'connection_lost';
      if (code === '57014') return 'timed_out'; // query_canceled: statement_timeout
      if (code.startsWith('53') || code === '55P03') return 'overloaded'; // insufficient resources, lock_not_available
      if (code === '40001' || code === '40P01') return 'conflict';
    }
    if (SQLITE_OVERLOADED.test(code)) return 'overloaded';
    if (SQLITE_UNAVAILABLE.test(code)) return 'connection_lost';
  }
  if (typeof message === 'string' && LOST_CONNECTION_MESSAGES.some((text) => message.includes(text))) return 'connection_lost';
  return undefined;
}

/**
 * The fault behind `error`, looking through `cause` (a typed error that wraps the driver's) and
 * `AggregateError`s (a connect that tried IPv4 and IPv6), or `undefined` for any other error.
 */
export function databaseFault(error: unknown): DatabaseFault | undefined {
  let current: unknown = error;
  for (let depth = 0; depth < 5 && typeof current === 'object' && current !== null; depth++) {
    const fault = faultOf(current);
    if (fault) return fault;
    if (current instanceof AggregateError) {
      for (const inner of current.errors) {
        const found = databaseFault(inner);
        if (found) return found;
      }
    }
    current = (current as { cause?: unknown }).cause;
  }
  return undefined;
}

/** How long a client should wait before trying again after `fault`, in seconds. */
export function retryAfterSeconds(fault: DatabaseFault): number {
  return fault === 'conflict' ? 1 : fault === 'overloaded' ? 2 : 5;
}
