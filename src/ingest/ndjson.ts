import { isUtf8 } from 'node:buffer';

// The lines of an answers file, read from its bytes with a bound on each: a line is decoded only
// once it is whole, and one longer than MAX_LINE_BYTES is not kept at all (its bytes are counted
// and dropped) but reported as such. Without the bound a 600 MB line (a file missing its line
// breaks, a binary file) ended the import with V8's "Invalid string length" and a stack trace,
// after holding it all in memory.

/**
 * The longest line read: no valid answer line comes near it (its text fields hold 2.2 million
 * characters at most, ~14 MB as JSON were every one of them escaped as \uXXXX).
 */
export const MAX_LINE_BYTES = 32 * 1024 * 1024;

/**
 * A line whose bytes are not UTF-8 (a Windows-1252 export's "café"), in place of its text:
 * decoded anyway, each bad byte would be stored as U+FFFD without a word.
 */
export class NotUtf8Line {}

/** A line longer than the bound, in place of its text. */
export class OverlongLine {
  readonly bytes: number;
  constructor(bytes: number) {
    this.bytes = bytes;
  }
}

/** A line of the file: its text, or what stands in place of a text that cannot be read. */
export type NdjsonLine = string | OverlongLine | NotUtf8Line;

const LF = 10;
const CR = 13;

/**
 * Every line of `input` (LF, CRLF or CR ends one; a last line without an end counts), decoded as
 * UTF-8, or an OverlongLine where it ran past `maxBytes`.
 */
export async function* ndjsonLines(
  input: AsyncIterable<Buffer>,
  maxBytes = MAX_LINE_BYTES,
): AsyncGenerator<NdjsonLine> {
  let parts: Buffer[] = [];
  let size = 0;
  let overlong = false;
  // A CR that ended the last chunk: an LF starting the next one belongs to the same line end.
  let afterCR = false;
  const take = (piece: Buffer) => {
    size += piece.length;
    if (overlong) return;
    if (size > maxBytes) {
      overlong = true;
      parts = [];
    } else if (piece.length > 0) parts.push(piece);
  };
  const finish = (): NdjsonLine => {
    const bytes = overlong ? undefined : Buffer.concat(parts, size);
    const line =
      bytes === undefined
        ? new OverlongLine(size)
        : isUtf8(bytes)
          ? bytes.toString('utf8')
          : new NotUtf8Line();
    parts = [];
    size = 0;
    overlong = false;
    return line;
  };
  for await (const chunk of input) {
    let start = 0;
    if (afterCR && chunk[0] === LF) start = 1;
    afterCR = false;
    // Found by Buffer.indexOf (native), not byte by byte: a CR is rare, so its search seldom reruns.
    let lf = chunk.indexOf(LF, start);
    let cr = chunk.indexOf(CR, start);
    while (lf !== -1 || cr !== -1) {
      const end = cr === -1 || (lf !== -1 && lf < cr) ? lf : cr;
      take(chunk.subarray(start, end));
      yield finish();
      start = end + 1;
      if (end === cr) {
        if (start === chunk.length) afterCR = true;
        else if (chunk[start] === LF) start++;
      }
      if (lf !== -1 && lf < start) lf = chunk.indexOf(LF, start);
      if (cr !== -1 && cr < start) cr = chunk.indexOf(CR, start);
    }
    take(chunk.subarray(start));
  }
  if (size > 0 || overlong) yield finish();
}
