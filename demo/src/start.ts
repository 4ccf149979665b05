/**
 * `npm start`: the demo shop on http://127.0.0.1:3000 and the sandbox gateway on
 * http://127.0.0.1:4010 (PORT and GATEWAY_PORT override), until Ctrl-C.
 */
import { readyMessage, startDemo } from './demo.ts';

function port(name: string, fallback: number): number {
  const value = process.env[name];
  if (value === undefined || value === '') return fallback;
  const parsed = Number(value);
  if (!Number.isInteger(parsed) || parsed < 0 || parsed > 65535) {
    console.error(`${name} must be a port number from 0 to 65535, got "${value}"`);
    process.exit(1);
  }
  return parsed;
}

const demo = await startDemo({ shopPort: port('PORT', 3000), gatewayPort: port('GATEWAY_PORT', 4010) });
console.log(readyMessage(demo));

let stopping = false;
async function stop(signal: string) {
  if (stopping) return;
  stopping = true;
  console.log(`\n${signal}: shutting down...`);
  const timer = setTimeout(() => process.exit(1), 10_000);
  timer.unref();
  await demo.close();
  process.exit(0);
}
process.on('SIGINT', () => void stop('SIGINT'));
process.on('SIGTERM', () => void stop('SIGTERM'));
