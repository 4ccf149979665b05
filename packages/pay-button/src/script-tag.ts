/**
 * Entry of the script-tag file `dist/pay-button.js`: one self-contained ES module with Lit inside
 * that defines `<pay-button>`. (`dist/pay-va.js`, from `script-tag-va.ts`, adds `<pay-va>` on top
 * of it.)
 */
import { PayButton } from './components/pay-button/pay-button.ts';
import { define } from './internal/define.ts';

define('pay-button', PayButton);

export { PayButton };
