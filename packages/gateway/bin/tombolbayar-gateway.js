#!/usr/bin/env node
// The CLI, compiled to dist/ by `npm run build` (which `npm pack` runs through `prepack`).
import { setFlagsFromString } from 'node:v8';

// Keep V8's young generation at its starting size (1 MB semi-spaces) instead of letting it grow
// to 16 MB ones under load: 144 -> 118 MB resident for 100,000 orders, ~6 % more CPU per query
// (README, "Memory"). The growth factor is read each time the young generation would grow,
// so setting it at run time works, unlike --max-semi-space-size (fixed when the heap is made),
// and needs no shebang flag (`env -S` is not portable) or second process. Starting a worker
// thread (the SQLite checkpointer) resets V8's flags, so it is applied again once the gateway
// listens. An operator's own setting (node flag or NODE_OPTIONS) wins.
const own = [...process.execArgv, process.env.NODE_OPTIONS ?? ''].join(' ');
const capYoungGeneration = () => setFlagsFromString('--semi-space-growth-factor=1');
const capped = !/--(max[-_]semi[-_]space[-_]size|semi[-_]space[-_]growth[-_]factor)\b/.test(own);
if (capped) capYoungGeneration();

const { main } = await import('../dist/cli.js');
const code = await main(process.argv.slice(2));
if (capped) capYoungGeneration();
if (code !== undefined) process.exitCode = code;
