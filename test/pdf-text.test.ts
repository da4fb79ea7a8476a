import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import fc from 'fast-check';
import PDFDocument from 'pdfkit';
import { loadConfig, type ReportFontFile } from '../src/config.ts';
import { reportFonts } from '../src/reports/fonts.ts';
import {
  BOLD,
  clipped,
  FONT,
  LINE_GAP,
  line,
  lineWidth,
  MAX_LINES,
  type Pdf,
  paragraph,
  paragraphHeight,
  registerFonts,
  runsOf,
  type TextStyle,
} from '../src/reports/pdf-text.ts';
import { writeBoxFont } from './support/fonts.ts';
import { pdfPages, pdfTextItems } from './support/pdf.ts';

// One line of a PDF report clipped to its width: the longest start that fits, an ellipsis after it;
// a paragraph bounded to its lines. Checked by what they promise, on the report's own font.

const doc: Pdf = new PDFDocument({ size: 'A4', autoFirstPage: true });
registerFonts(doc, reportFonts());
const STYLE: TextStyle = { font: FONT, size: 9, color: '#000000' };
const WIDTH = 150;

/** What `clipped` promises for `text`: it fits, and one more character would not. */
function assertLongestThatFits(text: string): string {
  const shown = clipped(doc, text, WIDTH, STYLE);
  assert.ok(lineWidth(doc, shown, STYLE) <= WIDTH, `${shown} fits`);
  assert.ok(shown.endsWith('…'));
  const kept = Array.from(shown.slice(0, -1));
  const start = Array.from(text)
    .slice(0, kept.length + 1)
    .join('');
  assert.ok(text.startsWith(kept.join('')), 'a start of the text');
  assert.ok(lineWidth(doc, `${start.trimEnd()}…`, STYLE) > WIDTH, 'one character more does not fit');
  return shown;
}

describe('a PDF line clipped to its width', () => {
  it('keeps a text that fits whole', () => {
    assert.equal(clipped(doc, 'Acme CRM', WIDTH, STYLE), 'Acme CRM');
  });

  it('cuts a long name, a 2,000-character prompt and a text of spaced words to what fits', () => {
    assertLongestThatFits('Brandnamewithoutspaces'.repeat(9));
    assertLongestThatFits('Q'.repeat(2000));
    const spaced = assertLongestThatFits('What is the best CRM for a small startup with a tight budget?');
    assert.doesNotMatch(spaced, / …$/, 'no space before the ellipsis');
  });

  it('never cuts inside a surrogate pair', () => {
    const shown = assertLongestThatFits('🚀'.repeat(100));
    assert.ok(shown.isWellFormed());
  });

  it('keeps one character and the ellipsis when nothing fits, and a lone character as it is', () => {
    assert.equal(clipped(doc, 'WWWW', 1, STYLE), 'W…');
    assert.equal(clipped(doc, 'W', 1, STYLE), 'W');
  });
});

describe('a PDF paragraph bounded to its lines', () => {
  it("shows a 2,000-character prompt in at most its lines, the last ending in '…', on its own page", async () => {
    const pdf: Pdf = new PDFDocument({ size: 'A4', bufferPages: true });
    registerFonts(pdf, reportFonts());
    const chunks: Buffer[] = [];
    pdf.on('data', (chunk: Buffer) => chunks.push(chunk));
    const ended = new Promise((resolve) => pdf.on('end', resolve));
    const prompt = 'Which CRM is best for a small team that sells to other businesses? '.repeat(30);
    // One line advances by the font's line height at the size, and the gap between lines.
    const advance = pdf.font(FONT).fontSize(9).currentLineHeight(true) + LINE_GAP;
    assert.ok(pdf.heightOfString(prompt, { width: 200, lineGap: LINE_GAP }) > 6 * advance);
    assert.equal(paragraphHeight(pdf, prompt, 200, STYLE, 6), 6 * advance);
    assert.equal(paragraphHeight(pdf, 'Short.', 200, STYLE), advance);
    // Near the page's foot, where unbounded text would go on over pages of its own.
    paragraph(pdf, prompt, 50, 700, 200, STYLE, 'left', 6);
    paragraph(pdf, prompt.repeat(10), 300, 700, 200, STYLE);
    assert.equal(pdf.bufferedPageRange().count, 1);
    pdf.end();
    await ended;
    const [page] = await pdfPages(Buffer.concat(chunks));
    const lines = page ?? [];
    assert.equal(lines.length, 6 + MAX_LINES);
    assert.ok(lines[5]?.endsWith('…'), lines[5]);
    assert.ok(lines.at(-1)?.endsWith('…'), lines.at(-1));
  });
});

