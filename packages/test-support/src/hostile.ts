/**
 * Helpers shared by the hostile suites (`hostile-*.test.ts`) of `@tombolbayar/gateway` and
 * `@tombolbayar/express`: a raw HTTP client over keep-alive sockets (any method, header and body
 * bytes, no redirect following), a watch on the process for unhandled rejections and uncaught
 * exceptions, a cheap "did the store change" probe, hostile value generators for fast-check, a case
 * counter, and the secret-leak scan. Each package's `test/hostile-support.ts` re-exports these and
 * adds what is its own (the gateway's captured logger, the plug-in's shop under attack).
 */
import http from 'node:http';
import BetterSqlite3 from 'better-sqlite3';
import fc from 'fast-check';
import pg from 'pg';


// ---------------------------------------------------------------------------------------------
// Raw HTTP

export interface RawAnswer {
  readonly status: number;
  readonly headers: http.IncomingHttpHeaders;
  readonly text: string;
  /** The body parsed as JSON, or undefined when it is not JSON. */
  readonly json: any;
}

export interface SendOptions {
  readonly method?: string;
  readonly headers?: Record<string, string>;
  readonly body?: string | Buffer;
  /** A socket of its own (for bodies the server may refuse before reading them). */
  readonly fresh?: boolean;
  /** The keep-alive agent to use instead of the shared one (at most 32 sockets). */
  readonly agent?: http.Agent;
}

const keepAlive = new http.Agent({ keepAlive: true, maxSockets: 32 });

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

function once(base: string, path: string, options: SendOptions): Promise<RawAnswer> {
  const target = new URL(base);
  return new Promise((resolve, reject) => {
    const req = http.request(
      {
        host: target.hostname,
        port: target.port,
        // Sent verbatim: malformed percent-encodings are part of the corpus.
        path,
        method: options.method ?? 'GET',
        // Always framed: Node sends a DELETE (or GET) body without a length otherwise.
        headers: { ...(options.body === undefined ? {} : { 'content-length': String(Buffer.byteLength(options.body)) }), ...options.headers },
        agent: options.fresh ? false : (options.agent ?? keepAlive),
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('error', reject);
        res.on('end', () => {
          const text = Buffer.concat(chunks).toString('utf8');
          resolve({ status: res.statusCode ?? 0, headers: res.headers, text, json: parseJson(text) });
        });
      },
    );
    req.setTimeout(30_000, () => req.destroy(new Error(`no answer within 30 s: ${options.method ?? 'GET'} ${path.slice(0, 120)}`)));
    req.on('error', (error: NodeJS.ErrnoException) => reject(Object.assign(error, { reusedSocket: req.reusedSocket })));
    req.end(options.body);
  });
}

/**
 * One request, `path` sent as given. A keep-alive socket the server closed while idle is retried
 * once on a fresh socket (the documented Node pattern: the request never reached the server).
 */
export async function send(base: string, path: string, options: SendOptions = {}): Promise<RawAnswer> {
  try {
    return await once(base, path, options);
  } catch (error) {
    const failure = error as NodeJS.ErrnoException & { reusedSocket?: boolean };
    if (failure.reusedSocket && failure.code === 'ECONNRESET') return once(base, path, { ...options, fresh: true });
    throw error;
  }
}

/** encodeURIComponent that survives lone surrogates (they become U+FFFD, as a browser sends them). */
export function encodeAny(value: string): string {
  return encodeURIComponent(value.replace(/[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g, '\ufffd'));
}

export function postJsonText(base: string, path: string, text: string, headers: Record<string, string> = {}): Promise<RawAnswer> {
  return send(base, path, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: text });
}

// ---------------------------------------------------------------------------------------------
// The process: nothing may escape as an unhandled rejection or an uncaught exception.

export interface ProcessWatch {
  readonly problems: unknown[];
  /** Throws when anything escaped since the watch started. */
  assertClean(): void;
  stop(): void;
}

