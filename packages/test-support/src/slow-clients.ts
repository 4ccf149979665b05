/**
 * Clients that cost a server nothing it should pay for (issue 31): connections that open and send
 * nothing, and requests whose body never finishes (`Content-Length: 100`, the body `{`, then
 * silence), made with raw `net` sockets on loopback. Each comes from a loopback address of its
 * own choosing (127.0.0.2 and up, never the customer's 127.0.0.1), so what is tested is the
 * server's budget for slow bodies, not its per-client cap. Everything is bounded: a count given,
 * `close()` destroys every socket, and `untilClosed()` waits on the sockets' own state.
 */
import net from 'node:net';

export interface SlowClient {
  readonly socket: net.Socket;
  /** Everything the server sent back. */
  readonly received: () => string;
  /** True once the server closed (or reset) the connection. */
  readonly closed: () => boolean;
}

export interface SlowClients {
  readonly idle: readonly SlowClient[];
  readonly slow: readonly SlowClient[];
  /** Resolves once every slow-body connection was closed by the server; rejects after `timeoutMs`. */
  untilSlowClosed(timeoutMs: number): Promise<void>;
  close(): void;
}

export interface SlowClientsOptions {
  readonly port: number;
  readonly idle: number;
  readonly slow: number;
  /** The request line and headers of each slow request, without Content-Length (added: 100). */
  readonly slowRequest: string;
  /** Source addresses to spread the clients over: 127.0.0.2 ... 127.0.0.(1 + n). Default 10. */
  readonly addresses?: number;
}

function open(port: number, localAddress: string, first: string | undefined): Promise<SlowClient> {
  return new Promise((resolve, reject) => {
    let text = '';
    let closed = false;
    const socket = net.connect({ port, host: '127.0.0.1', localAddress });
    socket.setEncoding('latin1');
    socket.on('data', (chunk: string) => (text += chunk));
    socket.on('close', () => (closed = true));
    socket.on('error', () => {}); // a reset by the server is a close
    socket.once('connect', () => {
      if (first !== undefined) socket.write(first);
      resolve({ socket, received: () => text, closed: () => closed });
    });
    socket.once('error', reject);
  });
}

export async function openSlowClients(options: SlowClientsOptions): Promise<SlowClients> {
  const addresses = options.addresses ?? 10;
  const from = (index: number) => `127.0.0.${2 + (index % addresses)}`;
  const body = `${options.slowRequest.replace(/\r\n$/, '')}\r\nContent-Length: 100\r\n\r\n{`;
  const all: SlowClient[] = [];
  const opened = async (count: number, first: string | undefined): Promise<SlowClient[]> => {
    const clients = await Promise.all(Array.from({ length: count }, (_, index) => open(options.port, from(index), first)));
    all.push(...clients);
    return clients;
  };
  try {
    const idle = await opened(options.idle, undefined);
    const slow = await opened(options.slow, body);
    return {
      idle,
      slow,
      untilSlowClosed: (timeoutMs) =>
        new Promise<void>((resolve, reject) => {
          const deadline = setTimeout(() => reject(new Error(`${slow.filter((client) => !client.closed()).length} of ${slow.length} slow-body connections still open after ${timeoutMs} ms`)), timeoutMs);
          let left = slow.filter((client) => !client.closed()).length;
          const one = () => {
            left -= 1;
            if (left > 0) return;
            clearTimeout(deadline);
            resolve();
          };
          if (left === 0) one();
          for (const client of slow) if (!client.closed()) client.socket.once('close', one);
        }),
      close: () => {
        for (const client of all) client.socket.destroy();
      },
    };
  } catch (error) {
    for (const client of all) client.socket.destroy();
    throw error;
  }
}

/** How long `action` took, in ms, with its result. */
export async function timed<T>(action: () => Promise<T>): Promise<{ ms: number; value: T }> {
  const started = performance.now();
  const value = await action();
  return { ms: performance.now() - started, value };
}
