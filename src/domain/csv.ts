// A small RFC 4180 reader: quoted fields with commas, doubled quotes and line breaks, CRLF or LF
// line ends, a leading byte-order mark. Each record carries the line it starts on, for messages.

export interface CsvRecord {
  line: number;
  fields: string[];
}

export class CsvError extends Error {
  override name = 'CsvError';
}

const QUOTE = 34;
const COMMA = 44;
const LF = 10;
const CR = 13;

/** Line feeds in text[from, to). */
function lineFeeds(text: string, from: number, to: number): number {
  let count = 0;
  for (let i = text.indexOf('\n', from); i !== -1 && i < to; i = text.indexOf('\n', i + 1)) count++;
  return count;
}

// Fields are taken as slices of the text between delimiters: built a character at a time, a field
// is a chain of one-character strings until it is read, and a 50 MB file held ~2 GB.
export function parseCsv(input: string): CsvRecord[] {
  const text = input.startsWith('\ufeff') ? input.slice(1) : input;
  const records: CsvRecord[] = [];
  let fields: string[] = [];
  let field = '';
  let line = 1;
  let recordLine = 1;
  let i = 0;
  const endRecord = () => {
    fields.push(field);
    // A line with nothing on it is not a record.
    if (fields.length > 1 || fields[0] !== '') records.push({ line: recordLine, fields });
    fields = [];
    field = '';
  };
  while (i < text.length) {
    const c = text.charCodeAt(i);
    if (c === QUOTE && field === '') {
      // A quoted field: up to the quote not doubled, doubled quotes read as one.
      let start = i + 1;
      for (;;) {
        const quote = text.indexOf('"', start);
        if (quote === -1) throw new CsvError(`line ${recordLine}: a quoted field is never closed`);
        line += lineFeeds(text, start, quote);
        if (text.charCodeAt(quote + 1) === QUOTE) {
          field += text.slice(start, quote + 1);
          start = quote + 2;
          continue;
        }
        field += text.slice(start, quote);
        i = quote + 1;
        break;
      }
      // RFC 4180: a quoted field ends at its closing quote. Spaces a hand-edited file leaves
      // before the next comma are dropped (every value is trimmed anyway); any other text after
      // it would be a value quoted by half.
      while (text[i] === ' ' || text[i] === '\t') i++;
      const next = text.charCodeAt(i);
      if (i < text.length && next !== COMMA && next !== LF && next !== CR) {
        throw new CsvError(
          `line ${line}: text after a closing quote; wrap the whole field in quotes and double the quotes inside it ("")`,
        );
      }
    } else if (c === QUOTE) {
      throw new CsvError(
        `line ${line}: a quote inside an unquoted field; wrap the field in quotes and double the quote ("")`,
      );
    } else if (c === COMMA) {
      fields.push(field);
      field = '';
      i++;
    } else if (c === LF || c === CR) {
      if (c === CR && text.charCodeAt(i + 1) === LF) i++;
      endRecord();
      line++;
      recordLine = line;
      i++;
    } else {
      let end = i + 1;
      for (; end < text.length; end++) {
        const d = text.charCodeAt(end);
        if (d === COMMA || d === LF || d === CR || d === QUOTE) break;
      }
      field += text.slice(i, end);
      i = end;
    }
  }
  if (field !== '' || fields.length > 0) endRecord();
  return records;
}
