/**
 * QRIS payloads: the EMVCo merchant-presented QR format that Indonesian QRIS uses. A payload is a
 * string of TLV data objects (2-digit tag, 2-digit length, value) closed by tag 63, a CRC-16/
 * CCITT-FALSE over everything before it, including "6304". Any QR library can encode the string;
 * a wallet app checks the CRC, reads the amount (tag 54) and pays the reference (tag 62).
 *
 * The acquirer identifiers below are ours (a sandbox acquirer); the structure is the standard's.
 */

/** CRC-16/CCITT-FALSE (poly 0x1021, init 0xFFFF, no reflection, no final XOR), as 4 upper-case hex digits. */
export function crc16CcittFalse(text: string): string {
  let crc = 0xffff;
  for (const byte of Buffer.from(text, 'utf8')) {
    crc ^= byte << 8;
    for (let bit = 0; bit < 8; bit++) {
      crc = crc & 0x8000 ? ((crc << 1) ^ 0x1021) & 0xffff : (crc << 1) & 0xffff;
    }
  }
  return crc.toString(16).toUpperCase().padStart(4, '0');
}

function tlv(tag: string, value: string): string {
  if (value.length > 99) throw new RangeError(`QRIS data object ${tag} is longer than 99 characters`);
  return `${tag}${String(value.length).padStart(2, '0')}${value}`;
}

/** EMVCo allows a restricted alphanumeric set in names; everything else is dropped. */
function emvText(value: string, maxLength: number, fallback: string): string {
  const cleaned = value.normalize('NFKD').replace(/[^A-Za-z0-9 .,&'-]/g, '').trim().slice(0, maxLength).trim();
  return cleaned.length > 0 ? cleaned : fallback;
}

export interface QrisPayloadInput {
  /** Shown by the wallet app (tag 59, at most 25 characters). */
  readonly merchantName: string;
  /** The merchant's code at the acquirer (tag 26.02). */
  readonly merchantId: string;
  /** Whole rupiah (tag 54). */
  readonly amount: number;
  /** Unique per order: the bill number the payment is matched by (tag 62.01). */
  readonly reference: string;
  /** 15-digit national merchant id (tag 51.02). */
  readonly nmid: string;
  readonly city?: string;
}

/** A dynamic (single-use, amount included) QRIS payload with its CRC. */
export function buildQrisPayload(input: QrisPayloadInput): string {
  const merchantAccount =
    tlv('00', 'ID.CO.TOMBOLBAYAR.WWW') +
    tlv('01', `936009990${input.nmid.slice(-9)}`) +
    tlv('02', emvText(input.merchantId, 15, 'MERCHANT')) +
    tlv('03', 'UMI');
  const qrisDomain = tlv('00', 'ID.CO.QRIS.WWW') + tlv('02', `ID${input.nmid}`) + tlv('03', 'UMI');
  const additional = tlv('01', input.reference.slice(0, 25)) + tlv('07', 'TOMBOLBAYAR');
  const body =
    tlv('00', '01') +
    tlv('01', '12') + // 12 = dynamic: valid for this one payment
    tlv('26', merchantAccount) +
    tlv('51', qrisDomain) +
    tlv('52', '5999') +
    tlv('53', '360') + // ISO 4217 numeric for IDR
    tlv('54', String(input.amount)) +
    tlv('58', 'ID') +
    tlv('59', emvText(input.merchantName, 25, 'MERCHANT')) +
    tlv('60', emvText(input.city ?? 'JAKARTA', 15, 'JAKARTA')) +
    tlv('62', additional) +
    '6304';
  return body + crc16CcittFalse(body);
}

/** The top-level data objects of a payload, by tag (nested objects stay as their raw value). */
export function parseTlv(payload: string): Map<string, string> {
  const objects = new Map<string, string>();
  let offset = 0;
  while (offset < payload.length) {
    const tag = payload.slice(offset, offset + 2);
    const length = Number(payload.slice(offset + 2, offset + 4));
    if (!/^\d{2}$/.test(tag) || !Number.isInteger(length) || offset + 4 + length > payload.length) {
      throw new SyntaxError(`malformed TLV at offset ${offset}`);
    }
    objects.set(tag, payload.slice(offset + 4, offset + 4 + length));
    offset += 4 + length;
  }
  return objects;
}

/** True when the payload ends in tag 63 holding the CRC of everything before its value. */
export function hasValidCrc(payload: string): boolean {
  if (payload.length < 8 || payload.slice(-8, -4) !== '6304') return false;
  return crc16CcittFalse(payload.slice(0, -4)) === payload.slice(-4);
}
