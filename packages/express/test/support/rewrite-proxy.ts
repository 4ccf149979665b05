/**
 * An HTTP proxy in front of the real gateway that tampers with its answers the way something on
 * the path could (a misbehaving proxy, a WAF, an attacker): the gateway still does the work and
 * writes the answer; the proxy only rewrites what comes back, as `rewrite` says.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';

export interface GatewayAnswer {
  readonly status: number;
  readonly fields: Record<string, unknown>;
}

/** Returns the answer to send instead; `undefined` passes the gateway's own answer through. */
export type Rewrite = (answer: GatewayAnswer, path: string) => GatewayAnswer | undefined;

export interface RewriteProxy {
  readonly url: string;
  rewrite: Rewrite | undefined;
  close(): Promise<void>;
}

/** Drop `platSign` from every answer that is not a SUCCESS: an unsigned FAIL, NOTEXIST, UNKNOWN... */
export const stripSignatureFromFailures: Rewrite = (answer) => {
  if (answer.fields.platRespCode === 'SUCCESS') return undefined;
  const { platSign: _removed, ...unsigned } = answer.fields;
  return { status: answer.status, fields: unsigned };
};

export async function startRewriteProxy(target: string): Promise<RewriteProxy> {
  const state: { rewrite: Rewrite | undefined } = { rewrite: undefined };
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      void (async () => {
        try {
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
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
