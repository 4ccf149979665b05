/**
 * Human log lines for a terminal: pino's JSON line becomes `12:04:05 INFO  gateway listening
 * url=http://127.0.0.1:4000`. No dependency (pino-pretty would bring a dozen): the gateway's
 * lines are flat and few. Redaction has already happened in pino before a line reaches here.
 */
import { Writable } from 'node:stream';

const LEVELS: Readonly<Record<number, { readonly label: string; readonly color: string }>> = {
  10: { label: 'TRACE', color: '90' },
  20: { label: 'DEBUG', color: '36' },
  30: { label: 'INFO ', color: '32' },
  40: { label: 'WARN ', color: '33' },
  50: { label: 'ERROR', color: '31' },
  60: { label: 'FATAL', color: '35' },
};

/** What every line carries and the pretty form shows in its own place, or not at all. */
const OWN_KEYS = new Set(['level', 'time', 'msg', 'pid', 'hostname', 'name', 'err']);

const value = (v: unknown) => (typeof v === 'string' && /^[^\s"=]+$/.test(v) ? v : JSON.stringify(v));

/** One JSON log line as a human line (pure, tested); a line that is not JSON passes as it is. */
export function formatLogLine(line: string, options: { color: boolean }): string {
  let entry: Record<string, unknown>;
  try {
    entry = JSON.parse(line) as Record<string, unknown>;
  } catch {
    return line.trimEnd();
  }
  const level = LEVELS[Number(entry.level)] ?? { label: String(entry.level).padEnd(5), color: '0' };
  const time = typeof entry.time === 'number' ? new Date(entry.time).toISOString().slice(11, 23) : '';
  const label = options.color ? `\u001b[${level.color}m${level.label}\u001b[0m` : level.label;
  const fields = Object.entries(entry)
    .filter(([key]) => !OWN_KEYS.has(key))
    .map(([key, v]) => `${key}=${value(v)}`);
  const err = entry.err as { type?: string; message?: string; stack?: string } | undefined;
  const trace = err ? (err.stack ?? `${err.type ?? 'Error'}: ${err.message ?? ''}`) : undefined;
  const error = trace === undefined ? '' : `\n${trace.split('\n').map((text) => `    ${text}`).join('\n')}`;
  return `${time} ${label} ${String(entry.msg ?? '')}${fields.length ? `  ${fields.join(' ')}` : ''}${error}`;
}

/** A stream pino writes its JSON lines to, that writes human lines to `out`. */
export function prettyStream(out: NodeJS.WritableStream & { isTTY?: boolean }): Writable {
  const color = out.isTTY === true && !process.env.NO_COLOR;
  let pending = '';
  return new Writable({
    write(chunk: Buffer | string, _encoding, callback) {
      pending += chunk.toString();
      const lines = pending.split('\n');
      pending = lines.pop() ?? '';
      const text = lines.filter((line) => line.length > 0).map((line) => `${formatLogLine(line, { color })}\n`).join('');
      if (text) out.write(text);
      callback();
    },
  });
}