export function watchProcess(): ProcessWatch {
  const problems: unknown[] = [];
  const onRejection = (reason: unknown) => problems.push(reason);
  const onException = (error: unknown) => problems.push(error);
  process.on('unhandledRejection', onRejection);
  process.on('uncaughtException', onException);
  return {
    problems,
    assertClean() {
      if (problems.length) throw new Error(`${problems.length} unhandled rejection(s)/exception(s), first: ${String((problems[0] as Error)?.stack ?? problems[0])}`);
    },
    stop() {
      process.off('unhandledRejection', onRejection);
      process.off('uncaughtException', onException);
    },
  };
}

// ---------------------------------------------------------------------------------------------
// Store probes

/**
 * "Did anything change in the store?", asked before and after a request.
 * - SQLite: `PRAGMA data_version` of a second, read-only connection, which changes exactly when
 *   another connection commits: O(1), whatever the tables hold.
 * - PostgreSQL: a digest of every row of the given tables in the test's own schema (small tables).
 */
export interface StoreProbe {
  version(): Promise<string>;
  count(table: string, where?: string, ...params: unknown[]): Promise<number>;
  close(): Promise<void>;
}

export function sqliteProbe(file: string): StoreProbe {
  const db = new BetterSqlite3(file, { readonly: true, fileMustExist: true });
  db.pragma('busy_timeout = 5000');
  return {
    version: async () => String(db.pragma('data_version', { simple: true })),
    count: async (table, where, ...params) =>
      Number((db.prepare(`SELECT count(*) AS n FROM ${table}${where ? ` WHERE ${where}` : ''}`).get(...params) as { n: number }).n),
    close: async () => {
      db.close();
    },
  };
}

export async function postgresProbe(url: string, schema: string, tables: readonly string[]): Promise<StoreProbe> {
  const client = new pg.Client({ connectionString: url, options: `-c search_path=${schema}` });
  await client.connect();
  const digest = tables.map((table) => `(SELECT md5(coalesce(string_agg(t::text, ',' ORDER BY t::text), '')) FROM ${table} t)`).join(" || ':' || ");
  return {
    version: async () => String((await client.query(`SELECT ${digest} AS v`)).rows[0].v),
    count: async (table, where, ...params) => {
      let placeholder = 0;
      const numbered = (where ?? '').replace(/\?/g, () => `$${(placeholder += 1)}`);
      const result = await client.query(`SELECT count(*)::int AS n FROM ${table}${where ? ` WHERE ${numbered}` : ''}`, params);
      return Number(result.rows[0].n);
    },
    close: () => client.end(),
  };
}

/** True when `path` holds a `%` that is not followed by two hex digits. */
export const hasMalformedEscape = (path: string): boolean => /%(?![0-9A-Fa-f]{2})/.test(path);

/** A string that would be markup if a page printed it raw (a tag, a comment, an end tag), long enough not to occur by chance. */
export const looksLikeMarkup = (text: string): boolean => text.length >= 8 && /<[a-z!/?]/i.test(text);

// ---------------------------------------------------------------------------------------------
// Counting cases

const counts = new Map<string, number>();
const statuses = new Map<string, Map<number, number>>();

/** One case tried against `endpoint`; `status` is its HTTP status, for the outcome summary. */
export function countCase(endpoint: string, status?: number): void {
  counts.set(endpoint, (counts.get(endpoint) ?? 0) + 1);
  if (status === undefined) return;
  const byStatus = statuses.get(endpoint) ?? new Map<number, number>();
  byStatus.set(status, (byStatus.get(status) ?? 0) + 1);
  statuses.set(endpoint, byStatus);
}

/** Cases per endpoint (with their HTTP statuses) and the total. */
export function caseCounts(): { readonly total: number; readonly lines: string[] } {
  const lines = [...counts.entries()]
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([endpoint, n]) => {
      const byStatus = [...(statuses.get(endpoint) ?? new Map<number, number>()).entries()].sort(([a], [b]) => a - b);
      return `${endpoint}: ${n}${byStatus.length ? ` (${byStatus.map(([status, k]) => `${status}×${k}`).join(', ')})` : ''}`;
    });
  const total = [...counts.values()].reduce((sum, n) => sum + n, 0);
  return { total, lines };
}

