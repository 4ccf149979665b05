/**
 * Entry of `dist/pay-va.js`: defines `<pay-va>` (and, through its import of `./pay-button.js`,
 * `<pay-button>`). It reuses the Lit inside `pay-button.js`, so both tags together cost one Lit;
 * serve the two files from the same directory.
 */
import './script-tag.ts';
import { PayVa } from './components/pay-va/pay-va.ts';
import { define } from './internal/define.ts';

define('pay-va', PayVa);

export { PayVa };
