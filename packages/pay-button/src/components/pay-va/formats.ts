/**
 * The protocol's formats that only `<pay-va>` needs. The build (vite.config.ts) bundles this
 * module's copy of `@tombolbayar/protocol/formats` into `dist/pay-va.js`, so these cost the
 * budgeted `dist/pay-button.js` nothing; everywhere else it is the protocol module itself.
 */
export { formatRupiah, isFeeAmount, isRupiahAmount, parseDateTime } from '@tombolbayar/protocol/formats';
