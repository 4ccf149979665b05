/**
 * `@tombolbayar/protocol`, browser-safe entry: schemas, method table, formats. The signing entry,
 * which needs `node:crypto`, is `@tombolbayar/protocol/node`.
 */
export * from './methods.ts';
export * from './formats.ts';
export * from './wire.ts';
export * from './fields.ts';
export * from './schemas.ts';
export * from './issues.ts';
export { parseMessage } from './quick-parse.ts';
export * from './json-keys.ts';
export * from './content-encoding.ts';
export * from './liberal-forms.ts';
