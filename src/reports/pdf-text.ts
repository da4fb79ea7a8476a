import type PDFDocument from 'pdfkit';
import type { ReportFace, ReportFonts } from './fonts.ts';

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

interface Faces {
  primary: Record<TextStyle['font'], ReportFace>;
  fallbacks: { name: string; face: ReportFace }[];
}

const facesOf = new WeakMap<Pdf, Faces>();

/** Registers the report's fonts with `doc`: the body and bold faces, and the fallbacks. */
export function registerFonts(doc: Pdf, fonts: ReportFonts): void {
  doc.registerFont(FONT, fonts.regular.data);
  doc.registerFont(BOLD, fonts.bold.data);
  const fallbacks = fonts.fallbacks.map((face, i) => {
    const name = `fallback-${i}`;
    doc.registerFont(name, face.data, face.face as string);
    return { name, face };
  });
  facesOf.set(doc, { primary: { [FONT]: fonts.regular, [BOLD]: fonts.bold }, fallbacks });
}

const PRINTABLE_ASCII = /^[\x20-\x7e]*$/;

/**
 * The face `text` is drawn in: the style's own, unless a fallback has glyphs for more of its
 * characters (a tie keeps the style's face, then prefers the fallback of the style's weight). One
 * face draws a whole text, so a fallback that also has Latin letters (Noto Sans CJK has) keeps a
 * name such as "Acme 株式会社" whole.
 */
export function fontFor(doc: Pdf, font: TextStyle['font'], text: string): string {
  const faces = facesOf.get(doc);
  if (!faces || faces.fallbacks.length === 0 || PRINTABLE_ASCII.test(text)) return font;
  const points = new Set<number>();
  for (const char of text) {
    const point = char.codePointAt(0) as number;
    if (point > 0x20) points.add(point);
  }
  const covered = (face: ReportFace) => {
    let n = 0;
    for (const point of points) if (face.covers(point)) n++;
    return n;
  };
  let best = { name: font as string, covered: covered(faces.primary[font]), matched: true };
  if (best.covered === points.size) return font;
  for (const { name, face } of faces.fallbacks) {
    const candidate = { name, covered: covered(face), matched: face.bold === (font === BOLD) };
    if (
      candidate.covered > best.covered ||
      (candidate.covered === best.covered && candidate.matched && !best.matched)
    )
      best = candidate;
  }
  return best.name;
}

// Font and size only: a measurement needs no colour, and pdfkit writes one to the page at each call.
function sized(doc: Pdf, style: TextStyle, text: string): Pdf {
  return doc.font(fontFor(doc, style.font, text)).fontSize(style.size);
}

/**
 * Sets the face, size and colour for drawing `text`; returns how far to move it down so that its
 * baseline is where the style's own face puts it.
 */
function styled(doc: Pdf, style: TextStyle, text: string): number {
  const name = fontFor(doc, style.font, text);
  doc.font(name).fontSize(style.size).fillColor(style.color);
  const faces = facesOf.get(doc);
  const face = faces?.fallbacks.find((f) => f.name === name)?.face;
  if (!faces || !face) return 0;
  // Noto Sans CJK rises 1.16 em, DejaVu Sans 0.93: drawn at the same top, its baseline sat 2 pt lower.
  return (faces.primary[style.font].ascent - face.ascent) * style.size;
}

/** Draws `text` in the style's face, or its fallback, at the top `y` the style's face would have. */
export function drawText(
  doc: Pdf,
  text: string,
  x: number,
  y: number,
  style: TextStyle,
  options: PDFKit.Mixins.TextOptions,
): void {
  const drop = styled(doc, style, text);
  doc.text(text, x, y + drop, options);
}

export function lineWidth(doc: Pdf, text: string, style: TextStyle): number {
  return sized(doc, style, text).widthOfString(text, { characterSpacing: style.spacing ?? 0 });
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
  drawText(doc, shown, left, y, style, { lineBreak: false, characterSpacing: style.spacing ?? 0 });
}

/**
 * Lines a paragraph shows at most: past them it ends in "…" (the report's HTML and the API hold
 * the whole text). Without a bound a 2,000-character prompt in a table cell ran past the page's
 * foot, and pdfkit carried it over onto pages of its own (131 pages for 60 such prompts).
 */
export const MAX_LINES = 10;

function lineAdvance(doc: Pdf, style: TextStyle, text: string): number {
  return sized(doc, style, text).currentLineHeight(true) + LINE_GAP;
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
  const height = maxLines * lineAdvance(doc, style, text);
  drawText(doc, text, x, y, style, { width, align, lineGap: LINE_GAP, height, ellipsis: true });
}

export function paragraphHeight(
  doc: Pdf,
  text: string,
  width: number,
  style: TextStyle,
  maxLines = MAX_LINES,
): number {
  const whole = sized(doc, style, text).heightOfString(text, { width, lineGap: LINE_GAP });
  return Math.min(whole, maxLines * lineAdvance(doc, style, text));
}
