/**
 * The merchant's accent colour as the hosted page uses it (`src/page/brand.ts`): parsing, WCAG
 * contrast, the readable shade, the stylesheet, and which logo URLs become an image source.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { ACCENT_BACKGROUNDS, accentParam, brandStylesheet, contrastRatio, logoOrigin, parseHexColor, readableAccent, TEXT_CONTRAST, toHex, type Rgb } from '../src/page/brand.ts';

const WHITE: Rgb = [255, 255, 255];

describe('accent colour', () => {
  it('parses #rrggbb and rrggbb in any case, and nothing else', () => {
    const table: Array<[unknown, Rgb | undefined]> = [
      ['#0b57d0', [11, 87, 208]],
      ['FFD400', [255, 212, 0]],
      ['#fff', undefined],
      ['#0b57d0;', undefined],
      [' #0b57d0', undefined],
      ['red', undefined],
      ['#gggggg', undefined],
      ['', undefined],
      [null, undefined],
      [['#0b57d0'], undefined],
    ];
    for (const [input, rgb] of table) assert.deepEqual(parseHexColor(input), rgb, JSON.stringify(input));
  });

  it('computes WCAG contrast ratios', () => {
    assert.equal(contrastRatio([0, 0, 0], WHITE), 21);
    assert.equal(contrastRatio(WHITE, WHITE), 1);
    assert.equal(Math.round(contrastRatio([0x76, 0x76, 0x76], WHITE) * 100) / 100, 4.54);
  });

  it('darkens #f5d90a until it reads on the page background #f3f5f8 too, not on white alone (issue 32)', () => {
    const shade = readableAccent(parseHexColor('#f5d90a')!);
    assert.ok(contrastRatio(shade, [0xf3, 0xf5, 0xf8]) >= 4.5, `${toHex(shade)} on #f3f5f8: ${contrastRatio(shade, [0xf3, 0xf5, 0xf8]).toFixed(2)}`);
    assert.notEqual(toHex(shade), '#847505', 'the shade that read on white only');
  });

  it('over a range of colours (every hue, light to dark), the shade reads on every background it is used on, and is the lightest that does', () => {
    const colours: Rgb[] = [];
    for (const r of [0, 0x33, 0x80, 0xcc, 0xf5, 0xff]) for (const g of [0, 0x66, 0xd9, 0xff]) for (const b of [0, 0x0a, 0x99, 0xff]) colours.push([r, g, b]);
    for (const rgb of colours) {
      const shade = readableAccent(rgb);
      for (const background of ACCENT_BACKGROUNDS) {
        assert.ok(contrastRatio(shade, background) >= TEXT_CONTRAST, `${toHex(rgb)} -> ${toHex(shade)} on ${toHex(background)}`);
      }
      // White text on an accent button: the same ratio as the accent on white.
      assert.ok(contrastRatio(WHITE, shade) >= 4.5, `white on ${toHex(shade)}`);
      // Lightest: one step lighter (a bigger scale) would fail on one of the backgrounds, unless it is the colour itself.
      if (toHex(shade) !== toHex(rgb)) {
        const scale = Math.max(...shade.map((c, i) => (rgb[i]! ? c / rgb[i]! : 0)));
        const lighter = rgb.map((c) => Math.round(c * Math.min(1, scale + 0.02))) as unknown as Rgb;
        assert.ok(ACCENT_BACKGROUNDS.some((background) => contrastRatio(lighter, background) < TEXT_CONTRAST), `${toHex(rgb)}: ${toHex(lighter)} would do`);
      }
    }
  });

  it('keeps a colour that reads on white, and darkens one that does not just enough', () => {
    const table: Array<[string, 'kept' | 'darkened']> = [
      ['#0b57d0', 'kept'],
      ['#1a1d23', 'kept'],
      ['#ffd400', 'darkened'],
      ['#ffffff', 'darkened'],
      ['#00c853', 'darkened'],
      ['#e91e63', 'darkened'],
    ];
    for (const [hex, expected] of table) {
      const rgb = parseHexColor(hex)!;
      const shade = readableAccent(rgb);
      assert.ok(contrastRatio(shade, WHITE) >= TEXT_CONTRAST, `${hex} -> ${toHex(shade)} reads on white`);
      assert.equal(toHex(shade) === hex ? 'kept' : 'darkened', expected, hex);
      // The same hue: every channel scaled by one factor, never lightened.
      for (let i = 0; i < 3; i += 1) assert.ok(shade[i]! <= rgb[i]!, `${hex} channel ${i}`);
    }
  });

  it('writes the brand colour as given and the readable shade for links, buttons and focus', () => {
    assert.equal(brandStylesheet([11, 87, 208]), ':root{--brand:#0b57d0;--accent:#0b57d0;--accent-ink:#ffffff;--focus:#0b57d0}\n');
    const yellow = brandStylesheet([255, 212, 0]);
    assert.match(yellow, /^:root\{--brand:#ffd400;--accent:#([0-9a-f]{6});/);
    assert.notEqual(/--accent:(#[0-9a-f]{6})/.exec(yellow)?.[1], '#ffd400');
  });

  it('names the colour in the stylesheet URL as rrggbb in lower case', () => {
    assert.equal(accentParam('#FFD400'), 'ffd400');
    assert.equal(accentParam('not a colour'), undefined);
  });
});

describe('logo origin for img-src', () => {
  it('is the origin of an http(s) URL, and nothing for data URLs or anything else', () => {
    const table: Array<[string, string | undefined]> = [
      ['https://cdn.toko.example/brand/logo.png?v=2', 'https://cdn.toko.example'],
      ['https://cdn.toko.example:8443/logo.png', 'https://cdn.toko.example:8443'],
      ['http://[::1]:8080/l.png', 'http://[::1]:8080'],
      ['data:image/png;base64,iVBORw0KGgo=', undefined],
      ['javascript:alert(1)', undefined],
      ['ftp://toko.example/logo.png', undefined],
      ['not a url', undefined],
      ["https://xn--tk-fka.example/logo.png", 'https://xn--tk-fka.example'],
    ];
    for (const [logo, origin] of table) assert.equal(logoOrigin(logo), origin, logo);
  });
});
