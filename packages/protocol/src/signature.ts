/**
 * The BDPay-family signature: the values of all non-empty fields but the signature,
 * sorted by key, concatenated without separators, UTF-8 encoded, split into `k - 11` byte chunks,
 * each RSA "encrypted" with the signer's private key (PKCS#1 v1.5 type 1), joined, base64.
 * No hash is involved, so the same fields always give the same bytes (known-answer testable).
 *
 * Node-only (node:crypto). The only signer and verifier in the project.
 */
import { constants, createPrivateKey, createPublicKey, privateEncrypt, publicDecrypt, type KeyObject } from 'node:crypto';
import { isAbsent } from './wire.ts';

/** A PEM string (PKCS#8 / PKCS#1 private, SPKI / PKCS#1 public) or a parsed key. */
export type KeyInput = string | KeyObject;

/** Field maps as they travel: strings, with null/undefined for absent values. */
export type SignableFields = Readonly<Record<string, string | number | null | undefined>>;

/** The fields that carry signatures and are never part of what is signed. */
export const SIGNATURE_FIELDS: readonly string[] = ['sign', 'platSign'];

/** The spec's ceiling for a request `sign` (spec 2.1, 2.3, 8). */
export const MAX_REQUEST_SIGN_LENGTH = 512;

const PKCS1_OVERHEAD = 11;
const KEY_CACHE_LIMIT = 64;
const privateKeys = new Map<string, KeyObject>();
const publicKeys = new Map<string, KeyObject>();

export class SignatureKeyError extends Error {
  override readonly name = 'SignatureKeyError';
}

function remember(cache: Map<string, KeyObject>, pem: string, key: KeyObject): KeyObject {
  if (cache.size >= KEY_CACHE_LIMIT) cache.delete(cache.keys().next().value as string);
  cache.set(pem, key);
  return key;
}

function requireRsa(key: KeyObject, role: string): KeyObject {
  if (key.asymmetricKeyType !== 'rsa') {
    throw new SignatureKeyError(`the ${role} key must be an RSA key, got ${key.asymmetricKeyType ?? key.type}`);
  }
  return key;
}

/** A private key parsed once and reused: parsing a PEM costs several times the signing itself. */
export function toPrivateKey(key: KeyInput): KeyObject {
  if (typeof key !== 'string') {
    if (key.type !== 'private') throw new SignatureKeyError('signing needs a private key');
    return requireRsa(key, 'private');
  }
  const cached = privateKeys.get(key);
  if (cached) return cached;
  let parsed: KeyObject;
  try {
    parsed = createPrivateKey(key);
  } catch {
    // Never echo the input: it is a secret.
    throw new SignatureKeyError('the private key is not a valid PEM private key');
  }
  return remember(privateKeys, key, requireRsa(parsed, 'private'));
}

/** A public key parsed once and reused. A private key is accepted and its public half used. */
export function toPublicKey(key: KeyInput): KeyObject {
  if (typeof key !== 'string') return requireRsa(key.type === 'private' ? createPublicKey(key) : key, 'public');
  const cached = publicKeys.get(key);
  if (cached) return cached;
  let parsed: KeyObject;
  try {
    parsed = createPublicKey(key);
  } catch {
    throw new SignatureKeyError('the public key is not a valid PEM public key');
  }
  return remember(publicKeys, key, requireRsa(parsed, 'public'));
}

/** Modulus size in bytes (`k`): 128 for the family's usual 1024-bit keys. */
export function keyBytes(key: KeyObject): number {
  const bits = key.asymmetricKeyDetails?.modulusLength;
  if (!bits) throw new SignatureKeyError('cannot read the RSA modulus length of the key');
  return Math.ceil(bits / 8);
}

/**
 * The string that is signed: values of every field except `sign`/`platSign`, skipping null,
 * undefined and `""`, ordered by key in UTF-16 code unit order, joined with nothing.
 */
export function canonicalString(fields: SignableFields): string {
  let out = '';
  for (const key of Object.keys(fields).sort()) {
    if (SIGNATURE_FIELDS.includes(key)) continue;
    const value = fields[key];
    if (isAbsent(value)) continue;
    if (typeof value !== 'string' && typeof value !== 'number') {
      throw new TypeError(`field ${key} must be a string to be signed, got ${typeof value}`);
    }
    out += String(value);
  }
  return out;
}

/** Sign the fields with a private key; returns standard base64. */
export function sign(fields: SignableFields, privateKey: KeyInput): string {
  return signCanonical(canonicalString(fields), privateKey);
}

/**
 * Sign a canonical string already built by `canonicalString` (for a caller that also needs the
 * string itself, e.g. to measure it against the signature budget, without building it twice).
 */
export function signCanonical(canonical: string, privateKey: KeyInput): string {
  const key = toPrivateKey(privateKey);
  const chunkSize = keyBytes(key) - PKCS1_OVERHEAD;
  const plain = Buffer.from(canonical, 'utf8');
  // An empty canonical string still yields one block, so that verify has something to check.
  const count = Math.max(1, Math.ceil(plain.length / chunkSize));
  const blocks: Buffer[] = [];
  for (let index = 0; index < count; index++) {
    const chunk = plain.subarray(index * chunkSize, (index + 1) * chunkSize);
    blocks.push(privateEncrypt({ key, padding: constants.RSA_PKCS1_PADDING }, chunk));
  }
  return Buffer.concat(blocks).toString('base64');
}

const BASE64_PATTERN = /^[A-Za-z0-9+/]*={0,2}$/;