/** `HOSTILE_SCALE=2` runs twice as many cases (for a long local soak); default 1. */
export function runs(n: number): number {
  const scale = Number(process.env.HOSTILE_SCALE ?? '1');
  return Math.max(1, Math.round(n * (Number.isFinite(scale) && scale > 0 ? scale : 1)));
}

/** fast-check settings: a seed from HOSTILE_SEED replays a failure; every run is one case. */
export function fcOptions(numRuns: number): fc.Parameters<unknown> {
  const seed = process.env.HOSTILE_SEED === undefined ? undefined : Number(process.env.HOSTILE_SEED);
  return {
    numRuns: runs(numRuns),
    endOnFailure: true,
    includeErrorInReport: true,
    ...(seed === undefined ? {} : { seed }),
    // Counterexamples hold strings of tens of kilobytes: report them cut, the seed replays them whole.
    reporter(details) {
      if (!details.failed) return;
      const report = fc.defaultReportMessage(details) ?? 'property failed';
      throw new Error(report.replace(/(.)\1{200,}/g, (run: string, char: string) => `${char.repeat(20)}…(${run.length}×)`).slice(0, 4000));
    },
  };
}

// ---------------------------------------------------------------------------------------------
// Hostile values

/** Strings that broke something somewhere once: markup, SQL, paths, encodings, numbers in disguise. */
export const PAYLOADS: readonly string[] = [
  '<script>window.__xss=1</script>',
  '"><img src=x onerror=window.__xss=1>',
  "'><svg onload=alert(1)>",
  'javascript:alert(1)',
  "'; DROP TABLE orders; --",
  "' OR '1'='1",
  '../../../../etc/passwd',
  '%00',
  '%ZZ',
  '\u0000',
  'a\u0000b',
  '\u202e\u0644\u0627',
  '\ufeff',
  '\ud800',
  '\udfff',
  '\r\nSet-Cookie: x=1',
  '😀'.repeat(17),
  '{{7*7}}',
  '${7*7}',
  '__proto__',
  'constructor',
  'toString',
  'NaN',
  'Infinity',
  '-0',
  '1e309',
  '0x10',
  '١٥٠٠٠٠',
  '１５００００',
  ' 150000',
  '150000\n',
  '150000.0',
  '+150000',
  '015000',
  '99999999999999999999999',
  'null',
  'undefined',
  'true',
  '[]',
  '{}',
  '',
  ' ',
  'http://169.254.169.254/latest/meta-data/',
  'file:///etc/passwd',
  'https://user:pass@example.com/',
  'A'.repeat(65),
  'A'.repeat(513),
];

const controlChars = fc.string({ unit: fc.integer({ min: 0, max: 0x1f }).map((code) => String.fromCharCode(code)), maxLength: 12 });
const loneSurrogates = fc.string({ unit: fc.integer({ min: 0xd800, max: 0xdfff }).map((code) => String.fromCharCode(code)), maxLength: 6 });

export const hostileString: fc.Arbitrary<string> = fc.oneof(
  { weight: 4, arbitrary: fc.constantFrom(...PAYLOADS) },
  { weight: 3, arbitrary: fc.string({ maxLength: 40 }) },
  { weight: 2, arbitrary: fc.string({ unit: 'grapheme', maxLength: 24 }) },
  { weight: 2, arbitrary: fc.string({ unit: 'binary', maxLength: 24 }) },
  { weight: 1, arbitrary: controlChars },
  { weight: 1, arbitrary: loneSurrogates },
  { weight: 1, arbitrary: fc.integer({ min: 1_000, max: 40_000 }).map((n) => 'x'.repeat(n)) },
);

/** JSON number literals, including the ones JSON.parse turns into something surprising. */
const numberLiteral: fc.Arbitrary<string> = fc.oneof(
  fc.integer().map(String),
  fc.double({ noNaN: true, noDefaultInfinity: true }).map((n) => JSON.stringify(n)),
  fc.constantFrom('150000', '0', '-1', '-0', '1e400', '-1e400', '0.1', '1E2', '12345678901234567890123456789', '150000.00001'),
);

