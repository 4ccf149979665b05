/**
 * One HTTP(S) POST of a form body to already-checked addresses, read just enough to decide
 * whether the merchant acknowledged. Never throws; every end is an outcome.
 */
import type { LookupAddress } from 'node:dns';
import http, { type IncomingMessage } from 'node:http';
import https from 'node:https';
import {
  classifyError,
  excerptOf,
  MAX_BODY_BYTES,
  type AttemptResult,
  type DeliveryErrorClass,
} from './outcome.ts';
import { pinnedLookup } from './resolve.ts';

/** How a kept-alive socket the server closed while it sat idle fails when reused. */
const STALE_SOCKET_CODES = new Set(['ECONNRESET', 'EPIPE']);

export type PostOutcome = Omit<AttemptResult, 'latencyMs'>;

/** How the reading of a response body ended. */
type BodyEnd = 'complete' | 'over-limit' | 'timeout' | 'aborted';

export const USER_AGENT = 'tombolbayar-gateway-notifier/0.1';

function failed(errorClass: DeliveryErrorClass, detail: string, httpStatus: number | null = null, body?: Buffer): PostOutcome {
  return { acknowledged: false, httpStatus, errorClass, bodyExcerpt: body ? excerptOf(body) : '', detail };
}

/**
 * The note an acknowledgement carries when the merchant's answer was `"SUCCESS"` with JSON quotes
 * (a Django REST framework view's `Response('SUCCESS')`, rendered as JSON for our `Accept`).
 */
export const JSON_QUOTED_ACK_NOTE = 'acknowledged: the answer was JSON-quoted ("SUCCESS"), accepted beyond the strict SUCCESS';

/**
 * The acknowledgement rule, pure: HTTP 200 and a complete body that is `SUCCESS` once trimmed, or
 * `"SUCCESS"` with JSON quotes (acknowledged with `JSON_QUOTED_ACK_NOTE` as its detail; the two
 * public Django clients of the family answer so, and mean it). Status decides first (a 500 whose
 * body says SUCCESS is still a failure); for a non-200 the body is only an excerpt, so how its
 * reading ended does not matter.
 */
export function judgeResponse(status: number, body: Buffer, end: BodyEnd): PostOutcome {
  if (status >= 300 && status < 400) return failed('redirect', `HTTP ${status}: redirects are not followed`, status, body);
  if (status !== 200) return failed('http-status', `HTTP ${status}`, status, body);
  if (end === 'timeout') return failed('timeout', 'the body did not arrive within the timeout', status, body);
  if (end === 'aborted') return failed('aborted', 'the connection closed before the body ended', status, body);
  if (end === 'over-limit') return failed('unexpected-body', `the body is longer than ${MAX_BODY_BYTES} bytes`, status, body);
  const answer = body.toString('utf8').trim();
  if (answer === '"SUCCESS"') return { acknowledged: true, httpStatus: 200, errorClass: null, bodyExcerpt: excerptOf(body), detail: JSON_QUOTED_ACK_NOTE };
  if (answer !== 'SUCCESS') return failed('unexpected-body', 'the body is not SUCCESS', status, body);
  return { acknowledged: true, httpStatus: 200, errorClass: null, bodyExcerpt: excerptOf(body) };
}

/** Only lower-case token names with values free of control characters: a propagator can never break the request. */
function traceHeaders(headers: Readonly<Record<string, string>>): Record<string, string> {
  const kept: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) {
    if (/^[a-z0-9-]{1,64}$/.test(name) && typeof value === 'string' && /^[\x20-\x7e]{0,1024}$/.test(value)) kept[name] = value;
  }
  return kept;
}

/**
 * POST `body` to `target`, connecting only to `addresses`. No redirects are followed, credentials
 * in the URL are never sent. `signal` aborting means the attempt's deadline passed.
 *
 * Without `agent` the connection is made for this attempt and closed after it. With one (the
 * worker's `connections.ts`, keyed by these very checked addresses) a socket whose answer was read
 * in full goes back to it for the next attempt to the same checked addresses; a pooled socket the
 * server had closed meanwhile fails before any answer and the POST is made again, once, on a
 * connection of its own.
 */
