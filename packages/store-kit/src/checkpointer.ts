/**
 * SQLite WAL checkpoints off the event loop. A checkpoint copies the WAL into the database file
 * and fsyncs it; left to itself SQLite runs one on the commit that takes the WAL past 1000 pages,
 * inside that commit, so every ~170th gateway order (about every 85th plug-in link, two commits
 * each) stalled the whole event loop for the fsync (about 20 ms on the benchmark machine: bench/),
 * and every request queued behind it waited as long.
 *
 * Instead the owner's connection turns automatic checkpoints off and a worker thread, with a
 * connection of its own, runs a PASSIVE checkpoint (never blocks a writer or a reader) every
 * `intervalMs`. Should the thread fail, automatic checkpoints are turned back on, so the WAL can
 * never grow without bound.
 */
import { Worker } from 'node:worker_threads';
import type BetterSqlite3 from 'better-sqlite3';
import { resolveDriver } from './drivers.ts';

export interface Checkpointer {
  /**
   * Copy the whole WAL into the database file and truncate the log to zero bytes (after an
   * erasure: no old page image stays in it). Runs on the thread, which waits (busy timeout) for
   * readers and writers, so the event loop never does; false when it could not finish (a reader
   * in another process held it back), and the next checkpoint copies the rest.
   */
  truncate(): Promise<boolean>;
  /** Stop the thread and close its connection (before the main connection closes). Idempotent. */
  stop(): Promise<void>;
}

export const CHECKPOINT_INTERVAL_MS = 500;

/** SQLite's default, restored when the thread is gone. */
const AUTOCHECKPOINT_PAGES = 1000;

// Plain CommonJS (an eval worker): it must not depend on the TypeScript loader of the process.
const WORKER_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
const Database = require(workerData.driver);
const db = new Database(workerData.file, { fileMustExist: true });
db.pragma('busy_timeout = 5000');
const checkpoint = () => {
  try { db.pragma('wal_checkpoint(PASSIVE)'); } catch { /* busy or closing: the next tick tries again */ }
};
const timer = setInterval(checkpoint, workerData.intervalMs);
parentPort.on('message', (message) => {
  if (message && message.truncate !== undefined) {
    let done = false;
    try { done = db.pragma('wal_checkpoint(TRUNCATE)')[0].busy === 0; } catch { /* busy: said as not done */ }
    parentPort.postMessage({ truncated: message.truncate, done });
    return;
  }
  clearInterval(timer);
  checkpoint();
  db.close();
  parentPort.close();
});
`;

/** Take over the checkpoints of `sqlite`'s database (a file in WAL mode). */
export function startCheckpointer(sqlite: BetterSqlite3.Database, file: string, intervalMs = CHECKPOINT_INTERVAL_MS): Checkpointer {
  const driver = resolveDriver('better-sqlite3');
  sqlite.pragma('wal_autocheckpoint = 0');
  const worker = new Worker(WORKER_SOURCE, {
    eval: true,
    workerData: { driver, file, intervalMs },
    // A timer and one statement: keep its heap small.
    resourceLimits: { maxOldGenerationSizeMb: 16, maxYoungGenerationSizeMb: 4 },
  });
  // Never keep the process alive on its own.
  worker.unref();
  const exited = new Promise<void>((resolve) => worker.once('exit', () => resolve()));
  let stopping = false;
  const restoreAutomatic = () => {
    if (stopping || !sqlite.open) return;
    sqlite.pragma(`wal_autocheckpoint = ${AUTOCHECKPOINT_PAGES}`);
  };
  worker.on('error', restoreAutomatic);
  worker.once('exit', restoreAutomatic);
  let stopped: Promise<void> | undefined;
  let asked = 0;
  const answers = new Map<number, (done: boolean) => void>();
  worker.on('message', (message: { truncated: number; done: boolean }) => {
    answers.get(message.truncated)?.(message.done);
    answers.delete(message.truncated);
  });
  worker.once('exit', () => {
    for (const answer of answers.values()) answer(false);
    answers.clear();
  });
  return {
    truncate: () => {
      if (stopping) return Promise.resolve(false);
      const id = (asked += 1);
      worker.ref(); // the answer is awaited: keep the thread (and the process) until it comes
      return new Promise<boolean>((resolve) => {
        answers.set(id, (done) => {
          if (answers.size <= 1 && !stopping) worker.unref();
          resolve(done);
        });
        worker.postMessage({ truncate: id });
      });
    },
    stop: () =>
      (stopped ??= (async () => {
        stopping = true;
        // Unref'd so it never keeps a process alive on its own; while stopping, wait for it (else a
        // process with nothing else to do exits with this promise pending).
        worker.ref();
        worker.postMessage('stop');
        await exited;
      })()),
  };
}
