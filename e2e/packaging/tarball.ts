/** The published packages as tarballs (`npm pack`), and what a tarball holds. */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdirSync, readdirSync, statSync } from 'node:fs';
import { basename, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { succeed } from './processes.ts';

const ROOT = fileURLToPath(new URL('..', import.meta.url));

/** Every published package, in the order `npm pack` is given them. */
export const PACKAGES = ['@tombolbayar/protocol', '@tombolbayar/store-kit', '@tombolbayar/gateway', '@tombolbayar/server', '@tombolbayar/express', '@tombolbayar/pay-button'];

/**
 * `npm pack` every published package into `destination` (`prepack` builds each first, as
 * `npm publish` would); resolves with the tarballs' paths.
 */
export async function packPackages(destination: string): Promise<string[]> {
  mkdirSync(destination, { recursive: true });
  await succeed('npm', ['pack', '--silent', '--pack-destination', destination, ...PACKAGES.flatMap((name) => ['-w', name])], { cwd: ROOT, timeoutMs: 180_000 });
  const files = readdirSync(destination).filter((name) => name.endsWith('.tgz')).map((name) => join(destination, name));
  assert.equal(files.length, PACKAGES.length, `one tarball per package: ${files.join(', ')}`);
  return files;
}

export interface TarballSummary {
  readonly name: string;
  readonly bytes: number;
  /** Paths inside the archive, e.g. `package/dist/index.js`. */
  readonly files: readonly string[];
}

/** What a packed tarball holds: its file names and size, read with tar. */
export function listTarball(file: string): Promise<TarballSummary> {
  return new Promise((resolve, reject) => {
    const tar = spawn('tar', ['-tzf', file], { stdio: ['ignore', 'pipe', 'inherit'] });
    let listing = '';
    tar.stdout.on('data', (chunk: Buffer) => (listing += chunk.toString()));
    tar.once('error', reject);
    // 'close', not 'exit': the process may exit before its stdout has been read to the end.
    tar.once('close', (code) => {
      if (code !== 0) return reject(new Error(`tar -tzf ${file} exited with ${code}`));
      const files = listing.split('\n').filter((line) => line && !line.endsWith('/'));
      resolve({ name: basename(file), bytes: statSync(file).size, files });
    });
  });
}
