/**
 * Who may read a process's metrics (issue 34), the one rule of the gateway and the plug-in: a
 * loopback peer whose request came through no proxy (a reverse proxy on the same host makes every
 * public request look loopback, and says so in `Forwarded` / `X-Forwarded-For`), or the holder of
 * the metrics token (`Authorization: Bearer <token>`, compared in constant time). A wrong token is
 * refused even from loopback: a scraper sending one is misconfigured, and is told so.
 */
import { createHash, timingSafeEqual } from 'node:crypto';

/** Why a metrics request is refused. */
export type MetricsRefusal = 'wrong_token' | 'no_token_configured' | 'forwarded' | 'peer_unknown' | 'not_loopback';

/** What each refusal tells the scraper (no secret in any of them). */
export const METRICS_REFUSALS: Readonly<Record<MetricsRefusal, string>> = {
  wrong_token: 'the bearer token is not the metrics token',
  no_token_configured: 'no metrics token is configured, so Authorization is not accepted',
  forwarded: 'the request came through a proxy (Forwarded or X-Forwarded-For): send Authorization: Bearer <metrics token>',
  peer_unknown: 'the peer address is unknown here: send Authorization: Bearer <metrics token>',
  not_loopback: 'the request is not from this machine: send Authorization: Bearer <metrics token>',
};

/** What the rule reads of a request. */
export interface MetricsRequestFacts {
  /** The `Authorization` header, if any. */
  readonly authorization: string | null | undefined;
  /** Whether a `Forwarded` or `X-Forwarded-For` header is present. */
  readonly forwarded: boolean;
  /** The socket's peer address (never a header's); undefined when the runtime gives none. */
  readonly peerAddress: string | undefined;
}

/** `127.0.0.0/8`, `::1`, and their IPv4-mapped IPv6 spelling. */
export function isLoopbackAddress(address: string | undefined): boolean {
  if (!address) return false;
  const v4 = address.toLowerCase().startsWith('::ffff:') ? address.slice(7) : address;
  return address === '::1' || /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(v4);
}

const digest = (value: string): Buffer => createHash('sha256').update(value, 'utf8').digest();

/**
 * The rule with its token fixed: `undefined` when the request may read the metrics, else why not.
 * Pure; the token is kept only as its digest.
 */
export function metricsAccess(token: string | undefined): (request: MetricsRequestFacts) => MetricsRefusal | undefined {
  const expected = token === undefined ? undefined : digest(token);
  return (request) => {
    if (request.authorization !== null && request.authorization !== undefined) {
      if (!expected) return 'no_token_configured';
      const given = /^Bearer\s+(\S+)\s*$/i.exec(request.authorization)?.[1];
      // Both digests are 32 bytes: the comparison takes the same time whatever was sent.
      return given !== undefined && timingSafeEqual(digest(given), expected) ? undefined : 'wrong_token';
    }
    if (request.forwarded) return 'forwarded';
    if (request.peerAddress === undefined) return 'peer_unknown';
    return isLoopbackAddress(request.peerAddress) ? undefined : 'not_loopback';
  };
}
