import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import PDFDocument from 'pdfkit';
import { reportFonts } from '../src/reports/fonts.ts';
import {
  BOLD,
  clipped,
  FONT,
  LINE_GAP,
  lineWidth,
  MAX_LINES,
  type Pdf,
  paragraph,
  paragraphHeight,
  type TextStyle,
} from '../src/reports/pdf-text.ts';
import { pdfPages } from './support/pdf.ts';

// One line of a PDF report clipped to its width: the longest start that fits, an ellipsis after it;
// a paragraph bounded to its lines. Checked by what they promise, on the report's own font.

const doc: Pdf = new PDFDocument({ size: 'A4', autoFirstPage: true });
doc.registerFont(FONT, reportFonts().regular);
doc.registerFont(BOLD, reportFonts().bold);
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
    pdf.registerFont(FONT, reportFonts().regular);
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
