/**
 * The SQLite store holds customers' names, e-mail addresses and phone numbers: its folder is
 * created 0700 and its files 0600, whoever comes first (the store opens before the CLI's key code
 * in some commands, and SQLite itself would create files 0644 under the usual umask).
 *
 * The database file is created 0600 before SQLite opens it, because SQLite gives its `-wal` and
 * `-shm` files the mode of the main file. A file left wider by an older version is tightened; a
 * folder that already exists is left as it is (it may be a shared one the operator chose).
 */
import { chmodSync, closeSync, mkdirSync, openSync, statSync } from 'node:fs';
import { dirname } from 'node:path';

const PRIVATE_DIR = 0o700;
const PRIVATE_FILE = 0o600;
const SQLITE_COMPANIONS = ['', '-wal', '-shm', '-journal'];

function tighten(file: string): void {
  let mode: number;
  try {
    mode = statSync(file).mode & 0o777;
  } catch {
    return; // not there (yet)
  }
  if ((mode & 0o077) !== 0) chmodSync(file, mode & PRIVATE_FILE);
}

/** Prepare the folder and file of an SQLite database before it is opened. */
export function preparePrivateSqliteFile(file: string): void {
  mkdirSync(dirname(file), { recursive: true, mode: PRIVATE_DIR });
  try {
    closeSync(openSync(file, 'wx', PRIVATE_FILE));
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
  }
  for (const suffix of SQLITE_COMPANIONS) tighten(`${file}${suffix}`);
}
