import { LEXICON, MAX_PHRASE_WORDS, NEGATORS, NOT_NEGATING_NEXT, PHRASE_HEADS } from './lexicon.ts';
import type { Mention } from './matcher.ts';
import { reachOf, startingWithin } from './positions.ts';
import type { Ranking } from './ranking.ts';
import type { Span, Structure } from './structure.ts';
import type { Sentiment } from './types.ts';

// Sentiment toward one brand: the lexicon score of what the answer says about it — the sentences
// that name it (only the clauses naming it when a sentence also names a rival), a following
// sentence that continues with "It…/They…", and the whole entry of a list or table it leads.
// Negation flips the next three words; in "X is faster than Brand" the praise before "than" is
// X's, so it counts against Brand. Positive above 0, negative below, neutral at 0.

const NEGATION_WINDOW = 3;
const ABBREVIATIONS = new Set([
  'e.g',
  'i.e',
  'vs',
  'etc',
  'inc',
  'ltd',
  'co',
  'corp',
  'approx',
  'dr',
  'mr',
  'mrs',
  'ms',
  'no',
  'st',
]);
const BOUNDARY = /[.!?…]+(?=\s|$)|[。！？]+/g;
const CONTRAST =
  /;|,?\s+(?:but|whereas|while|however|although|though|yet|mais|pero|aber|mas|ma)\s+|\s[–—]\s/gi;
