/**
 * The plug-in's side of admission (`@tombolbayar/store-kit`'s `createInFlightLimiter`): a request
 * is admitted or refused as it arrives, before any parsing; one with a body waits on the reading
 * budget, not a work slot, until its body has arrived, and its body must arrive within
 * `bodyReadTimeoutMs` or it is answered `408 request_timeout` and its connection closed. The
 * plug-in cannot set the timeouts of the merchant's server, so it keeps this deadline itself.
 */
import { carriesBody, closesConnection, createInFlightLimiter, type Admitted, type InFlightLimiter, type ShedReport } from '@tombolbayar/store-kit';
import { PayButtonError } from '../errors.ts';
import type { PayButtonEvents } from '../events.ts';
import type { CoreRequest, RequestFacts } from './context.ts';

export { closesConnection, type InFlightLimiter } from '@tombolbayar/store-kit';

const SHED_WORDS: Record<ShedReport['reason'], string> = {
  in_flight: 'maxInFlight requests are being worked on',
  event_loop: 'the event loop is late',
  reading: 'too many request bodies are still arriving',
  per_client: 'one client has maxInFlight requests open',
};

/** The limiter of one plug-in, its refusals reported as a sampled `overloaded` warning. */
export function createAdmission({ maxInFlight, maxEventLoopDelayMs }: { readonly maxInFlight: number; readonly maxEventLoopDelayMs: number | false }, events: PayButtonEvents): InFlightLimiter {
  return createInFlightLimiter({
    maxInFlight,
    maxEventLoopDelayMs,
    onShed: (report) =>
      events.emit('warning', {
        code: 'overloaded',
        message: `shedding load: ${report.shedSinceLastReport} request(s) refused with 503 overloaded since the last report (${SHED_WORDS[report.reason]}; ${report.inFlight} in flight, ${report.reading} bodies arriving, event loop ${report.loopDelayMs} ms late)`,
      }),
  });
}

/** Whether the request brings a body the plug-in will read (one an earlier parser ate is read already). */
export const bodyToRead = (request: CoreRequest, facts: RequestFacts<unknown>): boolean => !facts.parsedBody && carriesBody(request.headers);

export const bodyTimeout = (timeoutMs: number): PayButtonError =>
  new PayButtonError('request_timeout', `The request body did not arrive within ${Math.round(timeoutMs / 1000)} s.`);

/** Read a Web body stream whole, or `undefined` past `max` bytes; `stop()` cancels the read (a deadline). */
export function readWebBody(body: ReadableStream<Uint8Array> | null, max: number): { read: Promise<Buffer | undefined>; stop: () => void } {
  if (!body) return { read: Promise.resolve(Buffer.alloc(0)), stop: () => {} };
  const reader = body.getReader();
  const read = (async () => {
    const chunks: Uint8Array[] = [];
    let size = 0;
    for (;;) {
      const step = await reader.read();
      if (step.done) break;
      size += step.value.byteLength;
      if (size > max) {
        reader.cancel().catch(() => {});
        return undefined;
      }
      chunks.push(step.value);
    }
    return chunks.length === 1 ? Buffer.from(chunks[0]!.buffer, chunks[0]!.byteOffset, chunks[0]!.byteLength) : Buffer.concat(chunks);
  })();
  return { read, stop: () => void reader.cancel().catch(() => {}) };
}

export interface TimedRequest {
  readonly request: CoreRequest;
  /** True once the body read was cut off by the deadline (the answer then closes the connection). */
  readonly timedOut: () => boolean;
}

/**
 * `request` as the routes read it: its body read whole (`readBody`) under the deadline, and the
 * admission told once the body has arrived, so the request takes its work slot then.
 */
export function withBodyDeadline(request: CoreRequest, admitted: Admitted, timeoutMs: number): TimedRequest {
  let timedOut = false;
  const readBody = (max: number): Promise<Buffer | undefined> =>
    new Promise((resolve, reject) => {
      const reading = request.readBody ? { read: request.readBody(max), stop: () => {} } : readWebBody(request.body, max);
      // Whichever comes first: the body (or its failure), or the deadline; a read cut off later is ignored.
      const timer = setTimeout(() => {
        timedOut = true;
        reading.stop();
        reject(bodyTimeout(timeoutMs));
      }, timeoutMs);
      reading.read.then(
        (whole) => {
          if (timedOut) return;
          clearTimeout(timer);
          admitted.bodyArrived();
          resolve(whole);
        },
        (error: unknown) => {
          if (timedOut) return;
          clearTimeout(timer);
          reject(error);
        },
      );
    });
  const timed: CoreRequest = {
    method: request.method,
    url: request.url,
    headers: request.headers,
    get body() {
      return request.body;
    },
    signal: request.signal,
    readBody,
  };
  return { request: timed, timedOut: () => timedOut };
}
