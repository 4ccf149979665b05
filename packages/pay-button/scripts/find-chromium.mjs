#!/usr/bin/env node
/**
 * Finds the Chromium the tests run in: $CHROME_PATH, else Debian's /usr/bin/chromium. When there
 * is none it says how to install it and fails; as root with CI=true it installs it itself.
 * Prints the path found (used by web-test-runner.config.mjs through the same function).
 */
import { accessSync, constants } from 'node:fs';
import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const INSTALL = 'apt-get install -y --no-install-recommends chromium';

export function findChromium() {
  for (const candidate of [process.env.CHROME_PATH, '/usr/bin/chromium']) {
    if (!candidate) continue;
    try {
      accessSync(candidate, constants.X_OK);
      return candidate;
    } catch {
      // Try the next one.
    }
  }
  return undefined;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  let found = findChromium();
  if (!found && process.env.CI === 'true' && process.getuid?.() === 0) {
    execFileSync('sh', ['-c', `apt-get update && ${INSTALL}`], { stdio: 'inherit' });
    found = findChromium();
  }
  if (!found) {
    console.error(INSTALL);
    process.exit(1);
  }
  console.log(found);
}
