/**
 * How to read a request body given its `Content-Encoding` header: one rule for the gateway and the
 * plug-in's `/notify`. The family's public clients are sloppy here (a Java client sends
 * `Content-Encoding: UTF-8`, a character set, not an encoding), so a header naming UTF-8 reads as
 * no encoding; gzip and deflate are inflated by the caller (the size limit counts inflated bytes,
 * and `inflatedLimit` bounds them by the bytes received); anything else is refused. `Content-Type` is read here too, the same way for every body reader.
 * Browser-safe and dependency-free.
 */

/** What the body reader must do with the bytes. */
export type BodyEncoding = 'identity' | 'gzip' | 'deflate';

/** The message every refusal of an unsupported `Content-Encoding` uses (fixed: it repeats nothing of the request). */
export const UNSUPPORTED_CONTENT_ENCODING = 'Content-Encoding: must be gzip, deflate, identity or absent';

/** UTF-8 by any of its names, any case: a character set where an encoding belongs, read as none. */
const UTF8_NAME = /^utf-?8$/i;

/**
 * The encoding a body reader applies for this `Content-Encoding` header, or `undefined` when the
 * header names something it cannot read (refuse with `UNSUPPORTED_CONTENT_ENCODING`).
 */
export function bodyEncoding(header: string | readonly string[] | undefined): BodyEncoding | undefined {
  if (header === undefined) return 'identity';
  if (typeof header !== 'string') return header.length === 0 ? 'identity' : header.length === 1 ? bodyEncoding(header[0]) : undefined;
  const value = header.trim();
  if (value === '' || /^identity$/i.test(value) || UTF8_NAME.test(value)) return 'identity';
  if (/^gzip$/i.test(value)) return 'gzip';
  if (/^deflate$/i.test(value)) return 'deflate';
  return undefined;
}

/**
 * How many times its received size a compressed body may inflate to. JSON and forms compress by
 * about 2 to 10 times; a bomb by hundreds (a 108-byte gzip inflates to 64 KB). Past it the body is
 * refused before it is decoded, parsed or its signature checked.
 */
export const MAX_INFLATE_RATIO = 32;

/** Every compressed body may inflate to this much, whatever its ratio (small bodies compress badly or well). */
export const MIN_INFLATED_LIMIT = 4 * 1024;

/**
 * The most a compressed body of `compressedBytes` may inflate to (pure): the body limit, or less
 * for a small body that claims to hold much (`MAX_INFLATE_RATIO`, at least `MIN_INFLATED_LIMIT`).
 */
export function inflatedLimit(compressedBytes: number, limit: number): number {
  return Math.min(limit, Math.max(MIN_INFLATED_LIMIT, compressedBytes * MAX_INFLATE_RATIO));
}

/** A `Content-Type` header's media type (lower-cased, `''` when absent) and `charset` parameter (lower-cased, unquoted). */
export interface ContentType {
  readonly mediaType: string;
  readonly charset: string | undefined;
}

/** The parts of a `Content-Type` header that a body reader judges. */
export function contentTypeOf(header: string | undefined): ContentType {
  const match = /;\s*charset\s*=\s*"?([^";\s]*)"?/i.exec(header ?? '');
  return { mediaType: (header ?? '').split(';')[0]!.trim().toLowerCase(), charset: match ? match[1]!.toLowerCase() : undefined };
}

/** Whether a declared charset names UTF-8 (either spelling). */
export function isUtf8Charset(charset: string): boolean {
  return UTF8_NAME.test(charset);
}
