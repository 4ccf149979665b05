/** `@tombolbayar/protocol/node`: everything of the browser-safe entry plus signing and keys. */
export * from './index.ts';
export * from './signature.ts';
export * from './keys.ts';
