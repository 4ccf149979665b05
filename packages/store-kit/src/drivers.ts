/**
 * The database drivers, loaded only when the chosen engine needs them. `better-sqlite3` and `pg`
 * are optional peer dependencies of the packages that use this (Kysely's convention): a merchant on
 * PostgreSQL never compiles SQLite, and one on SQLite never installs `pg`. A missing driver is a
 * typed error that names the package to install, not a bare MODULE_NOT_FOUND.
 */
import { createRequire } from 'node:module';
import type BetterSqlite3 from 'better-sqlite3';
import type pg from 'pg';

export type DriverName = 'better-sqlite3' | 'pg';

const ENGINE_OF: Readonly<Record<DriverName, string>> = { 'better-sqlite3': 'SQLite', pg: 'PostgreSQL' };

export class DriverMissingError extends Error {
  override readonly name = 'DriverMissingError';
  constructor(
    readonly driver: DriverName,
    cause: unknown,
  ) {
    super(`The ${ENGINE_OF[driver]} store needs the "${driver}" package: run \`npm install ${driver}\``, { cause });
  }
}

// Loaded through require: the stores open synchronously, and both drivers are CommonJS.
const require = createRequire(import.meta.url);

function isMissing(error: unknown, driver: DriverName): boolean {
  const { code, message } = error as { code?: unknown; message?: unknown };
  return code === 'MODULE_NOT_FOUND' && typeof message === 'string' && message.includes(`'${driver}'`);
}

function load<T>(driver: DriverName): T {
  try {
    return require(driver) as T;
  } catch (error) {
    if (isMissing(error, driver)) throw new DriverMissingError(driver, error);
    throw error;
  }
}

/** The file a worker thread can `require` to load the same driver. */
export function resolveDriver(driver: DriverName): string {
  try {
    return require.resolve(driver);
  } catch (error) {
    if (isMissing(error, driver)) throw new DriverMissingError(driver, error);
    throw error;
  }
}

/** better-sqlite3's `Database` class. */
export function loadSqliteDriver(): typeof BetterSqlite3 {
  return load<typeof BetterSqlite3>('better-sqlite3');
}

/** The `pg` module (its `Pool` and `types`). */
export function loadPostgresDriver(): typeof pg {
  return load<typeof pg>('pg');
}
