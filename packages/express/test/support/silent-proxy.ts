/**
 * A TCP proxy in front of PostgreSQL that can make the connections it holds silent: after
 * `silenceHeld()` those connections stay open but pass nothing either way (a half-open connection,
 * a peer that vanished without a FIN), while connections opened afterwards pass normally, as after
 * a failover. `kill -9`-free and local: it only listens on 127.0.0.1.
 */
import net from 'node:net';

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
