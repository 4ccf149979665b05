/**
 * A public client of the family, emulated: requests built the way a published Java client of the
 * family builds them (Apache HttpClient and Gson), and answers verified the way its `verifySign`
 * does (issue 14). Not our plug-in's way, and not the protocol package's code: its own signer and
 * verifier on node:crypto, keys as base64 without PEM headers.
 *
 * That client's behaviour is written down as data (`REQUEST_RULES`, `VERIFY_RULES`), each rule
 * with what it represents, and every rule drives the emulation below: change a rule and the
 * client changes with it.
 */
import { constants, createPrivateKey, createPublicKey, privateEncrypt, publicDecrypt } from 'node:crypto';

export type Fields = Record<string, string | null | undefined>;

/** Java's `String.compareTo`, which orders a `TreeMap<String, String>`: UTF-16 code units. */
const utf16Order = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);

/** How the canonical string is built, by the signer and the verifier alike. */
const TREE_MAP_CANONICAL = {
  order: utf16Order,
  skipKeys: ['sign', 'platSign'],
  skipValues: ['', null],
} as const;

/** How that client sends a request. */
export const REQUEST_RULES = {
  headers: {
    rule: { 'Content-Type': 'application/json', 'Content-Encoding': 'UTF-8' },
    represents: 'doPost names the character set as the Content-Encoding, and sends no charset parameter on Content-Type',
  },
  json: {
    rule: { '=': '\\u003d', '&': '\\u0026', '<': '\\u003c', '>': '\\u003e', "'": '\\u0027' } as Record<string, string>,
    represents: "Gson's default HTML-safe escaping, inside URLs and text alike",
  },
  extraFields: {
    rule: { orderType: '0' },
    represents: 'fields of its own the spec does not list, sent and signed like the others',
  },
  unsetOptional: {
    rule: ['blank', 'absent'] as const,
    represents: 'method and redirectUrl left unset: "" in one version of the client, left out in another',
  },
  key: {
    rule: { encoding: 'base64', format: 'der', type: 'pkcs8' } as const,
    represents: 'the merchant private key as the client loads it: PKCS#8, base64 without PEM headers',
  },
  canonical: {
    rule: TREE_MAP_CANONICAL,
    represents: 'its sign(): the values of a TreeMap (key order), without sign/platSign and without empty or null values, joined',
  },
  signing: {
    rule: { chunkBytes: 117, padding: constants.RSA_PKCS1_PADDING },
    represents: 'RSA/ECB/PKCS1Padding over the UTF-8 bytes in 117-byte chunks, each encrypted with the private key on its own',
  },
} as const;

/** How that client checks an answer's `platSign`. */
export const VERIFY_RULES = {
  key: {
    rule: { encoding: 'base64', format: 'der', type: 'spki' } as const,
    represents: 'the platform key as the client loads it: X.509 SubjectPublicKeyInfo, base64 without PEM headers',
  },
  canonical: { rule: TREE_MAP_CANONICAL, represents: 'the same string its signer builds, from the answer' },
  stripQuotes: { rule: '"', represents: 'verifySign removes every double quote from that string before comparing' },
  blocks: {
    rule: { bytes: 128, padding: constants.RSA_PKCS1_PADDING },
    represents: 'the signature base64-decoded, opened in 128-byte blocks with the public key, joined and compared as UTF-8 text',
  },
} as const;

type KeyRule = { readonly encoding: 'base64'; readonly format: 'der'; readonly type: 'pkcs8' | 'spki' };

/** A PEM key as that client's constant holds it (the key rule, applied the other way). */
export function keyConstant(pem: string, rule: KeyRule): string {
  const key = rule.type === 'pkcs8' ? createPrivateKey(pem) : createPublicKey(pem);
  return key.export({ type: rule.type, format: rule.format }).toString(rule.encoding);
}

/** The canonical string by a canonical rule. */
export function familyCanonical(fields: Fields, rule: typeof TREE_MAP_CANONICAL = REQUEST_RULES.canonical.rule): string {
  const skipKeys: readonly string[] = rule.skipKeys;
  const skipValues: readonly unknown[] = rule.skipValues;
  return Object.keys(fields)
    .sort(rule.order)
    .filter((key) => !skipKeys.includes(key) && fields[key] !== undefined && !skipValues.includes(fields[key]))
    .map((key) => fields[key])
    .join('');
}

export function familySign(fields: Fields, privateKeyConstant: string): string {
  const { encoding, format, type } = REQUEST_RULES.key.rule;
  const key = createPrivateKey({ key: Buffer.from(privateKeyConstant, encoding), format, type });
  const plain = Buffer.from(familyCanonical(fields, REQUEST_RULES.canonical.rule), 'utf8');
  const { chunkBytes, padding } = REQUEST_RULES.signing.rule;
  const blocks: Buffer[] = [];
  for (let offset = 0; offset < plain.length; offset += chunkBytes) {
    blocks.push(privateEncrypt({ key, padding }, plain.subarray(offset, offset + chunkBytes)));
  }
  return Buffer.concat(blocks).toString('base64');
}

/** That client's `verifySign` over an answer (or a notification's form fields). */
export function familyVerify(body: Record<string, string>, platformKeyConstant: string): boolean {
  const { encoding, format, type } = VERIFY_RULES.key.rule;
  const key = createPublicKey({ key: Buffer.from(platformKeyConstant, encoding), format, type });
  const signed = Buffer.from(body.platSign ?? '', 'base64');
  const { bytes, padding } = VERIFY_RULES.blocks.rule;
  if (signed.length === 0 || signed.length % bytes !== 0) return false;
  const parts: Buffer[] = [];
  try {
    for (let offset = 0; offset < signed.length; offset += bytes) {
      parts.push(publicDecrypt({ key, padding }, signed.subarray(offset, offset + bytes)));
    }
  } catch {
    return false;
  }
  const expected = familyCanonical(body, VERIFY_RULES.canonical.rule).split(VERIFY_RULES.stripQuotes.rule).join('');
  return Buffer.concat(parts).toString('utf8') === expected;
}

/** Gson's serialisation of a flat map of strings (its HTML-safe escaping included). */
export function gsonJson(fields: Fields): string {
  const escapes = REQUEST_RULES.json.rule;
  const pattern = new RegExp(`[${Object.keys(escapes).join('')}]`, 'g');
  const present = Object.fromEntries(Object.entries(fields).filter(([, value]) => value !== undefined));
  return JSON.stringify(present).replace(pattern, (char) => escapes[char]!);
}

export interface Answer {
  readonly status: number;
  readonly body: Record<string, string>;
}

export function familyClient(baseUrl: string, merchantCode: string, privateKeyPem: string) {
  const privateKey = keyConstant(privateKeyPem, REQUEST_RULES.key.rule);
  return {
    /** The request body as that client sends it (Gson text) and the fields it signed. */
    build(fields: Fields): { text: string; fields: Fields } {
      const all: Fields = { merchantCode, ...fields };
      return { text: gsonJson({ ...all, sign: familySign(all, privateKey) }), fields: all };
    },
    post(path: string, fields: Fields, headers: Record<string, string> = REQUEST_RULES.headers.rule): Promise<Answer> {
      return this.postText(path, this.build(fields).text, headers);
    },
    async postText(path: string, text: string, headers: Record<string, string> = REQUEST_RULES.headers.rule): Promise<Answer> {
      const response = await fetch(`${baseUrl}${path}`, { method: 'POST', headers, body: text });
      return { status: response.status, body: (await response.json()) as Record<string, string> };
    },
  };
}
