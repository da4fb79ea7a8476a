// A small RFC 4180 reader: quoted fields with commas, doubled quotes and line breaks, CRLF or LF
// line ends, a leading byte-order mark. Each record carries the line it starts on, for messages.

export interface CsvRecord {
  line: number;
  fields: string[];
}

export class CsvError extends Error {
  override name = 'CsvError';
}

export function parseCsv(input: string): CsvRecord[] {
  const text = input.startsWith('\ufeff') ? input.slice(1) : input;
  const records: CsvRecord[] = [];
  let fields: string[] = [];
  let field = '';
  let line = 1;
  let recordLine = 1;
  let quoted = false;
  let i = 0;
  const endRecord = () => {
    fields.push(field);
    // A line with nothing on it is not a record.
    if (fields.length > 1 || fields[0] !== '') records.push({ line: recordLine, fields });
    fields = [];
    field = '';
  };
  while (i < text.length) {
    const c = text[i] as string;
    if (quoted) {
      if (c === '"' && text[i + 1] === '"') {
        field += '"';
        i += 2;
        continue;
      }
      if (c === '"') {
        quoted = false;
        // RFC 4180: a quoted field ends at its closing quote. Spaces a hand-edited file leaves
        // before the next comma are dropped (every value is trimmed anyway); any other text after
        // it would be a value quoted by half.
        while (text[i + 1] === ' ' || text[i + 1] === '\t') i++;
        const next = text[i + 1];
        if (next !== undefined && next !== ',' && next !== '\n' && next !== '\r') {
          throw new CsvError(
            `line ${line}: text after a closing quote; wrap the whole field in quotes and double the quotes inside it ("")`,
          );
        }
      } else {
        if (c === '\n') line++;
        field += c;
      }
      i++;
      continue;
    }
    if (c === '"' && field === '') quoted = true;
    else if (c === '"')
      throw new CsvError(
        `line ${line}: a quote inside an unquoted field; wrap the field in quotes and double the quote ("")`,
      );
    else if (c === ',') {
      fields.push(field);
      field = '';
    } else if (c === '\n' || c === '\r') {
      if (c === '\r' && text[i + 1] === '\n') i++;
      endRecord();
      line++;
      recordLine = line;
    } else field += c;
    i++;
  }
  if (quoted) throw new CsvError(`line ${recordLine}: a quoted field is never closed`);
  if (field !== '' || fields.length > 0) endRecord();
  return records;
}
