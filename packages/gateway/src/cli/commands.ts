/** The CLI's one-shot commands: create a merchant, update or brand it, list merchants, print the platform key. */
import { join, resolve } from 'node:path';
import { generateKeyPair, merchantCodeField, parseWith } from '@tombolbayar/protocol/node';
import { MerchantRegistrationError, registerMerchant, updateMerchantNotify } from '../domain/merchants.ts';
import { DEFAULT_NOTIFICATION_KINDS, type NotificationKind } from '../domain/notify-kinds.ts';
import { databaseIn, SQLITE_FILE_NAME, type GatewayOptions } from '../options.ts';
import type { DatabaseConfig } from '../store/database.ts';
import { findMerchant, listMerchants } from '../store/merchants.ts';
import { openStore } from '../store/open.ts';
import { countOrders } from '../store/orders.ts';
import { UsageError, type BrandFlags, type CliConfig } from './args.ts';
import { findBranding, NO_BRANDING, saveBranding, type MerchantBranding } from '../store/branding.ts';
import { parseBranding } from '../sandbox/branding.ts';
import { preparePrivateFolder } from '@tombolbayar/store-kit';
import { loadOrCreatePlatformKey, writeNewFile } from './key-files.ts';

export type Output = (line: string) => void;

/** The database the CLI's options name, as `createGateway` takes it. */
export function databaseOptionOf(config: CliConfig): NonNullable<GatewayOptions['database']> {
  if (config.databaseUrl) {
    return { kind: 'postgres', url: config.databaseUrl, ...(config.databaseSchema ? { schema: config.databaseSchema } : {}) };
  }
  return { kind: 'sqlite', file: join(resolve(config.dataDir), SQLITE_FILE_NAME) };
}

/**
 * The same, as the one-shot commands open it: SQLite in the --data directory, which is the CLI's
 * own folder (tightened to 0700 when an older version left it wider), as `createGateway` judges it.
 */
export function databaseConfigOf(config: CliConfig): DatabaseConfig {
  return databaseIn(resolve(config.dataDir), databaseOptionOf(config));
}

export function printPlatformKey(config: CliConfig, out: Output): void {
  const key = loadOrCreatePlatformKey({ dataDir: config.dataDir, ...(config.platformKeyFile ? { platformKeyFile: config.platformKeyFile } : {}) });
  out(key.publicKeyPem.trimEnd());
}

/** Codes that name key files safely; the wire allows more, but no path separators reach a file name. */
const FILE_SAFE_CODE = /^[A-Za-z0-9][A-Za-z0-9._-]*$/;

export async function createMerchant(
  config: CliConfig,
  command: { merchantCode: string; name?: string; keysDir?: string; notify?: readonly NotificationKind[] },
  out: Output,
): Promise<void> {
  const code = parseWith(merchantCodeField, command.merchantCode);
  if (!code.ok) throw new UsageError(`merchant create: CODE ${code.issues[0]?.message ?? 'is invalid'}`);
  if (!FILE_SAFE_CODE.test(command.merchantCode)) {
    throw new UsageError("merchant create: CODE must be letters, digits, '.', '_' or '-' (it names the key files)");
  }
  const keysDir = resolve(command.keysDir ?? join(config.dataDir, 'merchants'));
  const privateFile = join(keysDir, `${command.merchantCode}-private.pem`);
  const publicFile = join(keysDir, `${command.merchantCode}-public.pem`);
  const database = await openStore(databaseConfigOf(config));
  try {
    if (await findMerchant(database.db, command.merchantCode)) {
      throw new UsageError(`merchant ${command.merchantCode} already exists; to rotate its key, start the gateway with --merchant ${command.merchantCode}=NEW_PUBLIC_KEY_FILE`);
    }
    const pair = generateKeyPair();
    // DATA/merchants is the CLI's own folder; a --keys-dir the operator named is left as it is.
    preparePrivateFolder(keysDir, { ownsFolder: command.keysDir === undefined });
    if (!writeNewFile(privateFile, pair.privateKey, 0o600)) throw new UsageError(`${privateFile} already exists; not overwriting it`);
    writeNewFile(publicFile, pair.publicKey, 0o644);
    try {
      await registerMerchant(database.db, { merchantCode: command.merchantCode, publicKey: pair.publicKey, name: command.name, notify: command.notify }, Date.now());
    } catch (error) {
      if (error instanceof MerchantRegistrationError) throw new UsageError(error.message);
      throw error;
    }
  } finally {
    await database.close();
  }
  const platform = loadOrCreatePlatformKey({ dataDir: config.dataDir, ...(config.platformKeyFile ? { platformKeyFile: config.platformKeyFile } : {}) });
  out(`Merchant ${command.merchantCode} created${command.name ? ` (${command.name})` : ''}.`);
  out(`  private key (keep secret, sign requests with it): ${privateFile}`);
  out(`  public key (registered with the gateway):         ${publicFile}`);
  out(`  platform public key (verify platSign with it):     ${join(resolve(config.dataDir), 'platform-public.pem')}`);
  out(`  notified of: ${describeKinds(command.notify ?? DEFAULT_NOTIFICATION_KINDS)}`);
  if (platform.created) out(`  (a new platform key was generated in ${platform.file})`);
}

