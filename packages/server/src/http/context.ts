/**
 * What a route handler of the fetch core is given besides the Web `Request`: the facts only the
 * framework carrying it knows (the client's address, the mount prefix, a body an earlier parser
 * ate), the parsed URL and path parameters, and the edge headers (CORS, `Vary`, rate limits) that
 * every answer of the request carries, refusals included.
 */
import type { Answer, AnswerHeaders } from './answer.ts';

/** What an earlier body parser left, when it consumed the body before the plug-in could read it. */
export interface ParsedBody {
  /** `req.body` as that parser left it (an object, a string, a Buffer, or `undefined`). */
  readonly value: unknown;
  /**
   * The bytes that parser read, when it kept them (Express: `req.rawBody`, set by the parser's
   * `verify` option). `/notify` needs the bytes, not an object made of them: a parser keeps one of
   * two repeated fields in silence.
   */
  readonly raw?: Buffer | string;
}

/** What the framework carrying the core knows about a request that the `Request` does not say. */
export interface RequestFacts<Native = Request> {
  /** The client's address as the framework knows it (Express: `req.ip`, so `trust proxy` is the app's). Used for rate limiting. */
  readonly clientAddress?: string;
  /** The path prefix the handler was reached under, e.g. `'/pay'` (Express: `req.baseUrl`). Defaults to `options.mountPath`. */
  readonly mountPath?: string;
  /**
   * The framework's own request, given to `quote(req, body)` and `rateLimit.key(req)` in place of
   * the Web `Request` (Express: `req`). Without it they receive the `Request`.
   */
  readonly native?: Native;
  /**
   * Set when an earlier body parser consumed the body stream (a global `express.json()`): what it
   * left. `/notify` and the browser routes then work from it (or say which parser to move).
   */
  readonly parsedBody?: ParsedBody;
}

/**
 * What the core reads of a request: a Web `Request` is one; the Express adapter passes a view of
 * Node's `req` with just these (building an undici `Request` per call cost more CPU than the rest
 * of the adapter together), so the core must not reach for more.
 */
export interface CoreRequest {
  readonly method: string;
  /** The full URL the client sent, mount prefix included. */
  readonly url: string;
  readonly headers: Pick<Headers, 'get' | 'has'>;
  readonly body: ReadableStream<Uint8Array> | null;
  /**
   * The whole body at once, or `undefined` past `max` bytes (the rest is drained): offered by an
   * adapter that can read it cheaper than through `body` (Express: straight from Node's stream, no
   * Web stream per request). It rejects with an `AbortError` when the client goes away.
   */
  readonly readBody?: (max: number) => Promise<Buffer | undefined>;
  readonly signal: Pick<AbortSignal, 'aborted'>;
}

/** What a route handler works with. */
export interface RouteContext {
  readonly url: URL;
  /** Path parameters (`orderNum`), percent-decoded. */
  readonly params: Readonly<Record<string, string>>;
  readonly facts: RequestFacts<unknown>;
  /** What `quote` and `rateLimit.key` receive: `facts.native`, else the `Request`. */
  readonly native: unknown;
  /** Set by the edge (CORS, `Vary`, rate limits); merged into whatever the route answers. */
  readonly headers: AnswerHeaders;
}

/** A route of the core: a request in, an `Answer` out (errors thrown are answered by `respond.ts`). */
export type RouteHandler = (request: CoreRequest, context: RouteContext) => Promise<Answer>;

/** One `?name=` of the URL, only when it is given exactly once (a repeated one is nobody's value). */
export function queryValue(url: URL, name: string): string | undefined {
  const values = url.searchParams.getAll(name);
  return values.length === 1 ? values[0] : undefined;
}
