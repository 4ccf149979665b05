/**
 * Repeated keys in a JSON text: `JSON.parse` keeps the last of `{"payMoney":"1","payMoney":"2"}`,
 * while a proxy, a WAF or a log parser may keep the first and see another message. The wire
 * refuses the ambiguity (RFC 7493, I-JSON: member names must be unique). Dependency-free and
 * browser-safe.
 */

/**
 * The first key that appears twice in one object of `text` (compared after unescaping, as
 * `JSON.parse` compares them), or undefined. Linear; it does not validate the text: on anything it
 * does not expect it gives up (undefined) and leaves the verdict to the JSON parser.
 */
export function repeatedJsonKey(text: string): string | undefined {
  /** One entry per open object (its keys so far) or array (null). */
  const open: Array<Set<string> | null> = [];
  let expectKey = false;
  for (let i = 0; i < text.length; i++) {
    const char = text[i];
    if (char === '"') {
      let end = i + 1;
      while (end < text.length && text[end] !== '"') end += text[end] === '\\' ? 2 : 1;
      const keys = open.at(-1);
      if (expectKey && keys) {
        let key: unknown;
        try {
          key = JSON.parse(text.slice(i, end + 1));
        } catch {
          return undefined;
        }
        if (typeof key !== 'string') return undefined;
        if (keys.has(key)) return key;
        keys.add(key);
        expectKey = false;
      }
      i = end;
    } else if (char === '{') {
      open.push(new Set());
      expectKey = true;
    } else if (char === '[') {
      open.push(null);
      expectKey = false;
    } else if (char === '}' || char === ']') {
      open.pop();
      expectKey = false;
    } else if (char === ',') {
      expectKey = open.at(-1) instanceof Set;
    }
  }
  return undefined;
}
