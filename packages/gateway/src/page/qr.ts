/**
 * The QRIS image: the order's payload string (an EMVCo merchant-presented QR payload, built by the
 * gateway core with its CRC) encoded by the `qrcode` library as a PNG data URL. PNG rather than
 * SVG because customers paying from the same phone save the image and open it from their gallery
 * in the banking app, and galleries do not read SVG.
 */
import QRCode from 'qrcode';

/** Error correction M, as QRIS acquirers print them; a 4-module quiet zone, as the standard asks. */
export const QR_OPTIONS = { errorCorrectionLevel: 'M', margin: 4, scale: 6 } as const;

export interface QrImage {
  readonly dataUrl: string;
  /** Width and height of the PNG in pixels, for the `<img>` size attributes. */
  readonly sizePx: number;
}

const cache = new Map<string, QrImage>();
const CACHE_LIMIT = 200;

/** Offset of the width in a PNG: 8 bytes of signature, then the IHDR chunk's length and type. */
const PNG_WIDTH_OFFSET = 16;

export async function qrImage(payload: string): Promise<QrImage> {
  const hit = cache.get(payload);
  if (hit) return hit;
  // The code is built once; the image's size is read back from the PNG it became (a square).
  const png = await QRCode.toBuffer(payload, { ...QR_OPTIONS, type: 'png' });
  const image = { dataUrl: `data:image/png;base64,${png.toString('base64')}`, sizePx: png.readUInt32BE(PNG_WIDTH_OFFSET) };
  if (cache.size >= CACHE_LIMIT) cache.delete(cache.keys().next().value as string);
  cache.set(payload, image);
  return image;
}
