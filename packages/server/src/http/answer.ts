/**
 * What the core answers, before it is a Web `Response`: status, headers and the whole body (every
 * answer of the core is small and made at once). `toResponse` makes the `Response` that `fetch()`
 * returns; the Express adapter writes an `Answer` to Node's `ServerResponse` as it is. Building an
 * undici `Response` and its `Headers` for every request cost the Express adapter as much CPU as the
 * rest of it, for an object it only took apart again.
 */

/** Header names compared without case, as HTTP does; kept lower-cased, as `Headers` gives them. */
export class AnswerHeaders implements Iterable<[string, string]> {
  readonly #values = new Map<string, string>();

  constructor(init?: Readonly<Record<string, string>>) {
    if (init) for (const name of Object.keys(init)) this.#values.set(name.toLowerCase(), init[name]!);
  }

  get(name: string): string | null {
    return this.#values.get(name.toLowerCase()) ?? null;
  }

  has(name: string): boolean {
    return this.#values.has(name.toLowerCase());
  }

  set(name: string, value: string): void {
    this.#values.set(name.toLowerCase(), value);
  }

  [Symbol.iterator](): IterableIterator<[string, string]> {
    return this.#values.entries();
  }
}

/** The headers the edge decides for a request (CORS, `Vary`, rate limits): set, and asked about. */
export type EdgeHeaders = Pick<AnswerHeaders, 'set' | 'has'>;

export interface Answer {
  readonly status: number;
  readonly headers: AnswerHeaders;
  readonly body: string | Uint8Array | null;
  /** The client left before its request was worked on: nothing is sent, the connection is ended (`Response.error()`). */
  readonly clientGone?: true;
}

export function answer(status: number, body: string | Uint8Array | null, headers?: Readonly<Record<string, string>>): Answer {
  return { status, body, headers: new AnswerHeaders(headers) };
}

/** The answer to a client that is gone: the adapters end its connection. */
export const clientGone = (): Answer => ({ status: 0, body: null, headers: new AnswerHeaders(), clientGone: true });

/** The Web `Response` of an answer (`Response.error()` for a client that is gone). */
export function toResponse(result: Answer): Response {
  if (result.clientGone) return Response.error();
  return new Response(result.body, { status: result.status, headers: [...result.headers] });
}
