/**
 * How long a worker's claim on a notification lasts. A lease must outlive the attempt it covers:
 * one that ended mid-attempt would let another worker deliver the same notification at the same
 * time. So it is the attempt's timeout plus a margin for recording the attempt (a SQLite write may
 * wait out a 5 s busy timeout), event-loop stalls and clock skew between processes.
 */
import { DEFAULT_DELIVERY_TIMEOUT_MS } from './delivery/index.ts';

export const DEFAULT_LEASE_MS = 60_000;
export const LEASE_MARGIN_MS = 10_000;

/** The shortest lease allowed for an attempt timeout (default timeout when not given). */
export function minimumLeaseMs(timeoutMs: number = DEFAULT_DELIVERY_TIMEOUT_MS): number {
  return timeoutMs + LEASE_MARGIN_MS;
}

/** The lease asked for, else the default, stretched to cover a long attempt timeout. */
export function resolveLeaseMs(leaseMs: number | undefined, timeoutMs: number | undefined): number {
  return leaseMs ?? Math.max(DEFAULT_LEASE_MS, minimumLeaseMs(timeoutMs));
}

/** Why a lease is too short for the timeout, or undefined when it is long enough. */
export function leaseTooShort(leaseMs: number, timeoutMs: number | undefined): string | undefined {
  const minimum = minimumLeaseMs(timeoutMs);
  if (leaseMs >= minimum) return undefined;
  const timeout = timeoutMs === undefined ? `the default timeoutMs (${DEFAULT_DELIVERY_TIMEOUT_MS})` : `timeoutMs (${timeoutMs})`;
  return `must be at least ${timeout} + ${LEASE_MARGIN_MS} ms, i.e. ${minimum}, so no lease ends while its attempt runs`;
}
