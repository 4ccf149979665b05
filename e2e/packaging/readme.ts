/**
 * A README's code as a merchant copies it: the code blocks of one section, the file each block is
 * written to (the first file name in backticks in the text just before it), and the shell lines of
 * a `sh` block split into commands. Pure: the test decides what to run.
 */
import assert from 'node:assert/strict';

export interface CodeBlock {
  /** The fence's language (`sh`, `js`, `ts`, `tsx`, ...). */
  readonly lang: string;
  readonly text: string;
  /** The paragraph just before the block, where the README says what the block is. */
  readonly lead: string;
}

/** The text under `heading` (its words, without the #s), up to the next heading of any level. */
export function section(markdown: string, heading: string): string {
  const lines = markdown.split('\n');
  const start = lines.findIndex((line) => /^#{1,6} /.test(line) && line.replace(/^#+ /, '') === heading);
  assert.ok(start >= 0, `the README has a section "${heading}"`);
  let end = start + 1;
  let fenced = false;
  for (; end < lines.length; end += 1) {
    if (lines[end]!.startsWith('```')) fenced = !fenced;
    if (!fenced && /^#{1,6} /.test(lines[end]!)) break;
  }
  return lines.slice(start + 1, end).join('\n');
}

/** The fenced code blocks of a section, in order. */
export function codeBlocks(text: string): CodeBlock[] {
  const blocks: CodeBlock[] = [];
  const fence = /^```(\w*)\n([\s\S]*?)^```$/gm;
  let previousEnd = 0;
  for (let match = fence.exec(text); match; match = fence.exec(text)) {
    const paragraphs = text.slice(previousEnd, match.index).trim().split(/\n\s*\n/);
    blocks.push({ lang: match[1]!, text: match[2]!, lead: paragraphs.at(-1) ?? '' });
    previousEnd = match.index + match[0].length;
  }
  return blocks;
}

const FILE_NAME = /`([\w.[\]/-]+\.(?:m?js|cjs|tsx?|json))`/;

/** The file a block goes to: the first file name in backticks in its lead, if any. */
export function fileNameOf(block: CodeBlock): string | undefined {
  return FILE_NAME.exec(block.lead)?.[1];
}

/** The block the README says is `file`, in `text` (a section). */
export function fileBlock(text: string, file: string): string {
  const found = codeBlocks(text).filter((block) => block.lang !== 'sh' && fileNameOf(block) === file);
  assert.equal(found.length, 1, `one code block introduced as \`${file}\` (found ${found.length})`);
  return found[0]!.text;
}

/** The `index`-th `sh` block of a section. */
export function shellBlock(text: string, index: number): string {
  const found = codeBlocks(text).filter((block) => block.lang === 'sh');
  assert.ok(found[index], `a shell block #${index + 1} (found ${found.length})`);
  return found[index]!.text;
}

export interface ShellCommand {
  /** The command's words, quotes removed; `$(cat FILE)` stays as written, for the caller to read. */
  readonly words: readonly string[];
  /** Ended by `&`: runs in the background. */
  readonly background: boolean;
}

/**
 * The commands of a shell block: comments dropped, `\` continuations joined, `&&` chains split.
 * Only the plain shell the READMEs use (words, double quotes, `&&`, a trailing `&`); anything else
 * is an error, so a README that grows beyond it is noticed here rather than run half-understood.
 */
export function shellCommands(block: string): ShellCommand[] {
  const commands: ShellCommand[] = [];
  for (const rawLine of block.replace(/\\\n\s*/g, ' ').split('\n')) {
    const line = stripComment(rawLine).trim();
    if (!line) continue;
    const background = /[^&]&$/.test(line);
    const chain = (background ? line.slice(0, -1) : line).split('&&');
    chain.forEach((part, index) => {
      assert.doesNotMatch(part, /[|;<>`]|(^|[^$])\(/, `a shell line this test can follow: ${rawLine}`);
      commands.push({ words: words(part.trim()), background: background && index === chain.length - 1 });
    });
  }
  return commands;
}

function stripComment(line: string): string {
  let quoted = false;
  for (let i = 0; i < line.length; i += 1) {
    if (line[i] === '"') quoted = !quoted;
    if (!quoted && line[i] === '#' && (i === 0 || /\s/.test(line[i - 1]!))) return line.slice(0, i);
  }
  return line;
}

function words(text: string): string[] {
  const found: string[] = [];
  const word = /"((?:[^"\\]|\\.)*)"|([^\s"]+)/g;
  let current = '';
  let last = 0;
  for (let match = word.exec(text); match; match = word.exec(text)) {
    // Adjacent parts (NAME="value") are one word.
    if (match.index > last && current) {
      found.push(current);
      current = '';
    }
    current += match[1] ?? match[2];
    last = match.index + match[0].length;
    if (text[last] === undefined || /\s/.test(text[last]!)) {
      found.push(current);
      current = '';
    }
  }
  if (current) found.push(current);
  return found;
}
