/** Types of `loopback-guard.mjs` (plain JavaScript so that child processes can preload it without tsx). */
import type { LookupFunction } from 'node:net';

export declare const NON_LOOPBACK_CODE: 'ETESTNONLOOPBACK';

/** True for 127.0.0.0/8 and ::1, the only places a test may connect to. */
export declare function isLoopbackAddress(address: unknown): boolean;

/** Wrap a `dns.lookup`-shaped function so that an answer outside loopback becomes an error. */
export declare function loopbackOnly(lookup: LookupFunction): LookupFunction;

export interface LoopbackGuardRecord {
  readonly installed: boolean;
  /** Every connection attempt of this process since the guard was installed. */
  readonly attempts: Array<{ readonly address: string; readonly port: number }>;
  /** Every literal address or lookup answer the guard refused. */
  readonly refused: Array<{ readonly host: string; readonly address: string }>;
}

/** Install the guard in this process (idempotent); returns the live record. */
export declare function installLoopbackGuard(): LoopbackGuardRecord;
