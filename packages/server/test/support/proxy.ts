/**
 * A TCP proxy in front of the real gateway, to make it down, slow or silent on demand. It forwards
 * bytes unchanged (the gateway still answers every request it receives); it only decides whether
 * and when they pass. Never answers anything itself.
 */
import net from 'node:net';

export type ProxyMode =
  /** Forward both ways. */
  | 'pass'
  /** Forward the request, hold back the gateway's answer for `delayMs`. */
  | 'slow'
  /** Accept the connection, swallow the request, answer nothing. */
  | 'stall'
  /**
   * Forward the request to the gateway, then cut the connection when its answer starts to come
   * back (so the gateway certainly processed the request), passing none of it on.
   */
  | 'cut';

export interface FaultProxy {
  readonly url: string;
  mode: ProxyMode;
  delayMs: number;
  /** Requests (client data bursts) seen, per mode. */
  readonly seen: Record<ProxyMode, number>;
  /** Stop listening: connections are refused (ECONNREFUSED), as with a gateway that is down. */
  down(): Promise<void>;
  /** Listen again on the same port. */
  up(): Promise<void>;
  close(): Promise<void>;
}

export async function startProxy(target: string): Promise<FaultProxy> {
  const { hostname, port: targetPort } = new URL(target);
  const sockets = new Set<net.Socket>();
  const timers = new Set<NodeJS.Timeout>();
  const seen: Record<ProxyMode, number> = { pass: 0, slow: 0, stall: 0, cut: 0 };
  const state = { mode: 'pass' as ProxyMode, delayMs: 0 };

  const server = net.createServer((client) => {
    sockets.add(client);
    const upstream = net.connect(Number(targetPort), hostname);
    sockets.add(upstream);
    const closeBoth = () => {
      client.destroy();
      upstream.destroy();
    };
    client.on('close', () => { sockets.delete(client); upstream.destroy(); });
    upstream.on('close', () => { sockets.delete(upstream); client.destroy(); });
    client.on('error', closeBoth);
    upstream.on('error', closeBoth);
    client.on('data', (chunk) => {
      const mode = state.mode;
      seen[mode] += 1;
      if (mode === 'stall') return;
      upstream.write(chunk);
    });
    upstream.on('data', (chunk) => {
      if (state.mode === 'cut') {
        // The gateway has answered, so it has done the work: drop the connection instead.
        closeBoth();
        return;
      }
      if (state.mode === 'slow' && state.delayMs > 0) {
        const timer = setTimeout(() => { timers.delete(timer); if (!client.destroyed) client.write(chunk); }, state.delayMs);
        timers.add(timer);
        return;
      }
      client.write(chunk);
    });
  });

  const listen = (port: number) =>
    new Promise<number>((resolve, reject) => {
      server.once('error', reject);
      server.listen(port, '127.0.0.1', () => {
        server.off('error', reject);
        resolve((server.address() as net.AddressInfo).port);
      });
    });
  const port = await listen(0);
  const stop = () =>
    new Promise<void>((resolve) => {
      for (const socket of sockets) socket.destroy();
      for (const timer of timers) clearTimeout(timer);
      timers.clear();
      if (!server.listening) return resolve();
      server.close(() => resolve());
    });

  return {
    url: `http://127.0.0.1:${port}`,
    get mode() { return state.mode; },
    set mode(value: ProxyMode) { state.mode = value; },
    get delayMs() { return state.delayMs; },
    set delayMs(value: number) { state.delayMs = value; },
    seen,
    down: stop,
    up: async () => { await listen(port); },
    close: stop,
  };
}
