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

function styled(doc: Pdf, style: TextStyle): Pdf {
  return doc.font(style.font).fontSize(style.size).fillColor(style.color);
}

export function lineWidth(doc: Pdf, text: string, style: TextStyle): number {
  return styled(doc, style).widthOfString(text, { characterSpacing: style.spacing ?? 0 });
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
  let shown = text;
  let kept = text.length;
  let w = lineWidth(doc, shown, style);
  while (w > width && kept > 1) {
    kept -= 1;
    shown = `${text.slice(0, kept).trimEnd()}…`;
    w = lineWidth(doc, shown, style);
  }
  const left = align === 'left' ? x : align === 'right' ? x + width - w : x + (width - w) / 2;
  styled(doc, style).text(shown, left, y, { lineBreak: false, characterSpacing: style.spacing ?? 0 });
}

/** Wrapped text in a column of `width`. */
export function paragraph(
  doc: Pdf,
  text: string,
  x: number,
  y: number,
  width: number,
  style: TextStyle,
  align: 'left' | 'right' = 'left',
): void {
  styled(doc, style).text(text, x, y, { width, align, lineGap: LINE_GAP });
}

export function paragraphHeight(doc: Pdf, text: string, width: number, style: TextStyle): number {
  return styled(doc, style).heightOfString(text, { width, lineGap: LINE_GAP });
}
