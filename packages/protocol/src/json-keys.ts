/**
 * Rules for a JSON text before its value is used, one home for every reader of a body (the
 * gateway's JSON routes and sandbox, the plug-in's create and `/notify`). Dependency-free and
 * browser-safe.
 *
 * - Repeated keys: `JSON.parse` keeps the last of `{"payMoney":"1","payMoney":"2"}`, while a
 *   proxy, a WAF or a log parser may keep the first and see another message. The wire refuses
 *   the ambiguity (RFC 7493, I-JSON: member names must be unique).
 * - Nesting deeper than `MAX_JSON_DEPTH`: no message of the family nests at all, and a body of
 *   `[[[[...` within the size limit is tens of thousands of levels deep: anything that walks it
 *   recursively (a validator, a serialiser, a logger) would throw `RangeError` and answer 500.
 * - Reserved keys (`__proto__`, `constructor`, `prototype`): no message has one, and each changes
 *   what an object is in JavaScript.
 */

/** The deepest nesting of objects and arrays a body may have (the family's messages are flat). */
export const MAX_JSON_DEPTH = 32;

/** What is wrong with a JSON text's shape, found before (or without) parsing it. */
export type JsonTextProblem =
  | { readonly kind: 'repeated_key'; readonly key: string }
  | { readonly kind: 'too_deep'; readonly maxDepth: number };

/** What is wrong with a JSON body: its shape, its syntax, or a reserved key. */
export type JsonBodyProblem = JsonTextProblem | { readonly kind: 'syntax' } | { readonly kind: 'reserved_key'; readonly key: string };

/**
 * A JSON body's value, read by every rule here in the one order every reader uses: nesting first
 * (before anything builds or walks the value), then syntax, then a repeated key (`JSON.parse` keeps
 * the last; anything in front of us may have read the first), then a reserved key at any depth.
 * `reservedKeys: 'leave'` is for a reader whose strict schema names every key it does not know,
 * reserved ones among them (the plug-in's browser routes): it names them all, not only the first.
 */
export function readJsonText(
  text: string,
  options: { readonly reservedKeys?: 'refuse' | 'leave' } = {},
): { readonly ok: true; readonly value: unknown } | { readonly ok: false; readonly problem: JsonBodyProblem } {
  const shape = jsonTextProblem(text);
  if (shape?.kind === 'too_deep') return { ok: false, problem: shape };
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return { ok: false, problem: { kind: 'syntax' } };
  }
  if (shape) return { ok: false, problem: shape };
  const reserved = options.reservedKeys === 'leave' ? undefined : reservedJsonKey(value);
  if (reserved !== undefined) return { ok: false, problem: { kind: 'reserved_key', key: reserved } };
  return { ok: true, value };
}

/**
 * The first repeated key (compared after unescaping, as `JSON.parse` compares them) or the first
 * nesting beyond `maxDepth`, whichever comes first in the text; undefined when neither. Linear and
 * iterative; it does not validate the text: on anything it does not expect it stops looking for
 * repeats and leaves the verdict to the JSON parser (depth is still counted, bracket by bracket).
 */
export function jsonTextProblem(text: string, maxDepth: number = MAX_JSON_DEPTH): JsonTextProblem | undefined {
  /** One entry per open object (its keys so far) or array (null). */
  const open: Array<Set<string> | null> = [];
  let expectKey = false;
  let keysReadable = true;
  for (let i = 0; i < text.length; i++) {
    const char = text[i];
    if (char === '"') {
      let end = i + 1;
      while (end < text.length && text[end] !== '"') end += text[end] === '\\' ? 2 : 1;
      const keys = open.at(-1);
      if (expectKey && keys && keysReadable) {
        const key = jsonString(text.slice(i, end + 1));
        if (key === undefined) keysReadable = false;
        else if (keys.has(key)) return { kind: 'repeated_key', key };
        else keys.add(key);
      }
      expectKey = false;
      i = end;
    } else if (char === '{' || char === '[') {
      if (open.length >= maxDepth) return { kind: 'too_deep', maxDepth };
      open.push(char === '{' ? new Set() : null);
      expectKey = char === '{';
    } else if (char === '}' || char === ']') {
      open.pop();
      expectKey = false;
    } else if (char === ',') {
      expectKey = open.at(-1) instanceof Set;
    }
  }
  return undefined;
}

/** A JSON string literal's value, or undefined when it is not one. */
function jsonString(literal: string): string | undefined {
  try {
    const value: unknown = JSON.parse(literal);
    return typeof value === 'string' ? value : undefined;
  } catch {
    return undefined;
  }
}

/** The first key that appears twice in one object of `text`, or undefined (`jsonTextProblem`, depth unbounded). */
export function repeatedJsonKey(text: string): string | undefined {
  const problem = jsonTextProblem(text, Number.POSITIVE_INFINITY);
  return problem?.kind === 'repeated_key' ? problem.key : undefined;
}

/**
 * Keys no message of the family has and that change what an object is in JavaScript: refused by
 * the gateway's JSON routes and the plug-in's `/notify` (a notification carrying `__proto__` was
 * silently dropped, issue 22); the plug-in's browser routes refuse every key they do not know.
 */
export const RESERVED_JSON_KEYS: readonly string[] = ['__proto__', 'constructor', 'prototype'];

/**
 * The first reserved key of a parsed JSON value, at any depth, or undefined. Iterative: a value
 * nested deeper than the call stack (an earlier parser's, not bounded by `MAX_JSON_DEPTH`) is
 * walked all the same, never a `RangeError`.
 */
export function reservedJsonKey(value: unknown): string | undefined {
  const pending: unknown[] = [value];
  while (pending.length > 0) {
    const next = pending.pop();
    if (typeof next !== 'object' || next === null) continue;
    for (const key of Object.keys(next)) {
      if (RESERVED_JSON_KEYS.includes(key)) return key;
      pending.push((next as Record<string, unknown>)[key]);
    }
  }
  return undefined;
}