/** `paid, failed` and what it means for a family handler. */
function describeKinds(kinds: readonly NotificationKind[]): string {
  const extra = kinds.length === 1 ? ' (as the family; add failed,expired with: merchant update CODE --notify paid,failed,expired)' : '';
  return `${kinds.join(', ')}${extra}`;
}

/** Which final states merchant CODE is notified of, on the store the flags name (either mode). */
export async function updateMerchant(config: CliConfig, command: { merchantCode: string; notify: readonly NotificationKind[] }, out: Output): Promise<void> {
  const database = await openStore(databaseConfigOf(config));
  try {
    if (!(await findMerchant(database.db, command.merchantCode))) {
      throw new UsageError(`no merchant ${command.merchantCode}; create it first: tombolbayar-gateway merchant create ${command.merchantCode}`);
    }
    const kinds = await updateMerchantNotify(database.db, command.merchantCode, command.notify, Date.now());
    out(`Merchant ${command.merchantCode} is notified of: ${kinds.join(', ')}.`);
    out('  (a running gateway applies it to the next order that closes; notifications already queued stay queued)');
  } finally {
    await database.close();
  }
}

const BRAND_FLAG: Readonly<Record<keyof MerchantBranding, string>> = {
  displayName: '--name',
  logo: '--logo',
  accentColor: '--accent',
  supportContact: '--support',
};

/**
 * How the hosted page shows a merchant (the same rules as the sandbox dashboard's form): the flags
 * given replace the stored values, an empty one unsets it, the others stay. Works on the store
 * itself, so in production mode too (which has no dashboard).
 */
export async function brandMerchant(config: CliConfig, command: { merchantCode: string; changes: BrandFlags }, out: Output): Promise<void> {
  const database = await openStore(databaseConfigOf(config));
  try {
    if (!(await findMerchant(database.db, command.merchantCode))) {
      throw new UsageError(`no merchant ${command.merchantCode}; create it first: tombolbayar-gateway merchant create ${command.merchantCode}`);
    }
    const stored = (await findBranding(database.db, command.merchantCode)) ?? NO_BRANDING;
    const form = Object.fromEntries(Object.entries({ ...stored, ...command.changes }).map(([key, value]) => [key, value ?? '']));
    const parsed = parseBranding(form);
    if (!parsed.ok) {
      throw new UsageError(parsed.message.replace(/\b(displayName|logo|accentColor|supportContact):/g, (_, field: keyof MerchantBranding) => `${BRAND_FLAG[field]}:`));
    }
    await saveBranding(database.db, command.merchantCode, parsed.value, Date.now());
    const b = parsed.value;
    out(`Merchant ${command.merchantCode} on the payment page:`);
    out(`  name:    ${b.displayName ?? '(the registered name)'}`);
    out(`  logo:    ${b.logo === null ? '(none)' : b.logo.startsWith('data:') ? `(an image, ${b.logo.length} characters)` : b.logo}`);
    out(`  colour:  ${b.accentColor ?? '(the page default)'}`);
    out(`  support: ${b.supportContact ?? '(a generic line)'}`);
  } finally {
    await database.close();
  }
}

export async function printMerchants(config: CliConfig, out: Output): Promise<void> {
  const database = await openStore(databaseConfigOf(config));
  try {
    const merchants = await listMerchants(database.db);
    if (merchants.length === 0) {
      out('No merchants yet. Create one: tombolbayar-gateway merchant create CODE');
      return;
    }
    const rows = [['CODE', 'NAME', 'ORDERS', 'NOTIFY', 'REGISTERED']];
    for (const merchant of merchants) {
      const orders = await countOrders(database.db, merchant.merchantCode);
      rows.push([merchant.merchantCode, merchant.name ?? '-', String(orders), merchant.notify.join(','), new Date(merchant.createdAt).toISOString()]);
    }
    const widths = rows[0]!.map((_, column) => Math.max(...rows.map((row) => row[column]!.length)));
    for (const row of rows) out(row.map((cell, column) => cell.padEnd(widths[column]!)).join('  ').trimEnd());
  } finally {
    await database.close();
  }
}