/** Standard or URL-safe base64, padded or not, to bytes; `undefined` for anything else. */
function decodeBase64(signature: string): Buffer | undefined {
  const standard = signature.replace(/-/g, '+').replace(/_/g, '/');
  if (!BASE64_PATTERN.test(standard)) return undefined;
  const unpadded = standard.replace(/=+$/, '');
  if (unpadded.length % 4 === 1) return undefined;
  return Buffer.from(unpadded, 'base64');
}

/**
 * Whether `signed` opens to exactly `expected` with `key`. The block count is checked first, from
 * the canonical string's length alone: a signer chunks by `k - 11` bytes, so any other count is
 * refused before a single RSA operation (issue 22: 80 copies of one freely obtainable block cost 80
 * public-key operations). Blocks are then opened one at a time and compared as they come, so a
 * wrong block stops the work there.
 */
function opensTo(key: KeyObject, signed: Buffer, expected: Buffer): boolean {
  const size = keyBytes(key);
  if (signed.length !== expectedBlockCount(expected.length, size) * size) return false;
  let offset = 0;
  for (let start = 0; start < signed.length; start += size) {
    const part = publicDecrypt({ key, padding: constants.RSA_PKCS1_PADDING }, signed.subarray(start, start + size));
    if (!part.equals(expected.subarray(offset, offset + part.length)) || (part.length === 0 && expected.length > 0)) return false;
    offset += part.length;
  }
  return offset === expected.length;
}

/** How many blocks a signature over `plainBytes` bytes has with a key of `size` bytes (at least one). */
export function expectedBlockCount(plainBytes: number, size: number): number {
  return Math.max(1, Math.ceil(plainBytes / (size - PKCS1_OVERHEAD)));
}

/**
 * True when `signature` was made over exactly these fields by the private half of one of the
 * given public keys (a list allows key rotation). Never throws: garbage, a truncated signature, a
 * wrong key or an unusable key all give false. Costs at most one RSA operation per block the
 * fields' canonical string needs, per key, whatever the signature's length.
 */
export function verify(fields: SignableFields, signature: unknown, publicKeyOrKeys: KeyInput | readonly KeyInput[]): boolean {
  if (typeof signature !== 'string' || signature.length === 0) return false;
  let expected: Buffer;
  try {
    expected = Buffer.from(canonicalString(fields), 'utf8');
  } catch {
    return false;
  }
  const signed = decodeBase64(signature);
  if (!signed) return false;
  const keys = Array.isArray(publicKeyOrKeys) ? publicKeyOrKeys : [publicKeyOrKeys as KeyInput];
  for (const candidate of keys) {
    try {
      if (opensTo(toPublicKey(candidate), signed, expected)) return true;
    } catch {
      // Wrong key or corrupted block: try the next key.
    }
  }
  return false;
}

/** Length in characters of the base64 `sign` these fields would get with a key of `k` bytes. */
export function signatureLength(fields: SignableFields, keyOrBytes: KeyInput | number): number {
  const size = typeof keyOrBytes === 'number' ? keyOrBytes : keyBytes(toPrivateKeyOrPublic(keyOrBytes));
  const plainBytes = Buffer.byteLength(canonicalString(fields), 'utf8');
  return Math.ceil((expectedBlockCount(plainBytes, size) * size) / 3) * 4;
}

/**
 * Whether a request's `sign` would fit the spec's 512 characters, told before signing or sending.
 * With a 1024-bit key that is at most 351 bytes of canonical string (3 chunks).
 */
export function checkSignatureFits(
  fields: SignableFields,
  key: KeyInput | number,
): { readonly fits: boolean; readonly length: number; readonly limit: number } {
  const length = signatureLength(fields, key);
  return { fits: length <= MAX_REQUEST_SIGN_LENGTH, length, limit: MAX_REQUEST_SIGN_LENGTH };
}

/**
 * The most bytes of canonical string whose `sign` stays within the spec's 512 characters with a
 * key of this size: 351 with the family's 1024-bit keys (three 117-byte chunks).
 */
export function maxSignableBytes(keyOrBytes: KeyInput | number): number {
  const size = typeof keyOrBytes === 'number' ? keyOrBytes : keyBytes(toPrivateKeyOrPublic(keyOrBytes));
  const blocks = Math.floor(((MAX_REQUEST_SIGN_LENGTH / 4) * 3) / size);
  return blocks * (size - PKCS1_OVERHEAD);
}

/**
 * RSA key sizes, in bits, whose signature of a create request fits the family's 512-character
 * `sign`: up to 3072 bits (a 4096-bit key makes one 512-byte block, 684 characters, always).
 */
export const REQUEST_KEY_BITS_THAT_FIT: readonly number[] = [1024, 2048, 3072];

/**
 * Undefined when this key can sign requests within the spec's 512 characters; else a message that
 * says which sizes work (checked when a signer starts, not at its first create).
 */
export function requestKeySizeProblem(key: KeyInput): string | undefined {
  const size = keyBytes(toPrivateKeyOrPublic(key));
  if (maxSignableBytes(size) > 0) return undefined;
  return `a ${size * 8}-bit RSA key cannot sign a request within the ${MAX_REQUEST_SIGN_LENGTH}-character sign of the BDPay family; use a ${REQUEST_KEY_BITS_THAT_FIT.join('-, ').replace(/, (\d+)$/, ' or $1')}-bit key`;
}

function toPrivateKeyOrPublic(key: KeyInput): KeyObject {
  if (typeof key !== 'string') return key;
  return key.includes('PRIVATE KEY') ? toPrivateKey(key) : toPublicKey(key);
}
