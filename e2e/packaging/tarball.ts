/** What a packed tarball (`npm pack`) holds: its file names and size, read with tar. */
import { spawn } from 'node:child_process';
import { statSync } from 'node:fs';
import { basename } from 'node:path';

export interface TarballSummary {
  readonly name: string;
  readonly bytes: number;
  /** Paths inside the archive, e.g. `package/dist/index.js`. */
  readonly files: readonly string[];
}

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
