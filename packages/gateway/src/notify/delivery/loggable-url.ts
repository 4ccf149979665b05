/**
 * A notification URL as a log line may show it: scheme, host, port and path, so an operator sees
 * where a failed notification went, and nothing that may be a secret. Merchants put tokens in a
 * `notifyUrl`'s query (`?token=...`), so every query value is replaced by `_` (the names stay, to
 * tell two endpoints apart); a user name, password or fragment is dropped. Pure.
 */
export function loggableUrl(url: string): string {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return '(not an absolute URL)';
  }
  const names = [...new Set([...parsed.searchParams.keys()])];
  const query = names.length === 0 ? '' : `?${names.map((name) => `${encodeURIComponent(name)}=_`).join('&')}`;
  return `${parsed.protocol}//${parsed.host}${parsed.pathname}${query}`;
}
