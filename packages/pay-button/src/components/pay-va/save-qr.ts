/** Saving `<pay-va>`'s QRIS code as an image. */
import type { QrCode } from './va-api.ts';

/**
 * Saves the QR code as a PNG (10 px a module): a customer paying on this very phone cannot scan
 * its own screen, but every QRIS app can open an image from the gallery. Drawn from the same
 * path data, so nothing is fetched.
 */
export function saveQr(qr: QrCode, orderNum: string): void {
  const scale = 10;
  const canvas = document.createElement('canvas');
  canvas.width = canvas.height = qr.size * scale;
  const g = canvas.getContext('2d')!;
  g.fillStyle = '#fff';
  g.fillRect(0, 0, canvas.width, canvas.height);
  g.scale(scale, scale);
  g.fillStyle = '#000';
  g.fill(new Path2D(qr.path));
  canvas.toBlob((blob) => {
    const link = document.createElement('a');
    link.href = URL.createObjectURL(blob!);
    link.download = `QRIS-${orderNum}.png`;
    link.click();
    setTimeout(() => URL.revokeObjectURL(link.href), 6e4);
  }, 'image/png');
}
