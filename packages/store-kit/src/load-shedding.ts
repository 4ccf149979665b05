/**
 * Shedding load instead of drowning: a bound on the requests one process works on at once. Past
 * it a request is refused at once (the caller answers 503 with `Retry-After`), so under twice the
 * load it can carry every request is still answered within a second, accepted or refused, and
 * memory stays bounded. A request whose client has already gone (it waited in the socket's queue
 * and the client gave up) is not worked on at all.
 *
 * Shared by the gateway and the plug-in (one copy), each answering the refusal in its own format.
 * Written against `node:http`, so Express is not a dependency here.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';

export type AdmitDecision = 'admit' | 'shed' | 'client_gone';

/** The pure decision for one arriving request. */
export function admitRequest(state: { readonly inFlight: number; readonly maxInFlight: number; readonly clientGone: boolean }): AdmitDecision {
  if (state.clientGone) return 'client_gone';
  return state.inFlight < state.maxInFlight ? 'admit' : 'shed';
}

export interface InFlightLimiter {
  /** Requests being worked on now. */
  readonly inFlight: number;
  readonly maxInFlight: number;
  /** Connect-style middleware: `next()` for an admitted request, `shed(req, res)` past the bound. */
  middleware(shed: (req: IncomingMessage, res: ServerResponse) => void): (req: IncomingMessage, res: ServerResponse, next: () => void) => void;
}

export function createInFlightLimiter(maxInFlight: number): InFlightLimiter {
  if (!Number.isInteger(maxInFlight) || maxInFlight < 1) throw new RangeError('maxInFlight must be a whole number of at least 1');
  let inFlight = 0;
  return {
    get inFlight() {
      return inFlight;
    },
    maxInFlight,
    middleware: (shed) => (req, res, next) => {
      const decision = admitRequest({ inFlight, maxInFlight, clientGone: req.socket.destroyed });
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
