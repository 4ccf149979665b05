/**
 * Admission: which arriving request is worked on, decided at once and before any parsing, so a
 * refusal costs next to nothing and every request is answered quickly, accepted or refused.
 *
 * - Work is bounded: at most `maxInFlight` requests are worked on at once, and none is admitted
 *   while the event loop is late by more than `SHED_EVENT_LOOP_DELAY_MS` (sustained): the process
 *   is short of CPU, and admitting more only lengthens every wait.
 * - A request whose body is still arriving is not work yet: it waits on a budget of its own
 *   (`maxReading`, four times `maxInFlight`) and counts as in flight only once its body has
 *   arrived, so clients that send a body slowly (or never) cannot take the slots others need. The
 *   caller gives body reads a deadline (the plug-in's own timer; the gateway's server
 *   `requestTimeout`).
 * - One client (by address) has at most `maxPerClient` requests open at once.
 * - A request whose client has already gone (it waited in the socket's queue) is not worked on.
 *
 * Refusals are counted, reported through `onShed` at most once per `SHED_REPORT_INTERVAL_MS` (the
 * first at once), and make `saturated()` true for a second, for readiness probes. Shared by the
 * gateway and the plug-in (one copy), each answering in its own format; written against
 * `node:http`, so no framework is a dependency here.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { monitorEventLoopDelay } from 'node:perf_hooks';

/** Event-loop delay (ms, held over `SUSTAINED_WINDOWS` windows) past which arriving requests are refused, by default. */
export const SHED_EVENT_LOOP_DELAY_MS = 250;
/** How often a refusal is reported (logged) at most; the report carries the count since the last. */
export const SHED_REPORT_INTERVAL_MS = 10_000;
/** How long a refusal keeps `saturated()` true. */
const SATURATED_HOLD_MS = 1_000;

export type ShedReason = 'in_flight' | 'event_loop' | 'reading' | 'per_client';
export type AdmitDecision = 'admit' | 'client_gone' | ShedReason;

export interface AdmitState {
  /** Requests being worked on (their bodies, if any, arrived). */
  readonly inFlight: number;
  readonly maxInFlight: number;
  /** Requests admitted whose bodies are still arriving. */
  readonly reading: number;
  readonly maxReading: number;
  /** Requests this client has open (reading or worked on). */
  readonly clientOpen: number;
  readonly maxPerClient: number;
  readonly hasBody: boolean;
  readonly clientGone: boolean;
  /** The event loop's current (sustained) delay, in ms. */
  readonly loopDelayMs: number;
  /** The delay past which requests are refused (`Infinity`: never for the delay alone). */
  readonly maxLoopDelayMs: number;
}

/**
 * Whether a refusal whose body was not read also closes its connection: yes when the client
 * looks like the cause (too many bodies arriving, or too many requests of its own open), so its
 * connection is not kept to drain a body that may never come; no under plain overload, where
 * closing would make every refused client connect again, costing more than the refusal saved.
 */
export const closesConnection = (reason: ShedReason): boolean => reason === 'reading' || reason === 'per_client';

/** The pure decision for one arriving request. */
export function admitRequest(state: AdmitState): AdmitDecision {
  if (state.clientGone) return 'client_gone';
  if (state.loopDelayMs > state.maxLoopDelayMs) return 'event_loop';
  if (state.inFlight >= state.maxInFlight) return 'in_flight';
  if (state.clientOpen >= state.maxPerClient) return 'per_client';
  if (state.hasBody && state.reading >= state.maxReading) return 'reading';
  return 'admit';
}

const WINDOW_MS = 100;
/** Windows the delay must hold over: one long synchronous task (a key generated at start) is not overload. */
const SUSTAINED_WINDOWS = 3;

/**
 * The event loop's delay, from Node's own histogram (`monitorEventLoopDelay`, as
 * `@fastify/under-pressure` reads it): each 100 ms window's mean less the sampling resolution;
 * the least of the last three windows, so only a delay that lasts counts. Sampled in the
 * background (unref'd): reading it costs nothing per request.
 */
