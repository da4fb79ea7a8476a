import type PDFDocument from 'pdfkit';

// Text primitives for the PDF renderer. pdfkit wraps any text given a width, even single-line
// labels; `line` never passes one, so a label stays on its line and is clipped with an ellipsis.

export type Pdf = InstanceType<typeof PDFDocument>;

export const FONT = 'body';
export const BOLD = 'bold';
export const LINE_GAP = 1.5;

export interface TextStyle {
  font: typeof FONT | typeof BOLD;
  size: number;
  color: string;
  /** Extra space between letters, for small capitals. */
  spacing?: number;
}

// Font and size only: a measurement needs no colour, and pdfkit writes one to the page at each call.
function sized(doc: Pdf, style: TextStyle): Pdf {
  return doc.font(style.font).fontSize(style.size);
}

function styled(doc: Pdf, style: TextStyle): Pdf {
  return sized(doc, style).fillColor(style.color);
}

export function lineWidth(doc: Pdf, text: string, style: TextStyle): number {
  return sized(doc, style).widthOfString(text, { characterSpacing: style.spacing ?? 0 });
}

/**
 * `text` as it fits on one line of `width`: whole, or its longest start that fits with an ellipsis
 * after it (at least one character). The cut is found by halving, not by dropping a character at a
 * time: a width is measured glyph by glyph, so that was quadratic (a 2,000-character prompt 3.9 s).
 * Cut between code points, never inside a surrogate pair.
 */
export function clipped(doc: Pdf, text: string, width: number, style: TextStyle): string {
  const chars = Array.from(text);
  if (chars.length <= 1 || lineWidth(doc, text, style) <= width) return text;
  const shown = (kept: number) => `${chars.slice(0, kept).join('').trimEnd()}…`;
  // The longest start of fewer characters than the whole that fits; one character when none does.
  let fits = 1;
  let tooLong = chars.length;
  while (tooLong - fits > 1) {
    const middle = Math.floor((fits + tooLong) / 2);
    if (lineWidth(doc, shown(middle), style) <= width) fits = middle;
    else tooLong = middle;
  }
  return shown(fits);
}

/** One line of text inside `width`, aligned within it, clipped with an ellipsis when too long. */
export function line(
  doc: Pdf,
  text: string,
  x: number,
  y: number,
  width: number,
  style: TextStyle,
  align: 'left' | 'right' | 'center' = 'left',
): void {
  const shown = clipped(doc, text, width, style);
  const w = lineWidth(doc, shown, style);
  const left = align === 'left' ? x : align === 'right' ? x + width - w : x + (width - w) / 2;
  styled(doc, style).text(shown, left, y, { lineBreak: false, characterSpacing: style.spacing ?? 0 });
}

/**
 * Lines a paragraph shows at most: past them it ends in "…" (the report's HTML and the API hold
 * the whole text). Without a bound a 2,000-character prompt in a table cell ran past the page's
 * foot, and pdfkit carried it over onto pages of its own (131 pages for 60 such prompts).
 */
export const MAX_LINES = 10;

function lineAdvance(doc: Pdf, style: TextStyle): number {
  return sized(doc, style).currentLineHeight(true) + LINE_GAP;
}

/** Wrapped text in a column of `width`, at most `maxLines` lines. */
export function paragraph(
  doc: Pdf,
  text: string,
  x: number,
  y: number,
  width: number,
  style: TextStyle,
  align: 'left' | 'right' = 'left',
  maxLines = MAX_LINES,
): void {
  const height = maxLines * lineAdvance(doc, style);
  styled(doc, style).text(text, x, y, { width, align, lineGap: LINE_GAP, height, ellipsis: true });
}

export function paragraphHeight(
  doc: Pdf,
  text: string,
  width: number,
  style: TextStyle,
  maxLines = MAX_LINES,
): number {
  const whole = styled(doc, style).heightOfString(text, { width, lineGap: LINE_GAP });
  return Math.min(whole, maxLines * lineAdvance(doc, style));
}
