/**
 * Recording delivery attempts, a group at a time: whatever the group's size, it costs three
 * statements (the bumps, the attempts, the state moves; two on PostgreSQL, each a round trip),
 * where three per attempt were most of a drain's database time (bench/ "drain").
 *
 * Per attempt it is exactly the single-row bookkeeping: the attempt is always recorded with the
 * next number; the state only moves when `owner` still holds the lease on a pending row (a resend
 * in the meantime, or a lease taken over after expiry, wins); only the lease holder's attempts
 * count towards the retry schedule. Both engines run the same SQL (`UPDATE ... FROM (VALUES ...)`,
 * SQLite 3.33+), whose VALUES columns are `column1`, `column2`, ... on both.
 */
import { sql, type InsertQueryBuilder, type InsertResult, type RawBuilder, type Selectable } from 'kysely';
import type { Engine } from './database.ts';
import type { Executor } from './executor.ts';
import { toNotification, type DeliveryAttemptRecord, type NotificationRecord, type NotificationState } from './outbox.ts';
import type { GatewayDatabase, NotificationsTable } from './schema.ts';

/** One attempt as the worker ends it: what the stored record will say, and who made it, when. */
export interface AttemptOutcome extends Pick<DeliveryAttemptRecord, 'acknowledged' | 'httpStatus' | 'latencyMs' | 'errorClass' | 'bodyExcerpt' | 'detail'> {
  readonly attemptId: string;
  readonly owner: string;
  readonly at: number;
  /** Where the row goes next when the attempt failed: a time, or null for dead. */
  readonly nextAttemptAt: (roundAttempts: number) => number | null;
}

export interface Attempt {
  readonly notificationId: string;
  readonly outcome: AttemptOutcome;
}

type Row = Selectable<NotificationsTable>;
type AttemptsInsert = InsertQueryBuilder<GatewayDatabase, 'delivery_attempts', InsertResult>;

/** Every column, unqualified: SQLite's RETURNING takes no `table.*`, PostgreSQL's `*` would add the VALUES columns. */
const COLUMNS = sql.raw(
  'id, plat_order_num, merchant_code, order_num, event, url, fields, state, fault, attempt_count, round_attempts, next_attempt_at, ' +
    'lease_owner, lease_until, created_at, updated_at, delivered_at',
);

const values = (rows: readonly RawBuilder<unknown>[]) => sql`(values ${sql.join(rows)}) as v`;

/** Bump each row's counts; the rows as they now stand (vanished ones are missing). */
async function bump(db: Executor, attempts: readonly Attempt[]): Promise<Map<string, Row>> {
  const rows = attempts.map(({ notificationId, outcome }) => sql`(${notificationId}, ${outcome.owner}, cast(${outcome.at} as bigint))`);
  const result = await sql<Row>`update notifications as n set
      attempt_count = n.attempt_count + 1,
      round_attempts = case when n.lease_owner = v.column2 then n.round_attempts + 1 else n.round_attempts end,
      updated_at = v.column3
    from ${values(rows)} where n.id = v.column1 returning ${COLUMNS}`.execute(db);
  return new Map(result.rows.map((row) => [row.id, row]));
}

interface Move {
  readonly id: string;
  readonly state: NotificationState;
  readonly nextAttemptAt: number | null;
  readonly deliveredAt: number | null;
}

/**
 * Insert the attempts, move each row on and end its lease (a time left null keeps the column as it
 * is). On PostgreSQL one statement does both (the insert as a CTE): one round trip fewer a group.
 */
async function insertAndMove(db: Executor, engine: Engine, insert: AttemptsInsert | undefined, moves: readonly Move[]): Promise<void> {
  if (moves.length === 0) {
    if (insert) await insert.execute();
    return;
  }
  const rows = moves.map((m) => sql`(${m.id}, ${m.state}, cast(${m.nextAttemptAt} as bigint), cast(${m.deliveredAt} as bigint))`);
  const update = sql`update notifications as n set
      state = v.column2,
      next_attempt_at = coalesce(v.column3, n.next_attempt_at),
      delivered_at = coalesce(v.column4, n.delivered_at),
      lease_owner = null,
      lease_until = null
    from ${values(rows)} where n.id = v.column1`;
  let result;
  if (engine === 'postgres' && insert) {
    result = await sql`with recorded as (${insert}) ${update}`.execute(db);
  } else {
    if (insert) await insert.execute();
    result = await update.execute(db);
  }
  if (Number(result.numAffectedRows) !== moves.length) {
    throw new Error(`notifications ${moves.map((m) => m.id).join(', ')}: ${moves.length - Number(result.numAffectedRows)} vanished while their attempts were recorded`);
  }
}

