/**
 * PostgreSQL faults for tests and the chaos run (`npm run chaos`), limited to their own
 * connections: every pool under test sets an `application_name` of its own (a tag), and only
 * backends carrying that tag are ever terminated (other engineers' tests share the database).
 *
 * Also `startSilentProxy`: a TCP proxy in front of PostgreSQL that can make the connections it
 * holds silent (half-open), while connections opened afterwards pass.
 */
import { randomBytes } from 'node:crypto';
import net from 'node:net';
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
export interface SilentProxy {
  /** The proxy's address as a connection URL (the target's URL with host and port replaced). */
  readonly url: string;
  /** Connections accepted so far. */
  readonly accepted: number;
  /** Make every connection held now silent; returns how many. */
  silenceHeld(): number;
  close(): Promise<void>;
}

export async function startSilentProxy(targetUrl: string): Promise<SilentProxy> {
  const target = new URL(targetUrl);
  const pairs = new Set<{ client: net.Socket; upstream: net.Socket; silent: boolean }>();
  let accepted = 0;
  const server = net.createServer((client) => {
    accepted += 1;
    const upstream = net.connect(Number(target.port || 5432), target.hostname);
    const pair = { client, upstream, silent: false };
    pairs.add(pair);
    const forward = (from: net.Socket, to: net.Socket) =>
      from.on('data', (chunk) => {
        if (!pair.silent) to.write(chunk);
      });
    forward(client, upstream);
    forward(upstream, client);
    const end = () => {
      pairs.delete(pair);
      client.destroy();
      upstream.destroy();
    };
    // A silent pair never passes an end on either: the other side must find out by itself.
    client.on('close', () => (pair.silent ? undefined : end()));
    upstream.on('close', () => (pair.silent ? undefined : end()));
    client.on('error', () => {});
    upstream.on('error', () => {});
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as net.AddressInfo;
  const url = new URL(targetUrl);
  url.hostname = '127.0.0.1';
  url.port = String(port);
  return {
    url: url.toString(),
    get accepted() {
      return accepted;
    },
    silenceHeld() {
      let count = 0;
      for (const pair of pairs) {
        if (!pair.silent) count += 1;
        pair.silent = true;
      }
      return count;
    },
    async close() {
      for (const pair of pairs) {
        pair.client.destroy();
        pair.upstream.destroy();
      }
      pairs.clear();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
