/**
 * A Vite plugin that shortens the two developer-facing error messages Lit's production build keeps
 * (`new CSSResult()` called directly; a template strings array that is not one): 58 B gzip of the
 * script-tag budget for sentences no customer and no correct page ever sees. The errors are still
 * thrown, at the same places, naming what went wrong; only their sentences are shorter. A Lit
 * release that words them otherwise is left as it is (the size test then says so).
 */
import type { Plugin } from 'vite';

const SHORTER: ReadonlyArray<readonly [file: RegExp, long: string, short: string]> = [
  [/@lit\/reactive-element\/css-tag\.js$/, 'CSSResult is not constructable. Use `unsafeCSS` or `css` instead.', 'CSSResult'],
  [/lit-html\/lit-html\.js$/, 'invalid template strings array', 'template'],
];

export function shortLitErrors(): Plugin {
  return {
    name: 'tombolbayar:short-lit-errors',
    transform(code, id) {
      let changed = code;
      for (const [file, long, short] of SHORTER) if (file.test(id)) changed = changed.split(long).join(short);
      return changed === code ? null : { code: changed, map: null };
    },
  };
}
