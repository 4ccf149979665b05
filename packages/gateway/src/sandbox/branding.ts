/**
 * A merchant's branding as the sandbox dashboard sets it: display name, logo, accent colour and the
 * support contact the hosted page shows.
 * Every rule names its field and echoes nothing (the sandbox's texts never do). A logo is either
 * an absolute http(s) URL or a base64 data URL of a raster image whose bytes really are that
 * image (PNG, JPEG, GIF or WebP, at most 64 KiB): never SVG, which can carry script, and never a
 * type the bytes contradict.
 */
import { z } from 'zod';
import type { MerchantBranding } from '../store/branding.ts';
import { parseSandboxInput, type SandboxInput } from './input.ts';

export const MAX_DISPLAY_NAME = 60;
export const MAX_LOGO_BYTES = 64 * 1024;
export const MAX_LOGO_URL = 2048;
export const MAX_SUPPORT_CONTACT = 120;

const NAME_RULE = `must be 1 to ${MAX_DISPLAY_NAME} characters without control characters, or empty`;
const LOGO_RULE = `must be an http(s) URL or a base64 data URL of a PNG, JPEG, GIF or WebP image of at most ${MAX_LOGO_BYTES / 1024} KiB, or empty`;
const COLOR_RULE = 'must be a colour as #rrggbb, or empty';
const SUPPORT_RULE = `must be 1 to ${MAX_SUPPORT_CONTACT} characters without control characters (an email, a phone number or a URL), or empty`;

const plainLine = (max: number) => (value: string) => [...value].length <= max && !/[\u0000-\u001f\u007f-\u009f]/.test(value);

/** The first bytes each accepted image type starts with. */
const SIGNATURES: Readonly<Record<string, (bytes: Buffer) => boolean>> = {
  'image/png': (b) => b.subarray(0, 8).equals(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])),
  'image/jpeg': (b) => b[0] === 0xff && b[1] === 0xd8 && b[2] === 0xff,
  'image/gif': (b) => ['GIF87a', 'GIF89a'].includes(b.subarray(0, 6).toString('latin1')),
  'image/webp': (b) => b.subarray(0, 4).toString('latin1') === 'RIFF' && b.subarray(8, 12).toString('latin1') === 'WEBP',
};

const DATA_URL = /^data:(image\/(?:png|jpeg|gif|webp));base64,([A-Za-z0-9+/]+={0,2})$/;

/** Whether `value` is a logo we accept: pure, table-tested. */
export function isAcceptableLogo(value: string): boolean {
  const data = DATA_URL.exec(value);
  if (data) {
    const [, type, base64] = data;
    if (base64!.length % 4 !== 0) return false;
    const bytes = Buffer.from(base64!, 'base64');
    return bytes.length > 0 && bytes.length <= MAX_LOGO_BYTES && SIGNATURES[type!]!(bytes);
  }
  if (value.length > MAX_LOGO_URL || !/^https?:\/\//i.test(value)) return false;
  try {
    const url = new URL(value);
    return (url.protocol === 'http:' || url.protocol === 'https:') && !url.username && !url.password && url.href === value;
  } catch {
    return false;
  }
}

/** Text from a form: trimmed; empty means "not set". */
const optionalText = (check: (value: string) => boolean, message: string) =>
  z
    .string({ error: message })
    .transform((value) => value.trim())
    .refine((value) => value === '' || check(value), { error: message })
    .transform((value) => (value === '' ? null : value))
    .optional()
    .transform((value) => value ?? null);

export const brandingFormSchema = z.strictObject({
  displayName: optionalText(plainLine(MAX_DISPLAY_NAME), NAME_RULE),
  logo: optionalText(isAcceptableLogo, LOGO_RULE),
  accentColor: optionalText((value) => /^#[0-9a-fA-F]{6}$/.test(value), COLOR_RULE),
  supportContact: optionalText(plainLine(MAX_SUPPORT_CONTACT), SUPPORT_RULE),
});

/** The form's fields as branding, or the message naming what is wrong. */
export function parseBranding(input: unknown): SandboxInput<MerchantBranding> {
  const parsed = parseSandboxInput(brandingFormSchema, input);
  if (!parsed.ok) return parsed;
  const { displayName, logo, accentColor, supportContact } = parsed.value;
  return { ok: true, value: { displayName, logo, accentColor: accentColor?.toLowerCase() ?? null, supportContact } };
}
