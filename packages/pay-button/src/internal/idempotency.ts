/**
 * Idempotency keys: 128 random bits as 32 hex characters. `crypto.getRandomValues` works in
 * insecure contexts too (unlike `crypto.randomUUID`), so a merchant testing on plain http over a
 * LAN address still gets keys.
 */
export function newIdempotencyKey(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(16));
  return Array.from(bytes, (b) => b.toString(16).padStart(2, '0')).join('');
}
