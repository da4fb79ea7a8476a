import type PDFDocument from 'pdfkit';
import { drawnOrder, hasRightToLeft, visualPieces } from './bidi.ts';
import type { ReportFace, ReportFonts } from './fonts.ts';

// Text primitives for the PDF renderer. pdfkit wraps any text given a width, even single-line
// labels; `line` never passes one, so a label stays on its line and is clipped with an ellipsis.
// Each character is drawn in the first face that has it: DejaVu Sans, then REPORT_FONTS.

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
  /** Characters no face has, in the order the document met them: they print as empty boxes. */
  missing: Set<string>;
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
  facesOf.set(doc, { primary: { [FONT]: fonts.regular, [BOLD]: fonts.bold }, fallbacks, missing: new Set() });
}

/** The characters `doc` drew, or measured, that no face has (each once). */
export function missingGlyphs(doc: Pdf): string[] {
  return [...(facesOf.get(doc)?.missing ?? [])];
}

const PRINTABLE_ASCII = /^[\x20-\x7e]*$/;
// Spaces, combining marks and joiners belong with what they follow (a mark drawn in another face
// than its letter would not sit on it).
const JOINS = /^[\s\p{M}\p{Cf}]$/u;
// Drawn as nothing whatever the face: no glyph is missing for them.
const INVISIBLE = /^[\s\p{Cc}\p{Cf}]$/u;

/** A stretch of text drawn in one face, by its registered name. */
export interface Run {
  text: string;
  font: string;
}

/**
 * `text` cut where its face changes: each character in the first face that has it, the style's
 * own, then the fallbacks (of the style's weight first); a space, mark or joiner in the run it
 * follows when that face has it. So "ไทยเดสก์ Acme" is Noto Sans Thai, then DejaVu Sans: neither
 * has both.
 */
export function runsOf(doc: Pdf, style: TextStyle, text: string): Run[] {
  const faces = facesOf.get(doc);
  if (!faces || PRINTABLE_ASCII.test(text)) return [{ text, font: style.font }];
  const bold = style.font === BOLD;
  const ordered = [
    { name: style.font as string, face: faces.primary[style.font] },
    ...faces.fallbacks.filter((f) => f.face.bold === bold),
    ...faces.fallbacks.filter((f) => f.face.bold !== bold),
  ];
  const runs: Run[] = [];
  for (const char of text) {
    const point = char.codePointAt(0) as number;
    const last = runs.at(-1);
    const stays = last && JOINS.test(char) && ordered.find((f) => f.name === last.font)?.face.covers(point);
    const found = stays ? last.font : ordered.find((f) => f.face.covers(point))?.name;
    if (found === undefined && !INVISIBLE.test(char)) faces.missing.add(char);
    const font = found ?? style.font;
    if (last?.font === font) last.text += char;
    else runs.push({ text: char, font });
  }
  return runs;
}

/**
 * How far to move a run down so that its baseline is where the style's face puts it: pdfkit places
 * a text by its top, and Noto Sans CJK rises 1.16 em where DejaVu Sans rises 0.93 (its baseline sat
 * 2 pt lower).
 */
function dropOf(doc: Pdf, style: TextStyle, font: string): number {
  const faces = facesOf.get(doc);
  const face = faces?.fallbacks.find((f) => f.name === font)?.face;
  if (!faces || !face) return 0;
  return (faces.primary[style.font].ascent - face.ascent) * style.size;
}

// Font and size only: a measurement needs no colour, and pdfkit writes one to the page at each call.
function sized(doc: Pdf, style: TextStyle, font: string): Pdf {
  return doc.font(font).fontSize(style.size);
}

function runWidth(doc: Pdf, run: Run, style: TextStyle): number {
  return sized(doc, style, run.font).widthOfString(run.text, { characterSpacing: style.spacing ?? 0 });
}

export function lineWidth(doc: Pdf, text: string, style: TextStyle): number {
  const runs = runsOf(doc, style, text);
  const between = (style.spacing ?? 0) * (runs.length - 1);
  return runs.reduce((sum, run) => sum + runWidth(doc, run, style), between);
}

/**
 * The most characters, from 1 to `most`, whose `shown` form fits `width`; 1 when none does. Found
 * by halving, not by dropping a character at a time: a width is measured glyph by glyph, so that
 * was quadratic (a 2,000-character prompt 3.9 s).
 */
function fitting(doc: Pdf, most: number, width: number, style: TextStyle, shown: (kept: number) => string) {
  let fits = 1;
  let tooLong = most + 1;
  while (tooLong - fits > 1) {
    const middle = Math.floor((fits + tooLong) / 2);
    if (lineWidth(doc, shown(middle), style) <= width) fits = middle;
    else tooLong = middle;
  }
  return fits;
}

const ellipsized = (chars: readonly string[]) => (kept: number) =>
  `${chars.slice(0, kept).join('').trimEnd()}…`;

/**
 * `text` as it fits on one line of `width`: whole, or its longest start that fits with an ellipsis
 * after it (at least one character). Cut between code points, never inside a surrogate pair.
 */
export function clipped(doc: Pdf, text: string, width: number, style: TextStyle): string {
  const chars = Array.from(text);
  if (chars.length <= 1 || lineWidth(doc, text, style) <= width) return text;
  const shown = ellipsized(chars);
  return shown(fitting(doc, chars.length - 1, width, style, shown));
}

