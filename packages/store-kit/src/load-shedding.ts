/**
 * Shedding load instead of drowning: a bound on the requests one process works on at once, and on
 * the event loop's delay (`SHED_EVENT_LOOP_DELAY_MS`). Past either a request is refused at once (the caller answers 503 with `Retry-After`), so under twice the
 * load it can carry every request is still answered within a second, accepted or refused, and
 * memory stays bounded. A request whose client has already gone (it waited in the socket's queue
 * and the client gave up) is not worked on at all.
 *
 * Shared by the gateway and the plug-in (one copy), each answering the refusal in its own format.
 * Written against `node:http`, so Express is not a dependency here.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';

export type AdmitDecision = 'admit' | 'shed' | 'client_gone';

/**
 * Event-loop delay past which arriving requests are refused too, whatever the count in flight: the
 * process is short of CPU, requests are already waiting unread in its sockets, and admitting more
 * only lengthens every wait, while a refusal costs next to nothing.
 */
export const SHED_EVENT_LOOP_DELAY_MS = 500;

export interface AdmitState {
  readonly inFlight: number;
  readonly maxInFlight: number;
  readonly clientGone: boolean;
  /** The event loop's current delay, in ms. */
  readonly loopDelayMs: number;
}

/** The pure decision for one arriving request. */
export function admitRequest(state: AdmitState): AdmitDecision {
  if (state.clientGone) return 'client_gone';
  if (state.loopDelayMs > SHED_EVENT_LOOP_DELAY_MS) return 'shed';
  return state.inFlight < state.maxInFlight ? 'admit' : 'shed';
}

const PROBE_MS = 50;
/** Probes the delay must hold over: one long synchronous task (a key generated at start) is not overload. */
const SUSTAINED_PROBES = 4;

/**
 * How late a 50 ms timer fires, sampled in the background (unref'd): the least delay of the last
 * four probes, so only a delay that lasts counts.
 */
function loopDelayProbe(): () => number {
  const delays: number[] = [];
  let expected = performance.now() + PROBE_MS;
  setInterval(() => {
    const now = performance.now();
    delays.push(Math.max(0, now - expected));
    if (delays.length > SUSTAINED_PROBES) delays.shift();
    expected = now + PROBE_MS;
  }, PROBE_MS).unref();
  return () => (delays.length < SUSTAINED_PROBES ? 0 : Math.min(...delays));
}

export interface InFlightLimiter {
  /** Requests being worked on now. */
  readonly inFlight: number;
  readonly maxInFlight: number;
  /**
   * The framework-neutral form: the decision for one arriving request, and for an admitted one a
   * `done` to call exactly once when its answer is given (or its client is gone).
   */
  enter(clientGone: boolean): { readonly decision: 'admit'; readonly done: () => void } | { readonly decision: 'shed' | 'client_gone' };
  /** Connect-style middleware: `next()` for an admitted request, `shed(req, res)` past the bound. */
  middleware(shed: (req: IncomingMessage, res: ServerResponse) => void): (req: IncomingMessage, res: ServerResponse, next: () => void) => void;
}

export function createInFlightLimiter(maxInFlight: number): InFlightLimiter {
  if (!Number.isInteger(maxInFlight) || maxInFlight < 1) throw new RangeError('maxInFlight must be a whole number of at least 1');
  let inFlight = 0;
  const loopDelayMs = loopDelayProbe();
  return {
    get inFlight() {
      return inFlight;
    },
    maxInFlight,
    enter(clientGone) {
      const decision = admitRequest({ inFlight, maxInFlight, clientGone, loopDelayMs: loopDelayMs() });
      if (decision !== 'admit') return { decision };
      inFlight += 1;
      let released = false;
      return {
        decision,
        done: () => {
          if (released) return;
          released = true;
          inFlight -= 1;
        },
      };
    },
    middleware: (shed) => (req, res, next) => {
      const decision = admitRequest({ inFlight, maxInFlight, clientGone: req.socket.destroyed, loopDelayMs: loopDelayMs() });
      if (decision === 'client_gone') {
        res.destroy();
        return;
      }
      if (decision === 'shed') {
        // Drain the body the client may still be sending, so the refusal can reach it.
        req.resume();
        shed(req, res);
        return;
      }
      inFlight += 1;
      // 'close' comes once the response is done or the connection ended, whichever is first.
      res.once('close', () => {
        inFlight -= 1;
      });
      next();
    },
  };
}
