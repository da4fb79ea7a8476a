import { writeFileSync } from 'node:fs';
import opentype from 'opentype.js';

/**
 * Writes an OpenType font with a glyph (a box) for each of `chars` and nothing else, and returns
 * its path: a stand-in for a CJK font (Noto Sans CJK is ~20 MB) that a fresh machine has not got.
 */
export function writeBoxFont(path: string, chars: string, weightClass = 400): string {
  const box = () => {
    const p = new opentype.Path();
    p.moveTo(100, 0);
    p.lineTo(900, 0);
    p.lineTo(900, 800);
    p.lineTo(100, 800);
    p.close();
    return p;
  };
  const glyphs = [
    new opentype.Glyph({ name: '.notdef', advanceWidth: 500, path: new opentype.Path() }),
    ...Array.from(chars, (char, i) => {
      return new opentype.Glyph({
        name: `box${i}`,
        unicode: char.codePointAt(0),
        advanceWidth: 1000,
        path: box(),
      });
    }),
  ];
  const font = new opentype.Font({
    familyName: 'Box',
    styleName: weightClass >= 600 ? 'Bold' : 'Regular',
    unitsPerEm: 1000,
    ascender: 800,
    descender: -200,
    glyphs,
    weightClass,
  });
  writeFileSync(path, Buffer.from(font.toArrayBuffer()));
  return path;
}
