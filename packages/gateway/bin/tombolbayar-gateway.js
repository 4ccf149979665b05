#!/usr/bin/env node
// The CLI, compiled to dist/ by `npm run build` (which `npm pack` runs through `prepack`).
import { main } from '../dist/cli.js';

const code = await main(process.argv.slice(2));
if (code !== undefined) process.exitCode = code;
