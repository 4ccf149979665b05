/**
 * The SQLite store holds customers' names, e-mail addresses and phone numbers: its folder is
 * created 0700 and its files 0600, whoever comes first (the store opens before the CLI's key code
 * in some commands, and SQLite itself would create files 0644 under the usual umask).
 *
 * The database file is created 0600 before SQLite opens it, because SQLite gives its `-wal` and
 * `-shm` files the mode of the main file. A file left wider by an older version is tightened.
 *
 * An existing folder is tightened to 0700 only when the caller owns it (`ownsFolder`: the
 * gateway's or the plug-in's own data directory, which an older version created 0755), never
 * otherwise: a database file the operator placed in a folder of their choosing (`/srv`, a shared
 * volume) leaves that folder as it is. Parent folders are never changed, only created (0700).
 */
import { chmodSync, closeSync, existsSync, mkdirSync, openSync, statSync } from 'node:fs';
import { dirname } from 'node:path';

const PRIVATE_DIR = 0o700;
const PRIVATE_FILE = 0o600;
const SQLITE_COMPANIONS = ['', '-wal', '-shm', '-journal'];

/** Take group and other permissions away (keeping the owner's); a missing path is left missing. */
function tighten(path: string, keep: number): void {
  let mode: number;
  try {
    mode = statSync(path).mode & 0o777;
  } catch {
    return; // not there (yet)
  }
  if ((mode & 0o077) !== 0) chmodSync(path, mode & keep);
}

/** Create a private folder (0700, and its missing parents), or tighten an existing one the caller owns. */
export function preparePrivateFolder(folder: string, options: { readonly ownsFolder: boolean }): void {
  mkdirSync(folder, { recursive: true, mode: PRIVATE_DIR });
  if (options.ownsFolder) tighten(folder, PRIVATE_DIR);
}

/**
 * Prepare the folder and file of an SQLite database before it is opened. `ownsFolder`: the file's
 * folder is the caller's own data directory, to be tightened to 0700 if it already exists wider.
 */
export function preparePrivateSqliteFile(file: string, options: { readonly ownsFolder?: boolean } = {}): void {
  preparePrivateFolder(dirname(file), { ownsFolder: options.ownsFolder ?? false });
  try {
    closeSync(openSync(file, 'wx', PRIVATE_FILE));
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
  }
  for (const suffix of SQLITE_COMPANIONS) tighten(`${file}${suffix}`, PRIVATE_FILE);
}

/**
 * A default data path that was renamed: the current one, unless only the one an earlier version
 * used exists (then that one, for one version, and said once in the process's warnings with what
 * to move). Never moved here: another process of the earlier version may have it open.
 */
export function currentOrLegacyPath(current: string, legacy: string, what: string): string {
  if (existsSync(current) || !existsSync(legacy)) return current;
  process.emitWarning(`${what} is still read from ${legacy}, where an earlier version kept it; stop every process using it and move it to ${current} (this version is the last to look in the old place)`, { code: 'TOMBOLBAYAR_OLD_DATA_PATH' });
  return legacy;
}
