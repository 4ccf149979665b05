/**
 * Key files on disk. Private keys are written with mode 0600 and never printed; the platform key
 * is created on first start (exclusively, so two processes starting at once agree on one key).
 * Folders the CLI owns (the --data directory and its `merchants/`) are 0700, an existing one
 * tightened when an older version left it wider; a folder the operator named (`--keys-dir`) is
 * created 0700 but otherwise left as it is, and no parent folder is ever changed.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { preparePrivateFolder } from '@tombolbayar/store-kit';
import { createPublicKey } from 'node:crypto';
import { join, resolve } from 'node:path';
import { generateKeyPair } from '@tombolbayar/protocol/node';
import { UsageError } from './args.ts';

export const PLATFORM_PRIVATE_FILE = 'platform-private.pem';
export const PLATFORM_PUBLIC_FILE = 'platform-public.pem';

export interface PlatformKey {
  readonly privateKeyPem: string;
  readonly publicKeyPem: string;
  readonly file: string;
  readonly created: boolean;
}

const errorCode = (error: unknown) => (error as { code?: string }).code;

function readKeyFile(file: string, flag: string): string {
  try {
    return readFileSync(file, 'utf8');
  } catch (error) {
    const code = (error as { code?: string }).code;
    throw new UsageError(`${flag}: cannot read ${file}${code ? ` (${code})` : ''}`);
  }
}

function publicOf(privateKeyPem: string, file: string): string {
  try {
    return createPublicKey(privateKeyPem).export({ type: 'spki', format: 'pem' }).toString();
  } catch {
    throw new UsageError(`--platform-key: ${file} does not hold a PEM private key`);
  }
}

/** Write a new file only if it does not exist yet; false when it already did. */
export function writeNewFile(file: string, content: string, mode: number): boolean {
  try {
    writeFileSync(file, content, { flag: 'wx', mode });
    return true;
  } catch (error) {
    if ((error as { code?: string }).code === 'EEXIST') return false;
    throw error;
  }
}

/** The file's text, or undefined when it does not exist. */
function readIfExists(file: string, flag: string): string | undefined {
  try {
    return readFileSync(file, 'utf8');
  } catch (error) {
    if (errorCode(error) === 'ENOENT') return undefined;
    return readKeyFile(file, flag); // throws the UsageError naming the problem
  }
}

/**
 * The platform key from `--platform-key`, or from the data dir, generated there when absent (only
 * then: generating an RSA key pair takes a noticeable moment). `generate` is the protocol's.
 */
export function loadOrCreatePlatformKey(
  options: { platformKeyFile?: string; dataDir: string },
  generate: () => { privateKey: string } = generateKeyPair,
): PlatformKey {
  if (options.platformKeyFile) {
    const file = resolve(options.platformKeyFile);
    const privateKeyPem = readKeyFile(file, '--platform-key');
    if (!/PRIVATE KEY/.test(privateKeyPem)) throw new UsageError(`--platform-key: ${file} does not hold a PEM private key`);
    return { privateKeyPem, publicKeyPem: publicOf(privateKeyPem, file), file, created: false };
  }
  const dataDir = resolve(options.dataDir);
  preparePrivateFolder(dataDir, { ownsFolder: true });
  const file = join(dataDir, PLATFORM_PRIVATE_FILE);
  let privateKeyPem = readIfExists(file, '--data');
  let created = false;
  if (privateKeyPem === undefined) {
    const generated = generate().privateKey;
    // Exclusively: of two processes starting at once, one writes and the other reads its key.
    created = writeNewFile(file, generated, 0o600);
    privateKeyPem = created ? generated : readKeyFile(file, '--data');
  }
  const publicKeyPem = publicOf(privateKeyPem, file);
  writeFileSync(join(dataDir, PLATFORM_PUBLIC_FILE), publicKeyPem, { mode: 0o644 });
  return { privateKeyPem, publicKeyPem, file, created };
}

/** The public keys named by `--merchant CODE=FILE`. */
export function readMerchantKeys(merchants: readonly { merchantCode: string; publicKeyFile: string }[]) {
  return merchants.map((merchant) => ({
    merchantCode: merchant.merchantCode,
    publicKey: readKeyFile(resolve(merchant.publicKeyFile), `--merchant ${merchant.merchantCode}`),
  }));
}