describe('a PDF text in a REPORT_FONTS face where DejaVu Sans has no glyphs', () => {
  const dir = mkdtempSync(join(tmpdir(), 'sightline-fonts-'));
  after(() => rmSync(dir, { recursive: true, force: true }));
  const CJK = '株式会社…\u0301';
  const files: ReportFontFile[] = [
    { file: writeBoxFont(join(dir, 'box.otf'), CJK), face: undefined },
    { file: writeBoxFont(join(dir, 'box-bold.otf'), CJK, 700), face: undefined },
  ];
  const withFallbacks: Pdf = new PDFDocument({ size: 'A4' });
  registerFonts(withFallbacks, reportFonts(files));

  it('draws each character in the first face that has it: DejaVu Sans, then the fallbacks, the style’s weight first', () => {
    assert.deepEqual(runsOf(withFallbacks, STYLE, '株式会社'), [{ text: '株式会社', font: 'fallback-0' }]);
    assert.deepEqual(runsOf(withFallbacks, { ...STYLE, font: BOLD }, '株式会社'), [
      { text: '株式会社', font: 'fallback-1' },
    ]);
    assert.deepEqual(runsOf(withFallbacks, STYLE, 'Acme 株式会社'), [
      { text: 'Acme ', font: FONT },
      { text: '株式会社', font: 'fallback-0' },
    ]);
    // The box font has no space: the space goes back to DejaVu rather than draw as nothing.
    assert.deepEqual(runsOf(withFallbacks, STYLE, '株式 Acme'), [
      { text: '株式', font: 'fallback-0' },
      { text: ' Acme', font: FONT },
    ]);
    // A combining mark stays on its letter's face when that face has it (DejaVu has U+0301 too).
    assert.deepEqual(runsOf(withFallbacks, STYLE, '株\u0301式 e\u0301'), [
      { text: '株\u0301式', font: 'fallback-0' },
      { text: ' e\u0301', font: FONT },
    ]);
    assert.deepEqual(runsOf(withFallbacks, STYLE, 'Café Zürich'), [{ text: 'Café Zürich', font: FONT }]);
    assert.deepEqual(runsOf(withFallbacks, STYLE, 'ไทย'), [{ text: 'ไทย', font: FONT }], 'no face has it');
    assert.deepEqual(runsOf(doc, STYLE, '株式会社'), [{ text: '株式会社', font: FONT }], 'no fallbacks');
  });

  it('measures and clips in those faces: each box is 1,000 of 1,000 units wide, 9 pt at 9 pt', () => {
    assert.equal(lineWidth(withFallbacks, '株式会社', STYLE), 36);
    // "Acme " in DejaVu Sans as pdfkit itself measures it, then two boxes.
    const latin = doc.font(FONT).fontSize(STYLE.size).widthOfString('Acme ');
    assert.equal(lineWidth(withFallbacks, 'Acme 株式', STYLE), latin + 18);
    assert.equal(clipped(withFallbacks, '株式会社', 30, STYLE), '株式…');
  });

  /** The text items a drawing leaves on its page, as a reader's viewer extracts them. */
  async function drawn(draw: (pdf: Pdf) => void) {
    const pdf: Pdf = new PDFDocument({ size: 'A4' });
    registerFonts(pdf, reportFonts(files));
    const chunks: Buffer[] = [];
    pdf.on('data', (chunk: Buffer) => chunks.push(chunk));
    const ended = new Promise((resolve) => pdf.on('end', resolve));
    draw(pdf);
    pdf.end();
    await ended;
    const [page = []] = await pdfTextItems(Buffer.concat(chunks));
    return page;
  }

  it('draws a fallback face on the baseline DejaVu Sans would have, its top moved up', async () => {
    const page = await drawn((pdf) => {
      line(pdf, 'Acme', 50, 100, 100, STYLE);
      line(pdf, '株式会社', 200, 100, 100, STYLE);
      paragraph(pdf, 'Zendesk', 50, 200, 100, STYLE);
      paragraph(pdf, '株式会社', 300, 200, 100, STYLE);
      paragraph(pdf, 'Globex 株式会社', 50, 300, 200, STYLE);
    });
    const baseline = (str: string, x: number) => page.find((item) => item.str === str && item.x === x)?.y;
    // Drawn at the same top, the box font (rising 0.8 em) would sit (1901/2048 − 0.8) × 9 = 1.154 pt
    // lower than DejaVu (rising 1901/2048 em).
    for (const [latin, cjkAt] of [
      ['Acme', 200],
      ['Zendesk', 300],
    ] as const) {
      const expected = baseline(latin, 50);
      assert.ok(expected !== undefined, latin);
      assert.ok(Math.abs((baseline('株式会社', cjkAt) ?? Number.NaN) - expected) < 0.001, latin);
    }
    const mixed = page.filter((item) => item.y < 842 - 290 && item.y > 842 - 330);
    assert.deepEqual(
      mixed.map((item) => item.str),
      ['Globex', '株式会社'],
    );
    assert.ok(Math.abs((mixed[0]?.y ?? 0) - (mixed[1]?.y ?? 1)) < 0.001, 'one baseline');
  });

  it('wraps a paragraph of two faces itself: lines within the column, one step apart, at most their number', async () => {
    // One line steps by the taller face's height, DejaVu's (1901 + 483) / 2048 em at 9 pt, and the gap.
    const step = ((1901 + 483) / 2048) * 9 + LINE_GAP;
    assert.ok(Math.abs(paragraphHeight(withFallbacks, 'Acme 株式', 200, STYLE) - step) < 1e-9);
    const text = 'Acme 株式会社 and Globex 株式会社 and Hooli 株式会社 and Initech 株式会社';
    const lines = paragraphHeight(withFallbacks, text, 100, STYLE) / step;
    assert.ok(Number.isInteger(Math.round(lines * 1e6) / 1e6) && lines > 2, `${lines} lines`);
    assert.equal(paragraphHeight(withFallbacks, text, 100, STYLE, 2), 2 * step);
    const page = await drawn((pdf) => paragraph(pdf, text, 50, 100, 100, STYLE, 'left', 2));
    const rows = [...new Set(page.map((item) => item.y))].sort((a, b) => b - a);
    assert.equal(rows.length, 2);
    assert.ok(Math.abs((rows[0] ?? 0) - (rows[1] ?? 0) - step) < 0.001, 'one step apart');
    const right = Math.max(...page.map((item) => item.x + item.width));
    assert.ok(right <= 150 + 0.001, `within the column: ${right}`);
    const shown = rows.map((y) =>
      page
        .filter((item) => item.y === y)
        .map((item) => item.str)
        .join(''),
    );
    assert.ok(shown.at(-1)?.endsWith('…'), shown.join(' / '));
    assert.ok(text.replaceAll(' ', '').startsWith(shown.join('').replaceAll(' ', '').slice(0, -1)));
  });

  it('keeps any mix of scripts within its bounds: a line in its width, a paragraph in its lines', () => {
    // Latin, CJK (the box font), Hebrew, Arabic, Thai (no face has it), digits, brackets, marks,
    // joiners, emoji, spaces and line breaks, in any order.
    const unit = fc.constantFrom(
      ...Array.from('Aé 株式会社שלוםمرحبا1(2)ไ\u0301\u200d🚀\n…'),
      'Zendesk ',
      'בנק ',
    );
    fc.assert(
      fc.property(
        fc.string({ unit, maxLength: 120 }),
        fc.integer({ min: 20, max: 300 }),
        fc.integer({ min: 1, max: 6 }),
        (text, width, maxLines) => {
          const shown = clipped(withFallbacks, text, width, STYLE);
          if (Array.from(shown).length > 1) assert.ok(lineWidth(withFallbacks, shown, STYLE) <= width + 1e-9);
          const step = ((1901 + 483) / 2048) * 9 + LINE_GAP;
          const height = paragraphHeight(withFallbacks, text, width, STYLE, maxLines);
          assert.ok(height <= maxLines * step + 1e-9, `${height} in ${maxLines} lines`);
          line(withFallbacks, text, 50, 100, width, STYLE);
          paragraph(withFallbacks, text, 50, 200, width, STYLE, 'right', maxLines);
        },
      ),
      { numRuns: 300, seed: 20261128 },
    );
  });

  it('refuses a font file cut short before a report draws with it', () => {
    const whole = readFileSync(join(dir, 'box.otf'));
    const cut = join(dir, 'cut.otf');
    // Its tables' directory whole, their data not: it opens, and its glyphs cannot be read.
    writeFileSync(cut, whole.subarray(0, 600));
    assert.throws(() => reportFonts([{ file: cut, face: undefined }]), {
      name: 'ConfigError',
      message: `REPORT_FONTS: ${cut} is damaged: its tables cannot be read (a file cut short?)`,
    });
  });

  it('refuses a file that is not a font, and a face named in a single font, naming the file', () => {
    writeFileSync(join(dir, 'notes.txt'), 'not a font');
    assert.throws(() => reportFonts([{ file: join(dir, 'notes.txt'), face: undefined }]), {
      name: 'ConfigError',
      message: `REPORT_FONTS: ${join(dir, 'notes.txt')} is not a font file (TrueType, OpenType, WOFF or a collection)`,
    });
    assert.throws(() => reportFonts([{ file: join(dir, 'box.otf'), face: 'BoxJP' }]), {
      name: 'ConfigError',
      message: `REPORT_FONTS: ${join(dir, 'box.otf')} holds one face, not a collection: name it without "#BoxJP"`,
    });
  });

  it('REPORT_FONTS lists files, each FILE or FILE#FACE; one that is not a file fails at start-up', () => {
    const box = join(dir, 'box.otf');
    assert.deepEqual(loadConfig({}).reportFonts, []);
    assert.deepEqual(loadConfig({ REPORT_FONTS: ` ${box} , ${box}#BoxJP` }).reportFonts, [
      { file: box, face: undefined },
      { file: box, face: 'BoxJP' },
    ]);
    assert.throws(() => loadConfig({ REPORT_FONTS: join(dir, 'missing.ttc') }), {
      name: 'ConfigError',
      message: `REPORT_FONTS: ${join(dir, 'missing.ttc')} is not a file`,
    });
    assert.throws(() => loadConfig({ REPORT_FONTS: dir }), { message: `REPORT_FONTS: ${dir} is not a file` });
    for (const raw of [`${box},`, `${box}#`])
      assert.throws(() => loadConfig({ REPORT_FONTS: raw }), {
        message: /^REPORT_FONTS must list font files, each FILE or FILE#FACE/,
      });
  });
});