function loopDelayProbe(): () => number {
  const resolution = 10;
  const histogram = monitorEventLoopDelay({ resolution });
  histogram.enable();
  const windows: number[] = [];
  let current = 0;
  setInterval(() => {
    const mean = Number.isFinite(histogram.mean) ? histogram.mean / 1e6 : 0;
    histogram.reset();
    windows.push(Math.max(0, mean - resolution));
    if (windows.length > SUSTAINED_WINDOWS) windows.shift();
    current = windows.length < SUSTAINED_WINDOWS ? 0 : Math.min(...windows);
  }, WINDOW_MS).unref();
  return () => current;
}

/** What a report of refusals says (the caller logs it). */
export interface ShedReport {
  readonly reason: ShedReason;
  /** Refusals since the last report, this one included. */
  readonly shedSinceLastReport: number;
  readonly inFlight: number;
  readonly reading: number;
  readonly loopDelayMs: number;
}

export interface AdmissionOptions {
  readonly maxInFlight: number;
  /** Default: four times `maxInFlight`. */
  readonly maxReading?: number;
  /** Default: `maxInFlight`. */
  readonly maxPerClient?: number;
  /**
   * The sustained event-loop delay (ms) past which arriving requests are refused; default
   * `SHED_EVENT_LOOP_DELAY_MS`. `false`: only the bounds shed (a process sharing its cores with
   * other work on purpose, or one whose callers cannot retry); the delay is still reported.
   */
  readonly maxEventLoopDelayMs?: number | false;
  /** Called for the first refusal, then at most once per `SHED_REPORT_INTERVAL_MS`. */
  readonly onShed?: (report: ShedReport) => void;
}

export interface ArrivingRequest {
  /** The client's address as the framework knows it; `undefined` puts it under no per-client cap. */
  readonly client: string | undefined;
  /** True when a body is to be read (Content-Length above 0, or chunked). */
  readonly hasBody: boolean;
  readonly clientGone: boolean;
}

/** An admitted request: `bodyArrived()` moves it from the reading budget to the work bound; `done()` releases it. Both idempotent. */
export interface Admitted {
  readonly decision: 'admit';
  bodyArrived(): void;
  done(): void;
}

export interface LoadSnapshot {
  readonly inFlight: number;
  readonly reading: number;
  readonly shed: number;
  readonly loopDelayMs: number;
  /** A request was refused in the last second, or the event loop is late past the threshold. */
  readonly saturated: boolean;
}

export interface InFlightLimiter {
  readonly maxInFlight: number;
  arrive(request: ArrivingRequest): Admitted | { readonly decision: Exclude<AdmitDecision, 'admit'> };
  /** What `/readyz` says about load. */
  snapshot(): LoadSnapshot;
  /**
   * Connect-style middleware: `next()` for an admitted request, `shed(req, res, reason)` otherwise
   * (with `Connection: close` when `closesConnection(reason)` and the body was not read).
   */
  middleware(shed: (req: IncomingMessage, res: ServerResponse, reason: ShedReason) => void, clientOf?: (req: IncomingMessage) => string | undefined): (req: IncomingMessage, res: ServerResponse, next: () => void) => void;
}

/** Whether the request carries a body, by its headers alone (RFC 9112 §6.3). */
export function carriesBody(headers: { get(name: string): string | null } | IncomingMessage['headers']): boolean {
  const get = (name: string): string | undefined => {
    const value = typeof headers.get === 'function' ? (headers as { get(name: string): string | null }).get(name) : (headers as IncomingMessage['headers'])[name];
    return value === null || value === undefined ? undefined : String(value);
  };
  if (get('transfer-encoding') !== undefined) return true;
  const length = get('content-length');
  return length !== undefined && length.trim() !== '0';
}