export function postForm(
  target: URL,
  body: string,
  addresses: readonly LookupAddress[],
  signal: AbortSignal,
  agent?: http.Agent,
  extraHeaders: Readonly<Record<string, string>> = {},
): Promise<PostOutcome> {
  return new Promise<PostOutcome>((resolve) => {
    let settled = false;
    let request: http.ClientRequest | undefined;
    /** The whole answer was read: the socket may serve the next attempt. */
    let reusable = false;
    const settle = (outcome: PostOutcome): void => {
      if (settled) return;
      settled = true;
      signal.removeEventListener('abort', onAbort);
      if (!reusable) request?.destroy();
      resolve(outcome);
    };
    let onResponseAbort: (() => void) | undefined;
    function onAbort(): void {
      if (onResponseAbort) onResponseAbort();
      else settle(failed('timeout', 'no response within the timeout'));
    }
    if (signal.aborted) return settle(failed('timeout', 'no time left to connect'));
    signal.addEventListener('abort', onAbort);

    const hostname = target.hostname.startsWith('[') ? target.hostname.slice(1, -1) : target.hostname;
    const options: https.RequestOptions = {
      method: 'POST',
      protocol: target.protocol,
      hostname,
      port: target.port === '' ? undefined : Number(target.port),
      path: `${target.pathname}${target.search}`,
      headers: {
        // First, so the POST's own headers below always win over a propagator's.
        ...traceHeaders(extraHeaders),
        host: target.host,
        'content-type': 'application/x-www-form-urlencoded',
        'content-length': Buffer.byteLength(body),
        'user-agent': USER_AGENT,
        accept: 'text/plain, */*;q=0.1',
        'accept-encoding': 'identity',
        ...(agent ? {} : { connection: 'close' }),
      },
      agent: agent ?? false,
      lookup: pinnedLookup(addresses),
      rejectUnauthorized: true,
    };
    try {
      request = target.protocol === 'https:' ? https.request(options) : http.request(options);
    } catch (error) {
      return settle(failed('internal', `could not start the request (${classifyError(error)})`));
    }
    request.on('error', (error) => {
      if (onResponseAbort) return onResponseAbort();
      const code = (error as NodeJS.ErrnoException).code;
      if (agent && request?.reusedSocket && code && STALE_SOCKET_CODES.has(code) && !settled && !signal.aborted) {
        settled = true;
        signal.removeEventListener('abort', onAbort);
        request.destroy();
        resolve(postForm(target, body, addresses, signal, undefined, extraHeaders));
        return;
      }
      const errorClass = classifyError(error);
      settle(failed(errorClass, code ? `${errorClass} failure (${code})` : `${errorClass} failure`));
    });
    request.on('response', (response: IncomingMessage) => readResponse(response));
    request.end(body);

    function readResponse(response: IncomingMessage): void {
      const status = response.statusCode ?? 0;
      const kept: Buffer[] = [];
      let keptBytes = 0;
      const finish = (end: BodyEnd): void => {
        reusable = agent !== undefined && end === 'complete';
        settle(judgeResponse(status, Buffer.concat(kept, keptBytes), end));
        if (!reusable) response.destroy();
      };
      onResponseAbort = () => finish(signal.aborted ? 'timeout' : 'aborted');
      response.on('data', (chunk: Buffer) => {
        const room = MAX_BODY_BYTES - keptBytes;
        if (chunk.length > room) {
          kept.push(chunk.subarray(0, room));
          keptBytes += room;
          return finish('over-limit');
        }
        kept.push(chunk);
        keptBytes += chunk.length;
      });
      response.on('end', () => finish('complete'));
      response.on('error', () => onResponseAbort?.());
      response.on('close', () => {
        if (!response.complete) onResponseAbort?.();
      });
    }
  });
}
