/**
 * One JSON POST to the gateway over node:http(s), with a single deadline that covers everything:
 * DNS, connect, TLS, sending, waiting for headers and reading the body (stripe-node #1058: a
 * timeout that ignored the connect phase). Responses are capped in size. Failures say whether the
 * request may have reached the gateway (`maybeReceived`), which decides whether a retry must ask
 * `/gateway/query` first.
 */
import http from 'node:http';
import https from 'node:https';

export interface HttpResponse {
  readonly status: number;
  readonly headers: http.IncomingHttpHeaders;
  readonly body: string;
}

export type TransportFailureKind = 'timeout' | 'network' | 'too_large';

export class TransportError extends Error {
  override readonly name = 'TransportError';
  /** False only when the request certainly never reached the gateway (refused, DNS failure). */
  readonly maybeReceived: boolean;
  readonly errorCode: string | undefined;

  constructor(
    readonly kind: TransportFailureKind,
    message: string,
    { maybeReceived, errorCode }: { readonly maybeReceived: boolean; readonly errorCode?: string | undefined },
  ) {
    super(message);
    this.maybeReceived = maybeReceived;
    this.errorCode = errorCode;
  }
}

/** Errors raised before a connection existed: the gateway cannot have seen the request. */
const NOT_SENT_CODES = new Set(['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN', 'EHOSTUNREACH', 'ENETUNREACH', 'EADDRNOTAVAIL']);

export const MAX_RESPONSE_BYTES = 256 * 1024;

export interface Transport {
  /** `headers`: sent besides the transport's own (the trace context of the call's span). */
  post(url: URL, body: string, timeoutMs: number, headers?: Readonly<Record<string, string>>): Promise<HttpResponse>;
  close(): void;
}

/** A transport with keep-alive agents of its own, closed with the router. */
export function createTransport(): Transport {
  const agents = {
    http: new http.Agent({ keepAlive: true, maxSockets: 32 }),
    https: new https.Agent({ keepAlive: true, maxSockets: 32 }),
  };
  return {
    post: (url, body, timeoutMs, headers) => post(url, body, timeoutMs, url.protocol === 'https:' ? agents.https : agents.http, headers),
    close() {
      agents.http.destroy();
      agents.https.destroy();
    },
  };
}

function post(url: URL, body: string, timeoutMs: number, agent: http.Agent, extraHeaders: Readonly<Record<string, string>> = {}): Promise<HttpResponse> {
  const client = url.protocol === 'https:' ? https : http;
  return new Promise<HttpResponse>((resolve, reject) => {
    let settled = false;
    let connected = false;
    const finish = (error: TransportError | undefined, response?: HttpResponse): void => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      if (error) reject(error);
      else resolve(response as HttpResponse);
    };
    const payload = Buffer.from(body, 'utf8');
    const request = client.request(url, {
      method: 'POST',
      agent,
      headers: {
        ...extraHeaders,
        'content-type': 'application/json; charset=utf-8',
        accept: 'application/json',
        'content-length': String(payload.length),
        'user-agent': 'tombolbayar-server',
      },
    });
    const timer = setTimeout(() => {
      finish(new TransportError('timeout', `the gateway did not answer within ${timeoutMs} ms`, { maybeReceived: connected }));
      request.destroy();
    }, timeoutMs);
    request.on('socket', (socket) => {
      // A reused keep-alive socket is already connected; a fresh one tells us when it is.
      if (!socket.connecting) connected = true;
      else socket.once('connect', () => (connected = true));
    });
    request.on('error', (error: NodeJS.ErrnoException) => {
      const code = error.code ?? 'ERR';
      const maybeReceived = connected || !NOT_SENT_CODES.has(code);
      finish(new TransportError('network', `cannot reach the gateway (${code})`, { maybeReceived, errorCode: code }));
    });
    request.on('response', (response) => {
      const chunks: Buffer[] = [];
      let size = 0;
      response.on('data', (chunk: Buffer) => {
        size += chunk.length;
        if (size > MAX_RESPONSE_BYTES) {
          finish(new TransportError('too_large', `the gateway's answer is larger than ${MAX_RESPONSE_BYTES} bytes`, { maybeReceived: true }));
          request.destroy();
          return;
        }
        chunks.push(chunk);
      });
      response.on('end', () => {
        finish(undefined, { status: response.statusCode ?? 0, headers: response.headers, body: Buffer.concat(chunks).toString('utf8') });
      });
      response.on('aborted', () => finish(new TransportError('network', 'the gateway closed the connection mid-answer', { maybeReceived: true, errorCode: 'ECONNRESET' })));
      response.on('error', (error: NodeJS.ErrnoException) =>
        finish(new TransportError('network', `the gateway's answer broke off (${error.code ?? 'ERR'})`, { maybeReceived: true, errorCode: error.code })),
      );
    });
    request.end(payload);
  });
}