export function createInFlightLimiter(options: AdmissionOptions): InFlightLimiter {
  const { maxInFlight, maxReading = 4 * maxInFlight, maxPerClient = maxInFlight, maxEventLoopDelayMs = SHED_EVENT_LOOP_DELAY_MS, onShed } = options;
  for (const [name, value] of [['maxInFlight', maxInFlight], ['maxReading', maxReading], ['maxPerClient', maxPerClient]] as const) {
    if (!Number.isInteger(value) || value < 1) throw new RangeError(`${name} must be a whole number of at least 1`);
  }
  if (maxEventLoopDelayMs !== false && !(Number.isInteger(maxEventLoopDelayMs) && maxEventLoopDelayMs >= 1)) {
    throw new RangeError('maxEventLoopDelayMs must be a whole number of at least 1, or false');
  }
  const maxLoopDelayMs = maxEventLoopDelayMs === false ? Infinity : maxEventLoopDelayMs;
  let inFlight = 0;
  let reading = 0;
  let shed = 0;
  let unreported = 0;
  let lastReportAt = -Infinity;
  let lastShedAt = -Infinity;
  const perClient = new Map<string, number>();
  const loopDelayMs = loopDelayProbe();

  const refuse = (reason: ShedReason): void => {
    shed += 1;
    unreported += 1;
    const now = performance.now();
    lastShedAt = now;
    if (onShed && now - lastReportAt >= SHED_REPORT_INTERVAL_MS) {
      lastReportAt = now;
      const report: ShedReport = { reason, shedSinceLastReport: unreported, inFlight, reading, loopDelayMs: Math.round(loopDelayMs()) };
      unreported = 0;
      onShed(report);
    }
  };

  const arrive: InFlightLimiter['arrive'] = ({ client, hasBody, clientGone }) => {
    const clientOpen = client === undefined ? 0 : (perClient.get(client) ?? 0);
    const decision = admitRequest({ inFlight, maxInFlight, reading, maxReading, clientOpen, maxPerClient, hasBody, clientGone, loopDelayMs: loopDelayMs(), maxLoopDelayMs });
    if (decision !== 'admit') {
      if (decision !== 'client_gone') refuse(decision);
      return { decision };
    }
    if (client !== undefined) perClient.set(client, clientOpen + 1);
    let state: 'reading' | 'working' | 'done' = hasBody ? 'reading' : 'working';
    if (hasBody) reading += 1;
    else inFlight += 1;
    return {
      decision,
      bodyArrived() {
        if (state !== 'reading') return;
        state = 'working';
        reading -= 1;
        inFlight += 1;
      },
      done() {
        if (state === 'done') return;
        if (state === 'reading') reading -= 1;
        else inFlight -= 1;
        state = 'done';
        if (client === undefined) return;
        const open = (perClient.get(client) ?? 1) - 1;
        if (open > 0) perClient.set(client, open);
        else perClient.delete(client);
      },
    };
  };

  return {
    maxInFlight,
    arrive,
    snapshot: () => {
      const delay = loopDelayMs();
      return { inFlight, reading, shed, loopDelayMs: Math.round(delay), saturated: delay > maxLoopDelayMs || performance.now() - lastShedAt < SATURATED_HOLD_MS };
    },
    middleware: (answerShed, clientOf = (req) => req.socket.remoteAddress) => (req, res, next) => {
      const hasBody = carriesBody(req.headers);
      const admitted = arrive({ client: clientOf(req), hasBody, clientGone: req.socket.destroyed });
      if (admitted.decision === 'client_gone') {
        res.destroy();
        return;
      }
      if (admitted.decision !== 'admit') {
        // The body is not read: drained (plain overload) or not waited for (the connection closes).
        if (hasBody && !req.complete && closesConnection(admitted.decision)) res.setHeader('Connection', 'close');
        else req.resume();
        answerShed(req, res, admitted.decision);
        return;
      }
      // 'end' comes once a reader has taken the whole body; 'close' once the answer is done or the connection ended.
      if (hasBody) req.once('end', admitted.bodyArrived);
      res.once('close', admitted.done);
      next();
    },
  };
}
