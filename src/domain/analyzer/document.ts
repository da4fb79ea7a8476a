import { htmlToMarkdown } from './html.ts';
import { fold } from './names.ts';

// One answer prepared for reading: its markdown, and a masked copy of the same length in which code,
// URLs and e-mail addresses are blanked out. A name found in the masked text is visible prose; the
// URLs cut out of it are the answer's in-text sources.

export interface PreparedAnswer {
  /** The markdown read: the HTML's when the answer has usable HTML, else the text. */
  markdown: string;
  /** markdown with code, URLs and e-mail addresses replaced by spaces (newlines kept). */
  masked: string;
  /** masked with diacritics stripped and apostrophes unified, for matching. */
  folded: string;
  /** URLs found outside code, in order of appearance, as written. */
  urls: string[];
}

// The fence is taken whole (a lookahead does not give back what it matched, and the backreference
// then consumes it): backtracking through a shorter fence could never close a block the whole one
// does not, since every opened block ends by the end of the text, and on a long run of backticks
// without a line break it tried every length, each against the rest of the line (200,000 backticks:
// 22 s).
const FENCED_CODE = /^[ \t]*(?=(`{3,}|~{3,}))\1[^\n]*\n[\s\S]*?(?:^[ \t]*\1[ \t]*$|(?![\s\S]))/gm;
const INLINE_CODE = /`[^`\n]+`/g;
const URL = /\b(?:https?:\/\/|www\.)[^\s<>"'`[\]{}|\\^]+/gi;
const EMAIL = /[\p{L}\p{N}._%+-]+@[\p{L}\p{N}-]+(?:\.[\p{L}\p{N}-]+)*\.\p{L}{2,}/gu;
const TRAILING_CHARS = '.,;:!?\'"*_>)';

function blank(text: string): string {
  return text.replace(/[^\n]/g, ' ');
}

/** Cuts sentence punctuation and unbalanced closing brackets off the end of a URL found in prose. */
function trimUrl(raw: string): string {
  let url = raw;
  while (url.length > 0) {
    const last = url[url.length - 1] ?? '';
    if (!TRAILING_CHARS.includes(last)) break;
    // A closing parenthesis that closes one opened inside the URL belongs to it (Wikipedia-style).
    if (last === ')' && count(url, '(') >= count(url, ')')) break;
    url = url.slice(0, -1);
  }
  return url;
}

function count(text: string, char: string): number {
  let n = 0;
  for (const c of text) if (c === char) n++;
  return n;
}

export function prepareAnswer(text: string, html?: string | null): PreparedAnswer {
  const fromHtml = html ? htmlToMarkdown(html) : '';
  const markdown = fromHtml.trim() ? fromHtml : text;
  // Each pattern only runs when its telltale character is there: most answers have no code or mail.
  let masked = markdown;
  if (masked.includes('```') || masked.includes('~~~')) masked = masked.replace(FENCED_CODE, blank);
  if (masked.includes('`')) masked = masked.replace(INLINE_CODE, blank);
  const urls: string[] = [];
  if (masked.includes('://') || /www\./i.test(masked)) {
    masked = masked.replace(URL, (raw) => {
      const url = trimUrl(raw);
      urls.push(url);
      return blank(url) + raw.slice(url.length);
    });
  }
  if (masked.includes('@')) masked = masked.replace(EMAIL, blank);
  return { markdown, masked, folded: fold(masked), urls };
}
