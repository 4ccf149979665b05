/**
 * The CLI's side of a running sandbox: JSON calls to its `/sandbox` API, with the three things
 * that go wrong said plainly (nothing answers at the URL, the gateway there is not a sandbox, it
 * refused), never as an errno or a stack.
 */

/** A sandbox command that could not be done; the CLI prints the message and exits 1. */
export class SandboxCommandError extends Error {
  override readonly name = 'SandboxCommandError';
}

export interface SandboxAnswer {
  readonly status: number;
  readonly body: Record<string, any>;
}

export interface SandboxClient {
  readonly baseUrl: string;
  /** One call; resolves with any HTTP answer that is the gateway's JSON. */
  call(method: 'GET' | 'POST', path: string, body?: unknown): Promise<SandboxAnswer>;
  /** A call that must succeed: a refusal throws SandboxCommandError with the gateway's words. */
  expect(method: 'GET' | 'POST', path: string, body?: unknown): Promise<Record<string, any>>;
}

const NOT_RUNNING = (url: string) =>
  `no gateway answers at ${url}; start one with: tombolbayar-gateway --sandbox (or name it with --url)`;
const NOT_SANDBOX = (url: string) => `the gateway at ${url} is not in sandbox mode; start it with --sandbox`;

export function sandboxClient(baseUrl: string, timeoutMs = 10_000): SandboxClient {
  const root = baseUrl.replace(/\/+$/, '');
  let checked = false;

  async function raw(method: string, path: string, body?: unknown): Promise<SandboxAnswer> {
    let response: Response;
    try {
      response = await fetch(`${root}/sandbox${path}`, {
        method,
        signal: AbortSignal.timeout(timeoutMs),
        ...(body === undefined ? {} : { headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) }),
      });
    } catch {
      throw new SandboxCommandError(NOT_RUNNING(root));
    }
    const text = await response.text();
    try {
      const parsed: unknown = JSON.parse(text);
      if (parsed && typeof parsed === 'object' && 'platRespCode' in parsed) return { status: response.status, body: parsed as Record<string, any> };
    } catch {
      // Not JSON: said below.
    }
    throw new SandboxCommandError(`${root} answered HTTP ${response.status}, not as a tombolbayar gateway; is --url right?`);
  }

  /** Once per client: the sandbox API exists there (a production gateway answers 404). */
  async function ensureSandbox(): Promise<void> {
    if (checked) return;
    const probe = await raw('GET', '/clock');
    if (probe.status === 404) throw new SandboxCommandError(NOT_SANDBOX(root));
    if (probe.status !== 200) throw new SandboxCommandError(`the gateway at ${root} refused: ${String(probe.body.platRespMessage)}`);
    checked = true;
  }

  const client: SandboxClient = {
    baseUrl: root,
    async call(method, path, body) {
      await ensureSandbox();
      return raw(method, path, body);
    },
    async expect(method, path, body) {
      const answer = await client.call(method, path, body);
      if (answer.status !== 200) throw new SandboxCommandError(String(answer.body.platRespMessage));
      return answer.body;
    },
  };
  return client;
}
