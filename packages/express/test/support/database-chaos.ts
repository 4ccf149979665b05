/**
 * PostgreSQL faults for tests, limited to this test's own connections: every pool under test sets
 * an `application_name` of its own (a tag), and only backends carrying that tag are ever
 * terminated (other engineers' tests share the database).
 */
import { randomBytes } from 'node:crypto';
import pg from 'pg';

/** A fresh tag, and a connection URL that sets it as `application_name`. */
export function taggedUrl(url: string, prefix = 'tb_chaos'): { tag: string; url: string } {
  const tag = `${prefix}_${randomBytes(5).toString('hex')}`;
  const tagged = new URL(url);
  tagged.searchParams.set('application_name', tag);
  return { tag, url: tagged.toString() };
}

export interface BackendKiller {
  /** Backends terminated so far. */
  readonly terminated: number;
  /** Terminate every backend of the tag now; returns how many. */
  killNow(): Promise<number>;
  /** Terminate them every `everyMs` for `forMs`; resolves when done. */
  run(everyMs: number, forMs: number): Promise<void>;
  close(): Promise<void>;
}

export async function backendKiller(url: string, tag: string): Promise<BackendKiller> {
  // Its own application_name, so it never terminates itself.
  const client = new pg.Client({ connectionString: url, application_name: `${tag}_killer` });
  await client.connect();
  let terminated = 0;
  const killNow = async (): Promise<number> => {
    const result = await client.query<{ ended: boolean }>(
      'select pg_terminate_backend(pid) as ended from pg_stat_activity where application_name = $1 and pid <> pg_backend_pid()',
      [tag],
    );
    const ended = result.rows.filter((row) => row.ended).length;
    terminated += ended;
    return ended;
  };
  return {
    get terminated() {
      return terminated;
    },
    killNow,
    async run(everyMs, forMs) {
      const until = Date.now() + forMs;
      while (Date.now() < until) {
        await killNow();
        await new Promise((resolve) => setTimeout(resolve, everyMs));
      }
    },
    close: () => client.end(),
  };
}
