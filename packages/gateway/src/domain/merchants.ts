/**
 * Registering merchants. Only a public key is ever stored: a private key handed over by mistake
 * is refused (and never echoed), and every key is normalised to SPKI PEM.
 */
import { createPublicKey } from 'node:crypto';
import { merchantCodeField, parseWith } from '@tombolbayar/protocol';
import { requestKeySizeProblem } from '@tombolbayar/protocol/node';
import type { Executor } from '../store/executor.ts';
import { saveMerchantNotify, upsertMerchant } from '../store/merchants.ts';
import { parseNotificationKinds, type NotificationKind } from './notify-kinds.ts';

export class MerchantRegistrationError extends Error {
  override readonly name = 'MerchantRegistrationError';
}

/** The key as SPKI PEM, or a MerchantRegistrationError saying what is wrong with it. */
export function normalizeMerchantPublicKey(pem: string): string {
  if (/PRIVATE KEY/.test(pem)) {
    throw new MerchantRegistrationError('publicKey: must be the merchant public key, not a private key (keep that one secret)');
  }
  let key;
  try {
    key = createPublicKey(pem);
  } catch {
    throw new MerchantRegistrationError('publicKey: is not a valid PEM public key');
  }
  if (key.asymmetricKeyType !== 'rsa') throw new MerchantRegistrationError('publicKey: must be an RSA key');
  const bits = key.asymmetricKeyDetails?.modulusLength ?? 0;
  if (bits < 1024) throw new MerchantRegistrationError('publicKey: must be at least 1024 bits');
  // A key whose every signature is longer than the family's 512-character `sign` could never create an order.
  const tooLarge = requestKeySizeProblem(key);
  if (tooLarge) throw new MerchantRegistrationError(`publicKey: ${tooLarge}`);
  return key.export({ type: 'spki', format: 'pem' }).toString();
}

/** The kinds as given (a list, or `paid,failed` text), or a MerchantRegistrationError naming `notify`. */
export function notifyKindsOf(input: string | readonly unknown[]): readonly NotificationKind[] {
  const parsed = parseNotificationKinds(input);
  if (!parsed.ok) throw new MerchantRegistrationError(`notify: ${parsed.message}`);
  return parsed.value;
}

export async function registerMerchant(
  db: Executor,
  merchant: { merchantCode: string; publicKey: string; name?: string | undefined; notify?: readonly unknown[] | undefined },
  now: number,
): Promise<void> {
  const code = parseWith(merchantCodeField, merchant.merchantCode);
  if (!code.ok) throw new MerchantRegistrationError(`merchantCode: ${code.issues[0]?.message ?? 'is invalid'}`);
  if (merchant.name !== undefined && (merchant.name.length === 0 || merchant.name.length > 64)) {
    throw new MerchantRegistrationError('name: must be 1 to 64 characters');
  }
  const notify = merchant.notify === undefined ? undefined : notifyKindsOf(merchant.notify);
  await upsertMerchant(db, { merchantCode: code.value, publicKey: normalizeMerchantPublicKey(merchant.publicKey), name: merchant.name ?? null, notify }, now);
}

/**
 * Change which final states a registered merchant is notified of (the CLI's `merchant update`,
 * the dashboard, `gateway.updateMerchant`). Notifications already queued stay queued.
 */
export async function updateMerchantNotify(db: Executor, merchantCode: string, notify: string | readonly unknown[], now: number): Promise<readonly NotificationKind[]> {
  const kinds = notifyKindsOf(notify);
  if (!(await saveMerchantNotify(db, merchantCode, kinds, now))) throw new MerchantRegistrationError(`merchantCode: no merchant ${merchantCode}`);
  return kinds;
}
