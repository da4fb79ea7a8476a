import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import PDFDocument from 'pdfkit';
import { drawnOrder, visualPieces } from '../src/reports/bidi.ts';
import { reportFonts } from '../src/reports/fonts.ts';
import { FONT, line, type Pdf, paragraph, registerFonts } from '../src/reports/pdf-text.ts';

// A line of a PDF report in the order the Unicode Bidirectional Algorithm (UAX #9) puts it on the
// page, the report's own direction left to right. Expected orders worked out by hand from the
// algorithm's rules, named at each case.

const drawn = (text: string) => visualPieces(text).flatMap(drawnOrder);

describe('a line with right-to-left words', () => {
  it('leaves a left-to-right text alone', () => {
    assert.deepEqual(visualPieces('Acme Café'), [{ text: 'Acme Café', rightToLeft: false }]);
  });

  it('puts a Hebrew or Arabic name’s words right to left, the space between them', () => {
    // Both words and the space between them (N1) are level 1, reversed as one run (L2).
    assert.deepEqual(visualPieces('שלום עולם'), [{ text: 'שלום עולם', rightToLeft: true }]);
    assert.deepEqual(drawn('שלום עולם'), ['עולם', ' ', 'שלום']);
    assert.deepEqual(drawn('مرحبا بالعالم'), ['بالعالم', ' ', 'مرحبا']);
  });

  it('keeps a number left to right inside a right-to-left name', () => {
    // "2000" is level 2 (I1), the space between R and EN level 1 (N1): reversed at level 1 the run
    // reads 2000, space, then the word; at level 2 the digits keep their order.
    assert.deepEqual(visualPieces('בנק 2000'), [
      { text: '2000', rightToLeft: false },
      { text: 'בנק ', rightToLeft: true },
    ]);
    assert.deepEqual(drawn('בנק 2000'), ['2000', ' ', 'בנק']);
  });

  it('mirrors brackets in right-to-left text', () => {
    // All of it level 1: reversed, and each bracket shown as its mirror (L4).
    assert.deepEqual(drawn('אבג (דה)'), [')דה(', ' ', 'אבג']);
  });

  it('places a Hebrew name inside a Latin line, a bracketed number beside it', () => {
    // The brackets take the direction before them, R (N0 c); "2" is level 2, the space before
    // "Globex" level 0 (N2). Left to right: "Acme ", the closing bracket mirrored, "2", the
    // opening one mirrored, a space, the word.
    assert.deepEqual(drawn('Acme שלום (2) Globex'), ['Acme ', '(', '2', ')', ' ', 'שלום', ' Globex']);
  });

  it('draws a Hebrew name’s words on the page right to left, in a line and in a paragraph', () => {
    const pdf: Pdf = new PDFDocument({ size: 'A4' });
    registerFonts(pdf, reportFonts());
    // What is drawn where: a viewer's text extraction puts right-to-left text back in reading order.
    const calls: { text: string; x: number; y: number }[] = [];
    const text = pdf.text.bind(pdf);
    pdf.text = ((shown: string, x: number, y: number, options: PDFKit.Mixins.TextOptions) => {
      calls.push({ text: shown, x, y });
      return text(shown, x, y, options);
    }) as typeof pdf.text;
    const style = { font: FONT, size: 9, color: '#000000' } as const;
    line(pdf, 'שלום עולם', 50, 100, 200, style);
    paragraph(pdf, 'שלום עולם', 50, 200, 200, style);
    for (const y of [100, 200]) {
      const at = (word: string) => calls.find((call) => call.y === y && call.text === word)?.x;
      const first = at('שלום');
      const second = at('עולם');
      assert.ok(first !== undefined && second !== undefined, JSON.stringify(calls));
      assert.equal(second, 50, 'the second word at the line’s start');
      assert.ok(first > second, 'the first word right of it');
    }
  });
});
