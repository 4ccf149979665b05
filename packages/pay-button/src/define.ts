/**
 * Side-effect entry: registers `<pay-button>` and `<pay-va>` (once, see `define`).
 */
import { PayButton } from './components/pay-button/pay-button.ts';
import { PayVa } from './components/pay-va/pay-va.ts';
import { define } from './internal/define.ts';

define('pay-button', PayButton);
define('pay-va', PayVa);

export { PayButton, PayVa };
