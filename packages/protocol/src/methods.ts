/**
 * The payment-method table of spec 2.4 and the result codes of spec 7: the one place in the
 * project that lists them. Browser-safe and dependency-free, so `<pay-button>` can import it
 * without pulling in zod or `node:crypto`.
 */

/** How the customer pays: at a bank, at a convenience store, by scanning a QR code, or in an e-wallet app. */
export type MethodKind = 'virtual-account' | 'retail' | 'qr' | 'e-wallet';

export interface MethodInfo {
  /** The canonical code sent on the wire, e.g. `VA_BCA`. */
  readonly code: MethodCode;
  readonly kind: MethodKind;
  /** What a customer reads, e.g. `BCA Virtual Account`. */
  readonly displayName: string;
  /** The code without its prefix, as the spec's payment-link sample sends it (`BCA`, `DANA`, `ALFAMART`). */
  readonly alias: string;
}

/** Every method code of spec 2.4, in the spec's order. */
export const METHOD_CODES = [
  'VA_BCA',
  'VA_MANDIRI',
  'VA_PERMATA',
  'VA_CIMB',
  'VA_BNI',
  'VA_BRI',
  'VA_BNC',
  'VA_SAMPOERNA',
  'VA_MAYBANK',
  'VA_DANAMON',
  'RETAIL_ALFAMART',
  'QRIS',
  'EWALLET_DANA',
  'EWALLET_OVO',
] as const;

export type MethodCode = (typeof METHOD_CODES)[number];

const DISPLAY_NAMES: Record<MethodCode, string> = {
  VA_BCA: 'BCA Virtual Account',
  VA_MANDIRI: 'Mandiri Virtual Account',
  VA_PERMATA: 'Permata Virtual Account',
  VA_CIMB: 'CIMB Niaga Virtual Account',
  VA_BNI: 'BNI Virtual Account',
  VA_BRI: 'BRI Virtual Account',
  VA_BNC: 'Bank Neo Commerce Virtual Account',
  VA_SAMPOERNA: 'Sahabat Sampoerna Virtual Account',
  VA_MAYBANK: 'Maybank Virtual Account',
  VA_DANAMON: 'Danamon Virtual Account',
  RETAIL_ALFAMART: 'Alfamart',
  QRIS: 'QRIS',
  EWALLET_DANA: 'DANA',
  EWALLET_OVO: 'OVO',
};

function kindOf(code: MethodCode): MethodKind {
  if (code.startsWith('VA_')) return 'virtual-account';
  if (code.startsWith('RETAIL_')) return 'retail';
  if (code.startsWith('EWALLET_')) return 'e-wallet';
  return 'qr';
}

function aliasOf(code: MethodCode): string {
  const underscore = code.indexOf('_');
  return underscore === -1 ? code : code.slice(underscore + 1);
}

/** The method table, keyed by canonical code. */
export const METHODS: Readonly<Record<MethodCode, MethodInfo>> = Object.freeze(
  Object.fromEntries(
    METHOD_CODES.map((code) => [
      code,
      Object.freeze({ code, kind: kindOf(code), displayName: DISPLAY_NAMES[code], alias: aliasOf(code) }),
    ]),
  ) as Record<MethodCode, MethodInfo>,
);

/** The kinds in the order a method picker shows them. */
export const METHOD_KINDS: readonly MethodKind[] = ['virtual-account', 'qr', 'e-wallet', 'retail'];

const BY_ALIAS = new Map<string, MethodCode>(METHOD_CODES.map((code) => [METHODS[code].alias, code]));

export function isMethodCode(value: unknown): value is MethodCode {
  return typeof value === 'string' && Object.prototype.hasOwnProperty.call(METHODS, value);
}

/**
 * The canonical code for a code or its un-prefixed alias (`BCA` -> `VA_BCA`), or `undefined` when
 * the value names no method. Matching is exact: the wire format is case-sensitive.
 */
export function resolveMethod(value: string): MethodCode | undefined {
  if (isMethodCode(value)) return value;
  return BY_ALIAS.get(value);
}

/** The methods of one kind, in the spec's order. */
export function methodsOfKind(kind: MethodKind): MethodInfo[] {
  return METHOD_CODES.filter((code) => METHODS[code].kind === kind).map((code) => METHODS[code]);
}

/** `platRespCode` values of spec 7. */
export const RESULT_CODES = ['SUCCESS', 'FAIL', 'UNKNOWN', 'NOTEXIST', 'ERROR'] as const;
export type ResultCode = (typeof RESULT_CODES)[number];

/** Order states: a PENDING order ends in exactly one of the other three. */
export const ORDER_STATUSES = ['PENDING', 'PAID', 'EXPIRED', 'FAILED'] as const;
export type OrderStatus = (typeof ORDER_STATUSES)[number];