/** Keys an attacker likes: prototype pollution, signatures, prices, and the empty key. */
export const hostileKey: fc.Arbitrary<string> = fc.oneof(
  { weight: 3, arbitrary: fc.constantFrom('__proto__', 'constructor', 'prototype', 'toString', 'hasOwnProperty', 'valueOf', '', ' ', 'sign', 'platSign', 'payMoney', 'amount', 'price', 'payFee') },
  { weight: 2, arbitrary: fc.string({ maxLength: 12 }) },
);

/**
 * Raw JSON text of any value (so objects may hold `__proto__` keys and repeated keys, which no
 * JavaScript object can carry through JSON.stringify).
 */
export const jsonText: fc.Arbitrary<string> = fc.letrec<{ value: string }>((tie) => ({
  value: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    { weight: 5, arbitrary: hostileString.map((s) => JSON.stringify(s)) },
    { weight: 2, arbitrary: numberLiteral },
    { weight: 1, arbitrary: fc.constantFrom('true', 'false', 'null') },
    { weight: 1, arbitrary: fc.array(tie('value'), { maxLength: 4 }).map((items) => `[${items.join(',')}]`) },
    {
      weight: 1,
      arbitrary: fc.array(fc.tuple(hostileKey, tie('value')), { maxLength: 4 }).map((entries) => objectText(entries)),
    },
    { weight: 1, arbitrary: fc.integer({ min: 100, max: 3_000 }).map((depth) => `${'['.repeat(depth)}${']'.repeat(depth)}`) },
  ),
})).value;

/** `{"k":v,...}` from entries whose values are JSON text; keys may repeat. */
export function objectText(entries: ReadonlyArray<readonly [string, string]>): string {
  return `{${entries.map(([key, value]) => `${JSON.stringify(key)}:${value}`).join(',')}}`;
}

/** Bodies that are not JSON objects at all. */
export const notJsonBody: fc.Arbitrary<string> = fc.oneof(
  fc.constantFrom('', '{', '}', '{"a":', '{"a":1,}', "{'a':1}", '{a:1}', 'NaN', '[1,2', '"unterminated', '\u0000', '\ufeff{}', 'null', '[]', '"text"', '42', 'true', '{"a":1}{"b":2}', '{"a":"\\ud800"}', '{"a":"\\x41"}'),
  fc.string({ maxLength: 200 }),
  fc.string({ unit: 'binary', maxLength: 200 }),
  jsonText,
);

/** Content types that are not application/json (or are, with a twist). */
export const hostileContentType: fc.Arbitrary<string | undefined> = fc.constantFrom(
  undefined,
  'text/plain',
  'application/x-www-form-urlencoded',
  'multipart/form-data; boundary=x',
  'application/xml',
  'application/json; charset=latin1',
  'application/json; charset=utf-16',
  'application/jsonx',
  'application/problem+json',
  'APPLICATION/JSON',
  'application/json;;',
  '*/*',
  'application/octet-stream',
);

// ---------------------------------------------------------------------------------------------
// Secrets

/**
 * The fragments of a private key an attacker could recognise: every 16-character window (step 4)
 * of the PEM body's base64, minus those that also occur in the public key (the modulus is in both
 * and is public), plus each PEM line.
 */
export function secretFragments(privatePem: string, publicPem: string): string[] {
  const body = (pem: string) => pem.split('\n').filter((line) => line && !line.startsWith('-----')).join('');
  const secret = body(privatePem);
  const known = body(publicPem);
  const fragments = new Set<string>();
  for (let i = 0; i + 16 <= secret.length; i += 4) {
    const fragment = secret.slice(i, i + 16);
    if (!known.includes(fragment)) fragments.add(fragment);
  }
  for (const line of privatePem.split('\n')) if (line && !line.startsWith('-----') && !known.includes(line)) fragments.add(line);
  return [...fragments];
}

/** The fragments of `privatePem` found in `haystack` (newlines and JSON escapes removed first). */
export function leakedFragments(haystack: string, privatePem: string, publicPem: string): string[] {
  const flat = haystack.replace(/\\n|\\r|\n|\r/g, '').replace(/\\\//g, '/');
  const found = secretFragments(privatePem, publicPem).filter((fragment) => flat.includes(fragment));
  if (/PRIVATE KEY/.test(haystack)) found.push('PRIVATE KEY');
  return found;
}
