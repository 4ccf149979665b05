/** How readme-snippets.test.ts reads a README: sections, the file a block goes to, shell lines. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { codeBlocks, fileBlock, fileNameOf, section, shellBlock, shellCommands } from './readme.ts';

const FENCE = '```';
const MARKDOWN = [
  '# Title', '', '## Shop', '', 'Install:', '', `${FENCE}sh`, 'npm install a # the a', `${FENCE}`, '',
  'Text.', '', 'A page, `app/page.tsx` (beside `app/layout.tsx`):', '', `${FENCE}tsx`, '# not a heading inside a fence', `${FENCE}`, '',
  'With plain `node:http`, `server.mjs`:', '', `${FENCE}js`, 'code();', `${FENCE}`, '', '### Next', '', `${FENCE}sh`, 'npm test', `${FENCE}`, '',
].join('\n');

describe('reading a README', () => {
  it('a section ends at the next heading outside a fence; its blocks keep the paragraph before them', () => {
    const shop = section(MARKDOWN, 'Shop');
    assert.deepEqual(codeBlocks(shop).map((block) => [block.lang, fileNameOf(block) ?? null]), [['sh', null], ['tsx', 'app/page.tsx'], ['js', 'server.mjs']]);
    assert.equal(fileBlock(shop, 'server.mjs'), 'code();\n');
    assert.equal(fileBlock(shop, 'app/page.tsx'), '# not a heading inside a fence\n');
    assert.throws(() => fileBlock(shop, 'app/layout.tsx'), /one code block introduced as `app\/layout.tsx`/);
    assert.throws(() => section(MARKDOWN, 'Nope'), /a section "Nope"/);
    assert.equal(shellBlock(section(MARKDOWN, 'Next'), 0), 'npm test\n');
  });

  const cases: [string, string, { words: string[]; background: boolean }[]][] = [
    ['a comment is dropped', 'npm install a b   # c', [{ words: ['npm', 'install', 'a', 'b'], background: false }]],
    ['&& splits, & backgrounds the last', 'x --a 1 && y &', [{ words: ['x', '--a', '1'], background: false }, { words: ['y'], background: true }]],
    ['quotes hold spaces and a #', 'm --name "Toko #1"', [{ words: ['m', '--name', 'Toko #1'], background: false }]],
    ['NAME="$(cat FILE)" is one word', 'export K="$(cat a/b.pem)"', [{ words: ['export', 'K=$(cat a/b.pem)'], background: false }]],
    ['continuations join', 'npm pack \\\n  -w a', [{ words: ['npm', 'pack', '-w', 'a'], background: false }]],
    ['blank lines are nothing', '\n\n', []],
  ];
  for (const [name, block, expected] of cases) {
    it(`shell lines: ${name}`, () => assert.deepEqual(shellCommands(block), expected));
  }

  it('shell beyond words, quotes, && and & is refused, never half-followed', () => {
    for (const line of ['a | b', 'a; b', 'a > f', 'for x in (1)']) assert.throws(() => shellCommands(line), /a shell line this test can follow/);
  });
});
