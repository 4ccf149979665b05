/**
 * The attempt's chunk: what a `<pay-button>` does over the network (the plug-in's contract, the
 * asking about the order, the attempts kept in sessionStorage), apart from the script-tag file so
 * that the file a page loads first holds only what the first render and the click need. Loaded by
 * `loadAttemptIo`; `pay-va.js` imports it.
 */
export { createLink } from '../../internal/api.ts';
export { claimOnLoad, dropAttempt, saveAttempt } from '../../internal/attempt-store.ts';
export { check, note, watchOpen } from './order-check.ts';
export { dressPlaceholder } from './placeholder.ts';
