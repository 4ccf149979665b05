/**
 * `@tombolbayar/pay-button`: the element classes and their types, without defining any tag.
 * Import `@tombolbayar/pay-button/define` (or call `define()`) to register `<pay-button>` and `<pay-va>`.
 */
export { PayButton, type PayButtonState, type PayMode } from './components/pay-button/pay-button.ts';
export { PayVa, type PayVaState } from './components/pay-va/pay-va.ts';
export { countdown, expiryOf } from './components/pay-va/countdown.ts';
export type { PayError } from './internal/api.ts';
export { isInAppBrowser } from './internal/popup.ts';
export { define } from './internal/define.ts';
export type * from './events.ts';
