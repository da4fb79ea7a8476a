// Text folding shared by matching and canonical keys. Folding keeps the string's length (one UTF-16
// unit in, one out) so that offsets found in the folded text point into the original.

const foldedChars = new Map<string, string>();

function foldChar(c: string): string {
  let folded = foldedChars.get(c);
  if (folded === undefined) {
    if (c === '\u2019' || c === '\u2018' || c === '\u02bc') folded = "'";
    else if (c === '\u00a0') folded = ' ';
    else {
      const decomposed = c.normalize('NFD');
      const base = decomposed[0] ?? c;
      // Only a letter followed by combining marks is folded (é → e); ß, æ, ł and friends stay.
      folded = decomposed.length > 1 && /^\p{M}+$/u.test(decomposed.slice(1)) ? base : c;
    }
    foldedChars.set(c, folded);
  }
  return folded;
}

/** Strips diacritics and unifies apostrophes, keeping every offset. */
export function fold(text: string): string {
  return text.replace(/[\u0080-\uffff]/g, foldChar);
}

/** The lower-case, whitespace-collapsed form names are compared in. */
export function normalizeName(text: string): string {
  return fold(text).toLowerCase().replace(/\s+/g, ' ').trim();
}

const LEGAL_SUFFIX = /[\s,]+(?:inc|llc|ltd|limited|gmbh|corp|corporation|plc|s\.?a|ag|co)\.?$/i;

/**
 * The stable identity of a brand name: lower case, no diacritics, legal suffixes dropped, every run
 * of punctuation or spaces turned into one hyphen ("Monday.com Inc." → "monday-com").
 */
export function canonicalKey(name: string): string {
  return normalizeName(name)
    .replace(LEGAL_SUFFIX, '')
    .replace(/[^\p{L}\p{N}]+/gu, '-')
    .replace(/^-+|-+$/g, '');
}
