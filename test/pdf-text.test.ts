import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import PDFDocument from 'pdfkit';
import { loadConfig, type ReportFontFile } from '../src/config.ts';
import { reportFonts } from '../src/reports/fonts.ts';
import {
  BOLD,
  clipped,
  FONT,
  fontFor,
  LINE_GAP,
  line,
  lineWidth,
  MAX_LINES,
  type Pdf,
  paragraph,
  paragraphHeight,
  registerFonts,
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
  const CJK = '株式会社…';
  const files: ReportFontFile[] = [
    { file: writeBoxFont(join(dir, 'box.otf'), CJK), face: undefined },
    { file: writeBoxFont(join(dir, 'box-bold.otf'), CJK, 700), face: undefined },
  ];
  const withFallbacks: Pdf = new PDFDocument({ size: 'A4' });
  registerFonts(withFallbacks, reportFonts(files));

  it('draws a text in the face that has glyphs for most of its characters, of the style’s weight', () => {
    assert.equal(fontFor(withFallbacks, FONT, '株式会社'), 'fallback-0');
    assert.equal(fontFor(withFallbacks, BOLD, '株式会社'), 'fallback-1');
    assert.equal(fontFor(withFallbacks, FONT, '株式会社 A'), 'fallback-0', 'four of five characters');
    assert.equal(fontFor(withFallbacks, FONT, 'Acme 株'), FONT, 'four of five the other way');
    assert.equal(fontFor(withFallbacks, FONT, 'Acme 株式会社'), FONT, 'a tie keeps DejaVu');
    assert.equal(fontFor(withFallbacks, FONT, 'Café Zürich'), FONT);
    assert.equal(fontFor(doc, FONT, '株式会社'), FONT, 'no fallbacks: DejaVu, with its empty boxes');
  });

  it('measures and clips in that face: each box is 1,000 of 1,000 units wide, 9 pt at 9 pt', () => {
    assert.equal(lineWidth(withFallbacks, '株式会社', STYLE), 36);
    assert.equal(clipped(withFallbacks, '株式会社', 30, STYLE), '株式…');
  });

  it('draws a fallback face on the baseline DejaVu Sans would have, its top moved up', async () => {
    const pdf: Pdf = new PDFDocument({ size: 'A4' });
    registerFonts(pdf, reportFonts(files));
    const chunks: Buffer[] = [];
    pdf.on('data', (chunk: Buffer) => chunks.push(chunk));
    const ended = new Promise((resolve) => pdf.on('end', resolve));
    line(pdf, 'Acme', 50, 100, 100, STYLE);
    line(pdf, '株式会社', 200, 100, 100, STYLE);
    paragraph(pdf, 'Zendesk', 50, 200, 100, STYLE);
    paragraph(pdf, '株式会社', 300, 200, 100, STYLE);
    pdf.end();
    await ended;
    const [page = []] = await pdfTextItems(Buffer.concat(chunks));
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