/**
 * Draws `text` on one line from `x`, each run in its face, on the style's baseline; right-to-left
 * words in their order on the page (`bidi.ts`), each shaped, and so reversed, on its own.
 */
function drawRuns(doc: Pdf, text: string, x: number, y: number, style: TextStyle): void {
  let left = x;
  for (const piece of visualPieces(text))
    for (const part of drawnOrder(piece)) {
      const runs = runsOf(doc, style, part);
      for (const run of piece.rightToLeft ? runs.reverse() : runs) {
        sized(doc, style, run.font).fillColor(style.color);
        doc.text(run.text, left, y + dropOf(doc, style, run.font), {
          lineBreak: false,
          characterSpacing: style.spacing ?? 0,
        });
        left += runWidth(doc, run, style) + (style.spacing ?? 0);
      }
    }
}

function aligned(x: number, width: number, used: number, align: 'left' | 'right' | 'center'): number {
  return align === 'left' ? x : align === 'right' ? x + width - used : x + (width - used) / 2;
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
  drawRuns(doc, shown, aligned(x, width, lineWidth(doc, shown, style), align), y, style);
}

/**
 * Lines a paragraph shows at most: past them it ends in "…" (the report's HTML and the API hold
 * the whole text). Without a bound a 2,000-character prompt in a table cell ran past the page's
 * foot, and pdfkit carried it over onto pages of its own (131 pages for 60 such prompts).
 */
export const MAX_LINES = 10;

function advance(doc: Pdf, style: TextStyle, runs: readonly Run[]): number {
  const heights = runs.map((run) => sized(doc, style, run.font).currentLineHeight(true));
  return Math.max(...heights) + LINE_GAP;
}

// Between words as ICU finds them, which it does for scripts without spaces too (Thai, Japanese).
// Made on first use: it takes ~13 ms, and most reports never wrap a text themselves.
let words: Intl.Segmenter | undefined;
function wordsOf(text: string): Intl.Segments {
  words ??= new Intl.Segmenter(undefined, { granularity: 'word' });
  return words.segment(text);
}

/**
 * A paragraph of more than one face, or with right-to-left words, as lines: pdfkit wraps a text in
 * one face and draws it left to right, so it is wrapped here, between words, a word wider than the
 * column between characters; at most `maxLines`, the last ending in "…" when text is left over.
 */
function wrapped(doc: Pdf, text: string, width: number, style: TextStyle, maxLines: number): string[] {
  const lines: string[] = [];
  // Past its last line shown the rest is not wrapped (a 2,000-character prompt in a cell).
  const full = () => lines.length > maxLines;
  for (const given of text.split('\n')) {
    let current = '';
    for (const { segment } of wordsOf(given)) {
      if (full()) break;
      if (lineWidth(doc, (current + segment).trimEnd(), style) <= width) {
        current += segment;
        continue;
      }
      if (current.trim() !== '') lines.push(current.trimEnd());
      let rest = Array.from(current.trim() === '' ? current + segment : segment.trimStart());
      while (rest.length > 1 && !full() && lineWidth(doc, rest.join('').trimEnd(), style) > width) {
        const kept = fitting(doc, rest.length, width, style, (n) => rest.slice(0, n).join(''));
        lines.push(rest.slice(0, kept).join(''));
        rest = rest.slice(kept);
      }
      current = rest.join('');
    }
    if (full()) break;
    lines.push(current.trimEnd());
  }
  if (lines.length <= maxLines) return lines;
  const last = Array.from(lines[maxLines - 1] ?? '');
  const shown = ellipsized(last);
  return [...lines.slice(0, maxLines - 1), shown(fitting(doc, last.length, width, style, shown))];
}

/**
 * How a paragraph is laid out, drawn and measured alike: by pdfkit when it is in one face and reads
 * left to right (`face`), else as Sightline's own lines; `step` from one line to the next.
 */
function laidOut(
  doc: Pdf,
  text: string,
  width: number,
  style: TextStyle,
  maxLines: number,
): { step: number; face: Run } | { step: number; lines: string[] } {
  const runs = runsOf(doc, style, text);
  const step = advance(doc, style, runs);
  const [only] = runs;
  if (only && runs.length === 1 && !hasRightToLeft(text)) return { step, face: only };
  return { step, lines: wrapped(doc, text, width, style, maxLines) };
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
  const layout = laidOut(doc, text, width, style, maxLines);
  if ('face' in layout) {
    sized(doc, style, layout.face.font).fillColor(style.color);
    doc.text(text, x, y + dropOf(doc, style, layout.face.font), {
      width,
      align,
      lineGap: LINE_GAP,
      height: maxLines * layout.step,
      ellipsis: true,
    });
    return;
  }
  layout.lines.forEach((shown, i) => {
    drawRuns(doc, shown, aligned(x, width, lineWidth(doc, shown, style), align), y + i * layout.step, style);
  });
}

export function paragraphHeight(
  doc: Pdf,
  text: string,
  width: number,
  style: TextStyle,
  maxLines = MAX_LINES,
): number {
  const layout = laidOut(doc, text, width, style, maxLines);
  if (!('face' in layout)) return layout.lines.length * layout.step;
  const whole = sized(doc, style, layout.face.font).heightOfString(text, { width, lineGap: LINE_GAP });
  return Math.min(whole, maxLines * layout.step);
}
