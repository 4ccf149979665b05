/**
 * The gateway's HTTP server: Node's own timeouts set so an idle or slow client costs nothing others
 * need. A request must send its headers within `headersTimeoutMs` and the whole request (body
 * included) within `requestTimeoutMs`, or Node answers `408` and closes the connection; an idle
 * keep-alive connection is closed after `keepAliveTimeoutMs`. Node checks these every second here
 * (its default, 30 s, would let a slow body hold its connection up to 30 s past the deadline).
 */
import http from 'node:http';
import type { RequestListener } from 'node:http';

export interface HttpTimeouts {
  readonly headersTimeoutMs: number;
  readonly requestTimeoutMs: number;
  readonly keepAliveTimeoutMs: number;
}

/** Defaults: a signed API request is a few hundred bytes; a client that needs 10 s to send it is not one to wait for. */
export const DEFAULT_HTTP_TIMEOUTS: HttpTimeouts = { headersTimeoutMs: 10_000, requestTimeoutMs: 10_000, keepAliveTimeoutMs: 5_000 };

const CHECK_INTERVAL_MS = 1_000;

export function createGatewayServer(app: RequestListener, timeouts: Partial<HttpTimeouts> = {}): http.Server {
  const { headersTimeoutMs, requestTimeoutMs, keepAliveTimeoutMs } = { ...DEFAULT_HTTP_TIMEOUTS, ...timeouts };
  return http.createServer(
    {
      // Node requires headersTimeout <= requestTimeout.
      headersTimeout: Math.min(headersTimeoutMs, requestTimeoutMs),
      requestTimeout: requestTimeoutMs,
      keepAliveTimeout: keepAliveTimeoutMs,
      connectionsCheckingInterval: Math.min(CHECK_INTERVAL_MS, requestTimeoutMs),
    },
    app,
  );
}
