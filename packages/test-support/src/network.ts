/**
 * Tests never leave the machine (issue 12): every connection a test makes goes to 127.0.0.0/8 or
 * ::1, and a fake DNS answer that names any other address is refused before a socket opens.
 * Shared by the gateway's and the plug-in's suites:
 *
 * - `loopbackOnlyLookup(zone)`: a fake `dns.lookup` for code that takes one (the gateway's
 *   `notifications.lookup`). It never asks real DNS: IP literals answer as themselves, names from
 *   the zone (or `localhost`), anything else is ENOTFOUND; and any answer outside loopback, from
 *   the zone or from an inner fake resolver, is refused with `ETESTNONLOOPBACK`.
 * - `watchConnections()`: installs the process-wide guard (`loopback-guard.mjs`: no socket can
 *   connect beyond loopback, whatever asks) and reports the connection attempts made since.
 */
import type { LookupAddress } from 'node:dns';
import { createServer, isIP, type AddressInfo, type LookupFunction } from 'node:net';
import { installLoopbackGuard, isLoopbackAddress, loopbackOnly, NON_LOOPBACK_CODE } from '../lib/loopback-guard.mjs';

export { installLoopbackGuard, isLoopbackAddress, NON_LOOPBACK_CODE };

/** Fake DNS: host name -> the addresses it resolves to. */
export type FakeZone = Readonly<Record<string, readonly string[]>>;

export type FakeLookup = LookupFunction & {
  /** Every host name (or literal) asked, in order. */
  readonly asked: string[];
};

const LOCALHOST = ['127.0.0.1', '::1'];

function zoneLookup(zone: FakeZone): LookupFunction {
  return (hostname, options, callback) => {
    const answers = isIP(hostname) !== 0 ? [hostname] : (zone[hostname] ?? (hostname === 'localhost' ? LOCALHOST : undefined));
    process.nextTick(() => {
      if (!answers || answers.length === 0) {
        const error: NodeJS.ErrnoException = new Error(`getaddrinfo ENOTFOUND ${hostname}`);
        error.code = 'ENOTFOUND';
        return callback(error, options.all ? [] : '', 0);
      }
      const all = answers.map((address): LookupAddress => ({ address, family: isIP(address) }));
      if (options.all) callback(null, all);
      else callback(null, all[0]!.address, all[0]!.family);
    });
  };
}

/**
 * A lookup for the code under test that can only ever name loopback addresses. `zone` is a fake
 * zone, or an inner fake resolver whose answers are checked the same way.
 */
export function loopbackOnlyLookup(zone: FakeZone | LookupFunction = {}): FakeLookup {
  const inner = typeof zone === 'function' ? zone : zoneLookup(zone);
  const guarded = loopbackOnly(inner);
  const asked: string[] = [];
  const lookup = ((hostname: string, options: Parameters<LookupFunction>[1], callback: Parameters<LookupFunction>[2]) => {
    asked.push(hostname);
    guarded(hostname, options, callback);
  }) as FakeLookup;
  Object.defineProperty(lookup, 'asked', { value: asked });
  return lookup;
}

export interface ConnectionWatch {
  /** Connection attempts (address and port) since the watch started. */
  attempts(): ReadonlyArray<{ readonly address: string; readonly port: number }>;
  /** Attempts to anything outside loopback since the watch started (the guard refuses them: always empty). */
  outsideLoopback(): ReadonlyArray<{ readonly address: string; readonly port: number }>;
  /** What the guard refused since the watch started. */
  refused(): ReadonlyArray<{ readonly host: string; readonly address: string }>;
}

/** Install the process-wide guard (idempotent) and watch the connections made from now on. */
export function watchConnections(): ConnectionWatch {
  const record = installLoopbackGuard();
  const attemptsFrom = record.attempts.length;
  const refusedFrom = record.refused.length;
  const attempts = () => record.attempts.slice(attemptsFrom);
  return {
    attempts,
    outsideLoopback: () => attempts().filter((attempt) => !isLoopbackAddress(attempt.address)),
    refused: () => record.refused.slice(refusedFrom),
  };
}

/**
 * A port nothing listens on right now, on 127.0.0.1: for a child process or server that must be
 * told its port before it starts (it binds it itself; a race for it fails loudly, never silently).
 */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer().listen(0, '127.0.0.1', () => {
      const { port } = server.address() as AddressInfo;
      server.close(() => resolve(port));
    });
    server.once('error', reject);
  });
}
