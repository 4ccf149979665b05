/**
 * Node's `IncomingMessage` → Web `Request`, and `Response` → `ServerResponse`: the Express
 * adapter's two conversions, written against `node:http` (the fields Express adds are read when
 * present), so the adapter imports nothing of Express at run time.
 *
 * The body is not read here: the `Request` gets a stream that pulls from `req` only when a route
 * reads it (`highWaterMark: 0`), so a path that is not the plug-in's leaves the body to the next
 * handler, and the body's bytes reach `/notify` exactly as the client sent them.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { TLSSocket } from 'node:tls';
import type { ParsedBody } from '../fetch/body.ts';

/** The fields Express adds to `IncomingMessage` that the adapter reads. */
export interface NodeRequest extends IncomingMessage {
  readonly originalUrl?: string;
  readonly baseUrl?: string;
  readonly ip?: string;
  readonly protocol?: string;
  readonly body?: unknown;
}

/** True when something before us already read the request stream (a global body parser). */
export function bodyConsumed(req: NodeRequest): boolean {
  return req.readableEnded || (req as { _body?: boolean })._body === true || (req.complete && !req.readable);
}

/** What an earlier parser left, when one consumed the body. */
export function parsedBodyOf(req: NodeRequest): ParsedBody | undefined {
  return bodyConsumed(req) ? { value: req.body } : undefined;
}

const abortError = (): Error => Object.assign(new Error('the client went away before its body arrived'), { name: 'AbortError' });

/** The body of `req` as a stream read on demand; cancelling it drains the rest (so the answer can be sent). */
function bodyStream(req: IncomingMessage): ReadableStream<Uint8Array> {
  return new ReadableStream<Uint8Array>(
    {
      pull(controller) {
        if (req.readableEnded) {
          controller.close();
          return;
        }
        if (req.destroyed) {
          controller.error(abortError());
          return;
        }
        return new Promise<void>((resolve) => {
          const settle = (act: () => void) => {
            req.off('data', onData).off('end', onEnd).off('error', onGone).off('close', onGone);
            act();
            resolve();
          };
          const onData = (chunk: Buffer) => {
            req.pause();
            settle(() => controller.enqueue(new Uint8Array(chunk.buffer, chunk.byteOffset, chunk.byteLength)));
          };
          const onEnd = () => settle(() => controller.close());
          const onGone = () => settle(() => (req.complete && req.readableEnded ? controller.close() : controller.error(abortError())));
          req.on('data', onData).once('end', onEnd).once('error', onGone).once('close', onGone);
          req.resume();
        });
      },
      cancel() {
        req.resume();
      },
    },
    { highWaterMark: 0 },
  );
}

/** `req.headers` as `Headers`, repeated fields kept (from `rawHeaders`); a value `Headers` refuses is left out. */
function headersOf(req: IncomingMessage): Headers {
  const headers = new Headers();
  const raw = req.rawHeaders;
  for (let index = 0; index < raw.length; index += 2) {
    try {
      headers.append(raw[index]!, raw[index + 1]!);
    } catch {
      // A field name or value no fetch implementation can carry: nothing of ours reads it.
    }
  }
  return headers;
}

/** The full URL the client sent (mount prefix included); a `Host` that is no host name is read as `localhost`. */
function urlOf(req: NodeRequest): string {
  const protocol = req.protocol ?? ((req.socket as TLSSocket).encrypted ? 'https' : 'http');
  const path = req.originalUrl ?? req.url ?? '/';
  const host = req.headers.host;
  const full = `${protocol}://${host ?? 'localhost'}${path.startsWith('/') ? path : `/${path}`}`;
  return host !== undefined && URL.canParse(full) ? full : `${protocol}://localhost${path.startsWith('/') ? path : `/${path}`}`;
}

/** `req` as a Web `Request`; the body only when no earlier parser consumed it. */
export function toRequest(req: NodeRequest): Request {
  const method = req.method ?? 'GET';
  const hasBody = method !== 'GET' && method !== 'HEAD' && !bodyConsumed(req);
  return new Request(urlOf(req), {
    method,
    headers: headersOf(req),
    ...(hasBody ? { body: bodyStream(req), duplex: 'half' } : {}),
  } as RequestInit);
}

/**
 * Write `response` to `res`: status, headers (every `Set-Cookie` on its own), body. A client that
 * has gone is not written to; `Response.error()` (a client gone before it was worked on) ends the
 * connection. A body the route did not read is drained, so the connection can carry the answer.
 */
export async function writeResponse(response: Response, req: IncomingMessage, res: ServerResponse): Promise<void> {
  if (response.type === 'error') {
    res.destroy();
    return;
  }
  const body = response.body ? Buffer.from(await response.arrayBuffer()) : undefined;
  if (!req.complete && !req.destroyed) req.resume();
  if (res.destroyed || res.writableEnded || res.headersSent) return;
  res.statusCode = response.status;
  for (const [name, value] of response.headers) {
    if (name === 'set-cookie') continue;
    res.setHeader(name, value);
  }
  const cookies = response.headers.getSetCookie();
  if (cookies.length > 0) res.setHeader('Set-Cookie', cookies);
  res.end(body);
}