const CONTINUATION =
  /^[\s*_"“]*(?:(?:however|but|also|still|overall|unfortunately|that said|on the other hand)[,\s]+)?(?:it|its|it's|they|their|this (?:tool|platform|app|option|product|service|solution))\b/i;
const TOKEN = /[\p{L}\p{N}]+(?:['-][\p{L}\p{N}]+)*|[,;:()]/gu;

/** Whether the period at `dot` ends an abbreviation ("e.g.", "vs.", "Inc.") or an initial ("J."). */
function isAbbreviation(text: string, dot: number): boolean {
  let start = dot;
  while (start > 0 && /[\p{L}.]/u.test(text[start - 1] as string)) start--;
  const word = text.slice(start, dot).toLowerCase();
  return ABBREVIATIONS.has(word) || /^\p{L}$/u.test(word);
}

/** Sentences of the text: split at sentence punctuation and line ends; table cells stand alone. */
export function sentenceSpans(text: string, structure: Structure): Span[] {
  const spans: Span[] = [];
  const push = (start: number, end: number) => {
    if (text.slice(start, end).trim()) spans.push({ start, end });
  };
  for (const line of structure.lines) {
    if (structure.tableRows.has(line.start)) {
      let cell = line.start;
      for (let i = line.start; i <= line.end; i++) {
        if (i === line.end || text[i] === '|') {
          push(cell, i);
          cell = i + 1;
        }
      }
      continue;
    }
    let start = line.start;
    for (const boundary of line.text.matchAll(BOUNDARY)) {
      if (boundary[0] === '.' && isAbbreviation(line.text, boundary.index)) continue;
      const end = line.start + boundary.index + boundary[0].length;
      push(start, end);
      start = end;
    }
    push(start, line.end);
  }
  return spans;
}

/**
 * Lexicon score of a stretch of folded text. `subjectAt` are the subject's positions within it:
 * when they all follow "than", what comes before "than" describes the other side and is inverted.
 */
export function scoreText(folded: string, subjectAt: readonly number[] = []): number {
  const tokens = [...folded.toLowerCase().matchAll(TOKEN)].map((m) => ({ word: m[0], at: m.index }));
  const than = comparisonPivot(folded);
  const invertBefore =
    than !== null && subjectAt.length > 0 && subjectAt.every((at) => at > than) ? than : -1;
  let score = 0;
  let negatedUntil = -1;
  for (let i = 0; i < tokens.length; i++) {
    const token = tokens[i] as { word: string; at: number };
    if (/^[,;:()]$/.test(token.word)) {
      negatedUntil = -1;
      continue;
    }
    if (isNegator(token.word) && !NOT_NEGATING_NEXT.has(tokens[i + 1]?.word ?? '')) {
      negatedUntil = i + NEGATION_WINDOW;
      continue;
    }
    const longest = PHRASE_HEADS.has(token.word) ? Math.min(MAX_PHRASE_WORDS, tokens.length - i) : 1;
    for (let n = longest; n >= 1; n--) {
      const phrase =
        n === 1
          ? token.word
          : tokens
              .slice(i, i + n)
              .map((t) => t.word)
              .join(' ');
      const weight = LEXICON.get(phrase);
      if (weight === undefined) continue;
      let value = i <= negatedUntil ? -weight : weight;
      if (token.at < invertBefore) value = -value;
      score += value;
      i += n - 1;
      break;
    }
  }
  return score;
}

const PIVOT = /\b(?:than|compared (?:to|with))\b/;

/** Where a comparison turns ("X is faster than Brand"): the offset of "than", or null. */
function comparisonPivot(folded: string): number | null {
  return PIVOT.exec(folded.toLowerCase())?.index ?? null;
}

function isNegator(word: string): boolean {
  return NEGATORS.has(word) || word.endsWith("n't");
}

function polarity(score: number): Sentiment {
  return score > 0 ? 'positive' : score < 0 ? 'negative' : 'neutral';
}

/** The sentence cut at contrasts ("…, but Brand is slow"): the clauses that name the subject. */
function clausesNaming(span: Span, folded: string, subjectAt: readonly number[]): Span[] {
  const clauses: Span[] = [];
  let start = span.start;
  for (const cut of folded.slice(span.start, span.end).matchAll(CONTRAST)) {
    clauses.push({ start, end: span.start + cut.index });
    start = span.start + cut.index + cut[0].length;
  }
  clauses.push({ start, end: span.end });
  return clauses.filter((c) => subjectAt.some((at) => at >= c.start && at < c.end));
}

/**
 * A clause speaks about the subject unless a rival is named before it without a comparison
 * between them: in "On is a popular alternative to Hoka" the praise is On's; in "Asana is faster
 * than Brand" it is Asana's and counts against Brand (scoreText inverts it).
 */
function scoreClause(clause: Span, folded: string, mentions: readonly Mention[], subject: number): number {
  const inside = mentions.filter((m) => m.start >= clause.start && m.start < clause.end);
  const firstSubject = inside.find((m) => m.entity === subject);
  if (!firstSubject) return 0;
  const text = folded.slice(clause.start, clause.end);
  const subjectAt = inside.filter((m) => m.entity === subject).map((m) => m.start - clause.start);
  const rivalFirst = inside[0] !== firstSubject;
  if (rivalFirst) {
    const pivot = comparisonPivot(text);
    if (pivot === null || pivot > firstSubject.start - clause.start) return 0;
  }
  return scoreText(text, subjectAt);
}

export function sentimentToward(
  subject: number,
  folded: string,
  structure: Structure,
  mentions: readonly Mention[],
  ranking: Ranking,
): Sentiment {
  const sentences = sentenceSpans(folded, structure);
  const ledBodies = reachOf(
    [...ranking.leaders].filter(([, leader]) => leader === subject).map(([entry]) => entry.body),
  );
  let score = 0;
  let previousWasSubject = false;
  for (const sentence of sentences) {
    const inside = startingWithin(mentions, sentence);
    const subjectAt = inside.filter((m) => m.entity === subject).map((m) => m.start);
    const rivals = inside.some((m) => m.entity !== subject);
    const text = folded.slice(sentence.start, sentence.end);
    if (subjectAt.length > 0) {
      const clauses = rivals ? clausesNaming(sentence, folded, subjectAt) : [sentence];
      for (const clause of clauses) score += scoreClause(clause, folded, inside, subject);
    } else if (!rivals) {
      // A line of the entry the brand leads, or "It…" right after a sentence about the brand.
      const inLedEntry = ledBodies(sentence.start) > sentence.start;
      if (inLedEntry || (previousWasSubject && CONTINUATION.test(text))) score += scoreText(text);
    }
    previousWasSubject = subjectAt.length > 0 && !rivals;
  }
  return polarity(score);
}
