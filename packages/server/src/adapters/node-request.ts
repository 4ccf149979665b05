/**
 * Node's `IncomingMessage` → the core's request (`CoreRequest`, what a Web `Request` offers the
 * core), and `Response` → `ServerResponse`: the Express adapter's two conversions, written against
 * `node:http` (the fields Express adds are read when present), so the adapter imports nothing of
 * Express at run time.
 *
 * The body is not read here: a route that needs it reads `body`, a stream that pulls from `req`
 * only when read, so a path that is not the plug-in's leaves the
 * body to the next handler, and the bytes reach `/notify` exactly as the client sent them.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { TLSSocket } from 'node:tls';
import type { ParsedBody } from '../http/body.ts';
import type { CoreRequest } from '../http/context.ts';
import type { Answer } from '../http/answer.ts';

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

/**
 * What an earlier parser left, when one consumed the body, with the raw bytes it kept (`req.rawBody`
 * from the parser's `verify` option: `express.json({ verify: (req, _res, buf) => { req.rawBody = buf } })`).
 */
export function parsedBodyOf(req: NodeRequest): ParsedBody | undefined {
  if (!bodyConsumed(req)) return undefined;
  const raw = (req as { rawBody?: unknown }).rawBody;
  return { value: req.body, ...(Buffer.isBuffer(raw) || typeof raw === 'string' ? { raw } : {}) };
}

const abortError = (): Error => Object.assign(new Error('the client went away before its body arrived'), { name: 'AbortError' });

/** The body of `req` as a stream read on demand; cancelling it drains the rest (so the answer can be sent). */
function bodyStream(req: IncomingMessage): ReadableStream<Uint8Array> {
  let listening = false;
  let settled = false;
  return new ReadableStream<Uint8Array>(
    {
      pull(controller) {
        if (!listening) {
          // Attached once, at the first read, and kept: an abort between two reads is not missed.
          listening = true;
          const finish = (act: () => void) => {
            if (settled) return;
            settled = true;
            act();
          };
          req.on('data', (chunk: Buffer) => {
            if (settled) return;
            controller.enqueue(new Uint8Array(chunk.buffer, chunk.byteOffset, chunk.byteLength));
            if ((controller.desiredSize ?? 0) <= 0) req.pause();
          });
          req.once('end', () => finish(() => controller.close()));
          const gone = () => finish(() => controller.error(abortError()));
          req.once('error', gone).once('aborted', gone).once('close', () => (req.readableEnded ? undefined : gone()));
          if (req.readableEnded) finish(() => controller.close());
          else if (req.destroyed) gone();
        }
        req.resume();
      },
      cancel() {
        settled = true;
        req.resume();
      },
    },
    { highWaterMark: 0 },
  );
}

/**
 * The whole body of `req` straight from Node's stream, or `undefined` past `max` bytes (the rest
 * is drained, so the answer can still be sent): the core's body reads use it (`CoreRequest.readBody`),
 * saving the Web stream of `bodyStream` and its promises on every request.
 */
function readNodeBody(req: IncomingMessage, max: number): Promise<Buffer | undefined> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const onData = (chunk: Buffer) => {
      size += chunk.byteLength;
      if (size <= max) chunks.push(chunk);
      else settle(() => resolve(undefined)); // flowing with no listener: the rest is read and dropped
    };
    const onEnd = () => settle(() => resolve(chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks, size)));
    const onGone = () => settle(() => reject(abortError()));
    const onClose = () => (req.readableEnded ? undefined : onGone());
    const settle = (act: () => void) => {
      req.off('data', onData).off('end', onEnd).off('error', onGone).off('aborted', onGone).off('close', onClose);
      act();
    };
    if (req.readableEnded) return resolve(Buffer.alloc(0));
    if (req.destroyed) return reject(abortError());
    req.on('data', onData).once('end', onEnd).once('error', onGone).once('aborted', onGone).once('close', onClose);
    req.resume();
  });
}

/** `req.headers` read as `Headers.get` reads: a repeated field's values joined by `, `, `null` when absent. */
function headersOf(req: IncomingMessage): CoreRequest['headers'] {
  const value = (name: string): string | undefined => {
    const found = req.headers[name.toLowerCase()];
    return Array.isArray(found) ? found.join(', ') : found;
  };
  return { get: (name) => value(name) ?? null, has: (name) => value(name) !== undefined };
}

/** `.`, `..` and their percent-encoded spellings: path segments a URL parser would remove. */
const DOT_SEGMENT = /(?<=\/)(?:\.|%2e){1,2}(?=\/|$)/gi;

/**
 * The path as Express routes it, safe from what a URL parser would change in it: a dot segment
 * (`/orders/%2e%2e`) would be resolved away and a backslash turned into a slash. Those are escaped
 * once more, so they reach the routes as a segment naming nothing (an unknown order), as they did
 * under Express's router.
 */
function literalPath(path: string): string {
  return path.replace(/\\/g, '%5C').replace(DOT_SEGMENT, (dots) => dots.replace(/\.|%2e/gi, '%252e'));
}

/** The full URL the client sent (mount prefix included); a `Host` that is no host name is read as `localhost`. */
function urlOf(req: NodeRequest): string {
  const protocol = req.protocol ?? ((req.socket as TLSSocket).encrypted ? 'https' : 'http');
  const raw = req.originalUrl ?? req.url ?? '/';
  const query = raw.indexOf('?');
  const path = query === -1 ? literalPath(raw) : literalPath(raw.slice(0, query)) + raw.slice(query);
  const host = req.headers.host;
  const full = `${protocol}://${host ?? 'localhost'}${path.startsWith('/') ? path : `/${path}`}`;
  return host !== undefined && URL.canParse(full) ? full : `${protocol}://localhost${path.startsWith('/') ? path : `/${path}`}`;
}

/** Never aborted: the adapter checks the socket itself before asking the core. */
const NOT_ABORTED: CoreRequest['signal'] = Object.freeze({ aborted: false });

/**
 * `req` as the core reads a request (`CoreRequest`): method, full URL, headers, and the body, read
 * whole from Node's stream (`readBody`) or as a stream made at the first read (none when an
 * earlier parser consumed it). A view rather than an
 * undici `Request`, whose construction (URL, `Headers` copy, `AbortSignal`) cost more CPU per
 * request than all the rest of the adapter.
 */
export function toRequest(req: NodeRequest): CoreRequest {
  const method = req.method ?? 'GET';
  const hasBody = method !== 'GET' && method !== 'HEAD' && !bodyConsumed(req);
  let body: ReadableStream<Uint8Array> | null | undefined;
  return {
    method,
    url: urlOf(req),
    headers: headersOf(req),
    get body() {
      return (body ??= hasBody ? bodyStream(req) : null);
    },
    ...(hasBody ? { readBody: (max: number) => readNodeBody(req, max) } : {}),
    signal: NOT_ABORTED,
  };
}

/**
 * Write the core's answer to `res`: status, headers, body. A client that has gone is not written
 * to; `clientGone` (a client gone before it was worked on) ends the connection. A body the route
 * did not read is drained, so the connection can carry the answer.
 */
export function writeAnswer(result: Answer, req: IncomingMessage, res: ServerResponse): void {
  if (result.clientGone) {
    res.destroy();
    return;
  }
  if (!req.complete && !req.destroyed) req.resume();
  if (res.destroyed || res.writableEnded || res.headersSent) return;
  res.statusCode = result.status;
  for (const [name, value] of result.headers) res.setHeader(name, value);
  res.end(result.body ?? undefined);
}
