/**
 * Helpers of the gateway's hostile suites (`hostile-*.test.ts`): the generic ones (raw HTTP client,
 * process watch, store probes, fast-check generators, case counter, leak scan) come from
 * `@tombolbayar/test-support/hostile`, shared with the plug-in's suites; what is the gateway's own is
 * here: its logger captured in memory, and the wording of its repeated-key refusal.
 */
import { Writable } from 'node:stream';
import type { Logger } from 'pino';
import { createLogger } from '../src/logger.ts';

export * from '@tombolbayar/test-support/hostile';

// ---------------------------------------------------------------------------------------------
// Logs

export interface CapturedLogger {
  readonly logger: Logger;
  readonly lines: string[];
}

/** The gateway's own logger (its redaction included) at debug level, writing into memory. */
export function captureLogger(): CapturedLogger {
  const lines: string[] = [];
  const destination = new Writable({
    write(chunk: Buffer, _encoding, done) {
      lines.push(chunk.toString('utf8'));
      done();
    },
  });
  return { logger: createLogger({ level: 'debug', destination }), lines };
}

/** The refusal of a JSON body that repeats a key (any key, named as sent). */
export const REPEATED_KEY_MESSAGE = /^body: must not repeat a key/;
