/**
 * A Vite plugin that squeezes the whitespace out of this package's Lit `css` and `html` tagged
 * templates at build time (Lit leaves them untouched, and the minifier cannot know they are CSS
 * or HTML). Only the static parts between `${...}` are changed; expressions, nested templates
 * included, are walked but kept. It only ever removes indentation and line breaks, never a space
 * that separates words, so text and attribute values stay as written; besides, it writes `0.5em`
 * as `.5em` in CSS and drops the quotes of HTML attribute values that need none (`part=status`).
 */
import type { Plugin } from 'vite';

/** CSS: no comments, no line breaks, no spaces around punctuation, no `;` before `}`, no `0` before a decimal point. */
export function minifyCss(text: string): string {
  return text
    .replace(/\/\*[\s\S]*?\*\//g, '')
    .replace(/\s+/g, ' ')
    .replace(/\s*([{};,>])\s*/g, '$1')
    .replace(/:\s+/g, ':')
    .replace(/;}/g, '}')
    .replace(/\[([\w-]+)='([\w-]+)'\]/g, '[$1=$2]')
    .replace(/([\s:,(])0\.(\d)/g, '$1.$2')
    .trim();
}

/**
 * HTML: line breaks and indentation become one space, and go entirely between two tags or before
 * the `>` that closes a tag; `a="b"` becomes `a=b` for a value of letters, digits and `-`.
 */
export function minifyHtml(text: string): string {
  return text
    .replace(/\s*\n\s*>/g, '>')
    .replace(/\s*\n\s*/g, ' ')
    .replace(/>\s+</g, '><')
    .replace(/="([\w-]+)"/g, '=$1');
}

/**
 * Rewrites the static parts of every `css\`` and `html\`` template in `code`. A small scanner
 * rather than a regular expression, because templates nest inside `${...}`.
 */
export function minifyTemplates(code: string): string {
  let out = '';
  let i = 0;
  const tag = /\b(css|html)`/g;
  for (let m = tag.exec(code); m; m = tag.exec(code)) {
    const start = m.index + m[0].length;
    out += code.slice(i, start);
    const end = scanTemplate(code, start, m[1] === 'css' ? minifyCss : minifyHtml, (s) => (out += s));
    i = end;
    tag.lastIndex = end;
  }
  return out + code.slice(i);
}

/** Emits the template body starting at `pos` (just after the backtick), returns the index after the closing backtick. */
function scanTemplate(code: string, pos: number, squeeze: (s: string) => string, emit: (s: string) => void): number {
  let text = '';
  while (pos < code.length) {
    const c = code[pos]!;
    if (c === '\\') {
      text += code.slice(pos, pos + 2);
      pos += 2;
    } else if (c === '`') {
      emit(squeeze(text) + '`');
      return pos + 1;
    } else if (c === '$' && code[pos + 1] === '{') {
      emit(squeeze(text) + '${');
      text = '';
      const end = scanExpression(code, pos + 2);
      emit(minifyTemplates(code.slice(pos + 2, end)) + '}');
      pos = end + 1;
    } else {
      text += c;
      pos++;
    }
  }
  throw new Error('unterminated template literal');
}

/** Index of the `}` that closes an expression starting at `pos`, skipping strings and nested templates. */
function scanExpression(code: string, pos: number): number {
  let depth = 0;
  while (pos < code.length) {
    const c = code[pos]!;
    if (c === '{') depth++;
    else if (c === '}') {
      if (depth === 0) return pos;
      depth--;
    } else if (c === "'" || c === '"') {
      pos = code.indexOf(c, pos + 1);
    } else if (c === '`') {
      pos = scanTemplate(code, pos + 1, (s) => s, () => {}) - 1;
    }
    pos++;
  }
  throw new Error('unterminated template expression');
}

export function minifyLitTemplates(): Plugin {
  return {
    name: 'tombolbayar:minify-lit-templates',
    enforce: 'pre',
    transform(code, id) {
      if (!/\/pay-button\/src\/.*\.ts$/.test(id) || !/\b(css|html)`/.test(code)) return null;
      return { code: minifyTemplates(code), map: null };
    },
  };
}
