/**
 * What each event says in the merchant's log: one line per event, at a level that matches what
 * the merchant must do about it. The mapping is a pure function (table-tested); `logEvents`
 * subscribes a logger to a router's events with it.
 *
 * Levels: `error` for what loses money or orders until someone acts (onPaid threw, a start-up
 * check that failed, an internal error), `warn` for refusals and gateway failures, `info` for the
 * life of an order, `debug` for gateway calls that went well.
 */
import type { PayButtonEventMap, PayButtonEventName, PayButtonEvents } from '../events.ts';
import type { LoggerLike } from './logger.ts';
import { LogSampler } from './sampler.ts';

export type LogLevel = 'debug' | 'info' | 'warn' | 'error';

export interface LogLine {
  readonly level: LogLevel;
  /** Structured fields; an error goes under `err` (pino's serializer prints its stack). */
  readonly fields: Readonly<Record<string, unknown>>;
  readonly message: string;
}

/** Warnings that mean money or orders are stuck until someone acts. */
const ERROR_WARNINGS: ReadonlySet<string> = new Set(['self_check_failed', 'internal', 'store_unavailable', 'gateway_mismatch', 'gateway_answer_untrusted']);
/** Notification answers that say the merchant's own code or store failed. */
const ERROR_REJECTIONS: ReadonlySet<string> = new Set(['fulfilment_failed', 'internal_error', 'store_unavailable', 'body_consumed']);

/** A duration for a human: `0.7`, `3`, `1250` (fields keep the exact figure). */
const ms = (value: number): string => (value < 1 ? value.toFixed(1) : String(Math.round(value)));

const withError = (fields: Record<string, unknown>, error: unknown): Record<string, unknown> => (error === undefined ? fields : { ...fields, err: error });

/** The log line for one event. */
export function logLineFor<K extends PayButtonEventName>(name: K, ...[payload]: PayButtonEventMap[K]): LogLine {
  switch (name) {
    case 'order.transition': {
      const e = payload as PayButtonEventMap['order.transition'][0];
      return { level: 'info', fields: { event: name, orderNum: e.orderNum, from: e.from, to: e.to, source: e.source }, message: `order ${e.orderNum}: ${e.from ?? 'new'} -> ${e.to} (${e.source})` };
    }
    case 'gateway.call': {
      const e = payload as PayButtonEventMap['gateway.call'][0];
      const fields = { event: name, ...e };
      // A query's NOTEXIST is an answer, not a failure (an order not registered yet).
      const fine = e.outcome === 'success' || (e.operation === 'query' && e.outcome === 'not_exist');
      const detail = e.message ? `: ${e.message}` : '';
      return fine
        ? { level: 'debug', fields, message: `gateway ${e.operation} for ${e.orderNum}: ${e.outcome} in ${ms(e.durationMs)} ms` }
        : { level: 'warn', fields, message: `gateway ${e.operation} for ${e.orderNum} failed (${e.outcome}, try ${e.attempt})${detail}` };
    }
    case 'notification.accepted': {
      const e = payload as PayButtonEventMap['notification.accepted'][0];
      return { level: 'info', fields: { event: name, ...e }, message: `notification for ${e.orderNum}: ${e.reported}${e.changed ? '' : ' (already recorded)'}` };
    }
    case 'notification.rejected': {
      const e = payload as PayButtonEventMap['notification.rejected'][0];
      const level = ERROR_REJECTIONS.has(e.reason) ? 'error' : 'warn';
      return { level, fields: { event: name, ...e }, message: `notification refused with HTTP ${e.httpStatus} (${e.reason})${e.orderNum ? ` for ${e.orderNum}` : ''}: ${e.message}` };
    }
    case 'fulfilment.succeeded': {
      const e = payload as PayButtonEventMap['fulfilment.succeeded'][0];
      return { level: 'info', fields: { event: name, orderNum: e.orderNum, attempt: e.attempt, durationMs: e.durationMs }, message: `onPaid done for ${e.orderNum} (run ${e.attempt}, ${ms(e.durationMs)} ms)` };
    }
    case 'fulfilment.failed': {
      const e = payload as PayButtonEventMap['fulfilment.failed'][0];
      return {
        level: 'error',
        fields: withError({ event: name, orderNum: e.orderNum, attempt: e.attempt, durationMs: e.durationMs }, e.error),
        message: `onPaid threw for paid order ${e.orderNum} (run ${e.attempt}); it runs again on the next notification, status poll or reconcile()`,
      };
    }
    case 'fulfilment.lease_lost': {
      const e = payload as PayButtonEventMap['fulfilment.lease_lost'][0];
      return {
        level: 'warn',
        fields: withError({ event: name, orderNum: e.orderNum, attempt: e.attempt, durationMs: e.durationMs }, e.error),
        message: `onPaid for ${e.orderNum} lost its lease (run ${e.attempt}, ${ms(e.durationMs)} ms): its signal was aborted and its completion not recorded`,
      };
    }
    case 'fulfilment.unrecorded': {
      const e = payload as PayButtonEventMap['fulfilment.unrecorded'][0];
      return {
        level: 'error',
        fields: withError({ event: name, orderNum: e.orderNum, attempt: e.attempt, durationMs: e.durationMs }, e.error),
        message: `onPaid returned for ${e.orderNum} (run ${e.attempt}) but the database would not record it: onPaid will run again for this order, so check what this run already did`,
      };
    }
    case 'order.duplicate_paid': {
      const e = payload as PayButtonEventMap['order.duplicate_paid'][0];
      return { level: 'error', fields: { event: name, ...e }, message: `order ${e.orderNum} paid Rp ${e.payMoney} for reference ${e.reference}, already paid by ${e.duplicateOf}: refund one` };
    }
    case 'warning': {
      const e = payload as PayButtonEventMap['warning'][0];
      const level = ERROR_WARNINGS.has(e.code) ? 'error' : 'warn';
      return { level, fields: withError({ event: name, code: e.code, ...(e.orderNum ? { orderNum: e.orderNum } : {}) }, e.error), message: e.message };
    }
  }
  return { level: 'info', fields: { event: name }, message: String(name) };
}

const EVENT_NAMES: readonly PayButtonEventName[] = [
  'order.transition', 'gateway.call', 'notification.accepted', 'notification.rejected',
  'fulfilment.succeeded', 'fulfilment.failed', 'fulfilment.lease_lost', 'fulfilment.unrecorded', 'order.duplicate_paid', 'warning',
];

/**
 * Log every event of `events` with `logger`; returns the function that stops it. Refusals at
 * `warn` (a sender's junk) are sampled per client (`sampler.ts`); those at `error` (our side
 * failed) never are.
 */
export function logEvents(events: PayButtonEvents, logger: LoggerLike, now: () => number = Date.now): () => void {
  const sampler = new LogSampler();
  const listeners = EVENT_NAMES.map((name) => {
    const listener = (...payload: PayButtonEventMap[typeof name]) => {
      const line = logLineFor(name, ...payload);
      if (name === 'notification.rejected' && line.level === 'warn') {
        const client = (payload[0] as PayButtonEventMap['notification.rejected'][0]).client ?? 'unknown';
        const verdict = sampler.admit(client, now());
        if (verdict.skipped > 0) logger.warn({ event: name, client, skipped: verdict.skipped }, `${verdict.skipped} more refused notifications from ${client} were not logged`);
        if (!verdict.log) return;
      }
      logger[line.level](line.fields, line.message);
    };
    events.on(name, listener as never);
    return () => events.off(name, listener as never);
  });
  return () => listeners.forEach((off) => off());
}
