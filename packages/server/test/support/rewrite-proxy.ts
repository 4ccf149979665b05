/**
 * An HTTP proxy in front of the real gateway that tampers with its answers the way something on
 * the path could (a misbehaving proxy, a WAF, an attacker): the gateway still does the work and
 * writes the answer; the proxy only rewrites what comes back, as `rewrite` says. `hold` keeps a
 * request from reaching the gateway until the test lets it (to have others arrive meanwhile), and
 * `paths` lists every request it forwarded, so a test counts what the gateway really received.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';

export interface GatewayAnswer {
  readonly status: number;
  readonly fields: Record<string, unknown>;
}

/** Returns the answer to send instead; `undefined` passes the gateway's own answer through. */
export type Rewrite = (answer: GatewayAnswer, path: string) => GatewayAnswer | undefined;

/** Awaited before a request is forwarded; `undefined` forwards at once. */
export type Hold = (path: string) => Promise<void> | undefined;

export interface RewriteProxy {
  readonly url: string;
  rewrite: Rewrite | undefined;
  hold: Hold | undefined;
  /** The path of every request received, in order of arrival. */
  readonly paths: string[];
  close(): Promise<void>;
}

/** Drop `platSign` from every answer that is not a SUCCESS: an unsigned FAIL, NOTEXIST, UNKNOWN... */
export const stripSignatureFromFailures: Rewrite = (answer) => {
  if (answer.fields.platRespCode === 'SUCCESS') return undefined;
  const { platSign: _removed, ...unsigned } = answer.fields;
  return { status: answer.status, fields: unsigned };
};

export async function startRewriteProxy(target: string): Promise<RewriteProxy> {
  const state: { rewrite: Rewrite | undefined; hold: Hold | undefined } = { rewrite: undefined, hold: undefined };
  const paths: string[] = [];
  const server = http.createServer((req, res) => {
    paths.push(req.url ?? '/');
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      void (async () => {
        try {
          await state.hold?.(req.url ?? '/');
          const upstream = await fetch(`${target}${req.url ?? '/'}`, {
            method: req.method ?? 'POST',
            headers: { 'content-type': req.headers['content-type'] ?? 'application/json' },
            body: Buffer.concat(chunks),
          });
          const text = await upstream.text();
          let answer: GatewayAnswer = { status: upstream.status, fields: {} };
          try {
            answer = { status: upstream.status, fields: JSON.parse(text) as Record<string, unknown> };
          } catch {
            res.writeHead(upstream.status, { 'content-type': upstream.headers.get('content-type') ?? 'text/plain' }).end(text);
            return;
          }
          const replaced = state.rewrite?.(answer, req.url ?? '/') ?? answer;
          res.writeHead(replaced.status, { 'content-type': 'application/json' }).end(JSON.stringify(replaced.fields));
        } catch {
          res.writeHead(502).end();
        }
      })();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    get rewrite() {
      return state.rewrite;
    },
    set rewrite(value: Rewrite | undefined) {
      state.rewrite = value;
    },
    get hold() {
      return state.hold;
    },
    set hold(value: Hold | undefined) {
      state.hold = value;
    },
    paths,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