/** One layer: every notification at most once. */
async function recordLayer(db: Executor, engine: Engine, attempts: readonly Attempt[]): Promise<(NotificationRecord | undefined)[]> {
  const bumped = await bump(db, attempts);
  const recorded = attempts.filter((attempt) => bumped.has(attempt.notificationId));
  const insert: AttemptsInsert | undefined =
    recorded.length === 0
      ? undefined
      : db.insertInto('delivery_attempts').values(
          recorded.map(({ notificationId, outcome }) => ({
            id: outcome.attemptId,
            notification_id: notificationId,
            number: Number(bumped.get(notificationId)!.attempt_count),
            attempted_at: outcome.at,
            acknowledged: outcome.acknowledged ? 1 : 0,
            http_status: outcome.httpStatus,
            latency_ms: Math.max(0, Math.round(outcome.latencyMs)),
            error_class: outcome.errorClass,
            body_excerpt: outcome.bodyExcerpt,
            detail: outcome.detail,
            worker: outcome.owner,
          })),
        );
  const moves: Move[] = [];
  const records = attempts.map(({ notificationId, outcome }): NotificationRecord | undefined => {
    const row = bumped.get(notificationId);
    if (!row) return undefined;
    if (row.lease_owner !== outcome.owner || row.state !== 'pending') return toNotification(row);
    let next: Move;
    if (outcome.acknowledged) {
      next = { id: notificationId, state: 'delivered', nextAttemptAt: null, deliveredAt: outcome.at };
    } else {
      const at = outcome.nextAttemptAt(Number(row.round_attempts));
      next = { id: notificationId, state: at === null ? 'dead' : 'pending', nextAttemptAt: at, deliveredAt: null };
    }
    moves.push(next);
    // The row as it will stand, without reading it back: this transaction writes every column since.
    return toNotification({
      ...row,
      state: next.state,
      next_attempt_at: next.nextAttemptAt ?? row.next_attempt_at,
      delivered_at: next.deliveredAt ?? row.delivered_at,
      lease_owner: null,
      lease_until: null,
    });
  });
  await insertAndMove(db, engine, insert, moves);
  return records;
}

/**
 * Record each attempt and move its notification on (delivered, rescheduled or dead); for each, the
 * notification as it now stands, or undefined when it no longer exists. Run it in a transaction:
 * the group is recorded whole or not at all. A notification twice in the group (a resend let its
 * worker claim it again while the first attempt ran) is recorded twice, in the group's order.
 */
export async function recordAttempts(db: Executor, engine: Engine, attempts: readonly Attempt[]): Promise<(NotificationRecord | undefined)[]> {
  const out: (NotificationRecord | undefined)[] = new Array(attempts.length);
  let rest = attempts.map((attempt, index) => ({ attempt, index }));
  while (rest.length > 0) {
    const seen = new Set<string>();
    const layer: typeof rest = [];
    const later: typeof rest = [];
    for (const item of rest) {
      if (seen.has(item.attempt.notificationId)) later.push(item);
      else {
        seen.add(item.attempt.notificationId);
        layer.push(item);
      }
    }
    const records = await recordLayer(db, engine, layer.map((item) => item.attempt));
    layer.forEach((item, i) => (out[item.index] = records[i]));
    rest = later;
  }
  return out;
}

/** One attempt (`recordAttempts` of one). */
export async function recordAttempt(db: Executor, engine: Engine, notificationId: string, outcome: AttemptOutcome): Promise<NotificationRecord | undefined> {
  return (await recordAttempts(db, engine, [{ notificationId, outcome }]))[0];
}
