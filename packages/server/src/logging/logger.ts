/**
 * The plug-in's default logger, so a merchant's terminal says what went wrong without any wiring:
 * pino, human-readable when standard output is a terminal and `pino-pretty` is installed (an
 * optional peer: `@tombolbayar/express` brings it, a Hono or Next.js app need not), JSON lines
 * otherwise (for a log collector). Any pino-compatible logger can replace it (`logger` option), and `false` silences it.
 * Keys and signatures never reach a line: the events it logs carry none, and the paths that could
 * hold one are redacted anyway.
 */
import { createRequire } from 'node:module';
import { pino, type DestinationStream } from 'pino';

type PrettyFactory = (options: Record<string, unknown>) => DestinationStream;

/** `pino-pretty` when the app installed it; `undefined` otherwise (the lines stay JSON). */
function loadPretty(): PrettyFactory | undefined {
  try {
    const loaded = createRequire(import.meta.url)('pino-pretty') as PrettyFactory | { default: PrettyFactory };
    return typeof loaded === 'function' ? loaded : loaded.default;
  } catch {
    return undefined;
  }
}

/** The part of a pino logger the plug-in uses: pino, pino child loggers, or anything shaped alike. */
export interface LoggerLike {
  debug(fields: object, message: string): void;
  info(fields: object, message: string): void;
  warn(fields: object, message: string): void;
  error(fields: object, message: string): void;
}

export const REDACTED_PATHS: readonly string[] = ['sign', 'platSign', 'privateKey', '*.sign', '*.platSign', '*.privateKey', 'err.privateKey'];

export interface DefaultLoggerOptions {
  /** pino level; default `LOG_LEVEL` from the environment, else `info`. */
  readonly level?: string;
  /** Pretty lines (default: when standard output is a terminal). */
  readonly pretty?: boolean;
  /** Where lines go (default: standard output). */
  readonly destination?: DestinationStream;
}

/** pino, named `tombolbayar`, pretty in a terminal, JSON lines otherwise. */
export function defaultLogger(options: DefaultLoggerOptions = {}): LoggerLike {
  const settings = {
    name: 'tombolbayar',
    level: options.level ?? process.env.LOG_LEVEL ?? 'info',
    redact: { paths: [...REDACTED_PATHS], censor: '[redacted]' },
  };
  const pinoPretty = (options.pretty ?? process.stdout.isTTY === true) ? loadPretty() : undefined;
  if (pinoPretty) {
    // Synchronous and in this thread: a line is on the screen before the process can exit.
    return pino(settings, pinoPretty({ destination: options.destination ?? 1, sync: true, ignore: 'pid,hostname', translateTime: 'SYS:HH:MM:ss' }));
  }
  return pino(settings, options.destination ?? pino.destination({ dest: 1, sync: false }));
}

let shared: LoggerLike | undefined;

/** One default logger per process, made on first use: every router without a `logger` shares it. */
export function sharedDefaultLogger(): LoggerLike {
  return (shared ??= defaultLogger());
}

/** A logger that writes nothing: `logger: false`. */
export const SILENT_LOGGER: LoggerLike = Object.freeze({ debug() {}, info() {}, warn() {}, error() {} });

/** True for a value usable as a logger: an object with the four level methods. */
export function isLoggerLike(value: unknown): value is LoggerLike {
  if (typeof value !== 'object' || value === null) return false;
  const candidate = value as Record<string, unknown>;
  return ['debug', 'info', 'warn', 'error'].every((level) => typeof candidate[level] === 'function');
}
