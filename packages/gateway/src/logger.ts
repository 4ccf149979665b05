/**
 * Structured logs (pino). Keys and signatures never reach a log line: they are redacted wherever
 * they appear in a logged object, and request bodies are never logged at all.
 */
import { pino, type DestinationStream, type Logger } from 'pino';
import pinoPretty from 'pino-pretty';

export const REDACTED_PATHS: readonly string[] = [
  'sign',
  'platSign',
  'privateKey',
  'platformPrivateKey',
  'publicKey',
  '*.sign',
  '*.platSign',
  '*.privateKey',
  '*.platformPrivateKey',
  '*.fields.platSign',
  'req.headers.authorization',
  'req.headers.cookie',
  'headers.authorization',
  'headers.cookie',
];

/** The paths of `REDACTED_PATHS` that can match in a flat entry (no nested objects): its top-level names. */
const FLAT_REDACTED_PATHS = REDACTED_PATHS.filter((path) => !path.includes('.'));

/** Log lines wait in memory until this many bytes (about 15 request lines) or LOG_FLUSH_MS have passed. */
const LOG_BATCH_BYTES = 4096;
const LOG_FLUSH_MS = 200;

const flatEntryLoggers = new WeakMap<Logger, Logger>();

/**
 * The logger to write flat entries (values only strings, numbers, booleans or null) through: for
 * one of ours, a child redacting only the top-level names, which is all `REDACTED_PATHS` can match
 * in such an entry, so its lines are the very lines the logger writes; without pino's wildcard
 * redaction, which runs on every value of every line (issue 24: 2/3 of a request line's cost).
 * It logs at every level: the caller asks `logger.isLevelEnabled` first. Any other logger is
 * returned as it is (its own redaction stays whole).
 */
export function flatEntryLogger(logger: Logger): Logger {
  return flatEntryLoggers.get(logger) ?? logger;
}

/**
 * The gateway's logger: JSON lines to stdout (or `destination`), redacting keys and signatures;
 * with `pretty`, human lines to stdout instead (the CLI's choice when stdout is a terminal).
 */
export function createLogger(options: { level?: string; destination?: DestinationStream; pretty?: boolean } = {}): Logger {
  const settings = {
    name: 'tombolbayar-gateway',
    level: options.level ?? process.env.LOG_LEVEL ?? 'info',
    redact: { paths: [...REDACTED_PATHS], censor: '[redacted]' },
  };
  // stdout written asynchronously: a request never waits for its log line's write(2). Lines go out
  // in batches, once LOG_BATCH_BYTES wait or every LOG_FLUSH_MS: each write is a hand-off to
  // libuv's thread pool and back, which cost more than the line itself when lines came one at a
  // time (issue 24). Lines still buffered are flushed when the process exits (pino's exit hook).
  const logger =
    options.pretty && !options.destination
      ? // Synchronous and in this thread: a line is on the screen before the process can exit.
        pino(settings, pinoPretty({ destination: 1, sync: true, ignore: 'pid,hostname,name', translateTime: 'SYS:HH:MM:ss.l' }))
      : pino(settings, options.destination ?? pino.destination({ dest: 1, sync: false, minLength: LOG_BATCH_BYTES, periodicFlush: LOG_FLUSH_MS }));
  flatEntryLoggers.set(logger, logger.child({}, { level: 'trace', redact: { paths: FLAT_REDACTED_PATHS, censor: settings.redact.censor } }));
  return logger;
}

/** The logger to use for an option value: a given one, none (`false`), or our default. */
export function resolveLogger(option: Logger | false | undefined): Logger {
  if (option === false) return pino({ level: 'silent' });
  return option ?? createLogger();
}
