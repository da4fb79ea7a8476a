import type { Bidi } from 'bidi-js';
import bidiFactory from 'bidi-js';

// The Unicode Bidirectional Algorithm (UAX #9, by bidi-js) for a line of a PDF report. pdfkit
// draws a text left to right as given; fontkit reverses the letters of a right-to-left word as it
// shapes it, but pdfkit lays a text out word by word, so the words of a Hebrew or Arabic name kept
// their reading order on the page and the spaces between them went to its start ("בנק הפועלים"
// showed as " הפועליםבנק").

// CommonJS whose module.exports is the factory; its types declare an ES default export instead.
const bidi = (bidiFactory as unknown as () => Bidi)();

// Hebrew, Arabic, Syriac, Thaana, N'Ko, Samaritan, Mandaic and their presentation forms: the
// blocks of right-to-left letters. A text without any needs no reordering.
const RIGHT_TO_LEFT = /[\u0590-\u08ff\ufb1d-\ufdff\ufe70-\ufefc]/;

export function hasRightToLeft(text: string): boolean {
  return RIGHT_TO_LEFT.test(text);
}

/** A stretch of a line in one direction, its text in reading order. */
export interface Piece {
  text: string;
  rightToLeft: boolean;
}

/**
 * One line as it is drawn, left to right: pieces of one direction each (the report's own
 * direction is left to right). A right-to-left piece's text stays in reading order, brackets
 * mirrored, for the shaping to reverse; `drawnOrder` gives its words' order on the page.
 */
export function visualPieces(text: string): Piece[] {
  if (!hasRightToLeft(text)) return [{ text, rightToLeft: false }];
  const embedding = bidi.getEmbeddingLevels(text, 'ltr');
  const pieces: { start: number; end: number; rightToLeft: boolean }[] = [];
  for (const index of bidi.getReorderedIndices(text, embedding)) {
    const rightToLeft = (embedding.levels[index] ?? 0) % 2 === 1;
    const last = pieces.at(-1);
    if (last?.rightToLeft === rightToLeft && rightToLeft && index === last.start - 1) last.start = index;
    else if (last?.rightToLeft === rightToLeft && !rightToLeft && index === last.end + 1) last.end = index;
    else pieces.push({ start: index, end: index, rightToLeft });
  }
  return pieces.map(({ start, end, rightToLeft }) => {
    const logical = text.slice(start, end + 1);
    const shown = rightToLeft
      ? Array.from(logical, (char) => bidi.getMirroredCharacter(char) ?? char).join('')
      : logical;
    return { text: shown, rightToLeft };
  });
}

/** A right-to-left piece's words and spaces in the order they stand on the page, left to right. */
export function drawnOrder(piece: Piece): string[] {
  const parts = piece.text.split(/(\s+)/).filter((part) => part !== '');
  return piece.rightToLeft ? parts.reverse() : [piece.text];
}
