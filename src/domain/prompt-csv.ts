import { InvalidInput, parseRef, type Ref, validExternalKey, validPromptText } from './catalog.ts';
import { CsvError, type CsvRecord, parseCsv } from './csv.ts';

// The prompts file `sightline prompts import` reads: CSV with a header row. Columns (any order,
// names case-insensitive): text (required), key, category, monitored. docs/ingest.md shows one.

export interface PromptRow {
  line: number;
  text: string;
  key: string | null;
  category: Ref | null;
  monitored: boolean;
}

const COLUMNS = ['text', 'key', 'category', 'monitored'] as const;
type Column = (typeof COLUMNS)[number];
const SYNONYMS: Record<string, Column> = { prompt: 'text', external_key: 'key', externalkey: 'key' };
const TRUE = new Set(['true', 'yes', '1', 'y', 'on']);
const FALSE = new Set(['false', 'no', '0', 'n', 'off']);

/** The rows of a prompts CSV, or every problem found in it (with line numbers). */
export function parsePromptCsv(text: string): { rows: PromptRow[]; errors: string[] } {
  let records: CsvRecord[];
  try {
    records = parseCsv(text);
  } catch (error) {
    if (error instanceof CsvError) return { rows: [], errors: [error.message] };
    throw error;
  }
  const header = records.shift();
  if (!header)
    return {
      rows: [],
      errors: ['the file is empty: expected a header row such as "text,key,category,monitored"'],
    };
  const columns = header.fields.map((name) => {
    const key = name.trim().toLowerCase();
    return (SYNONYMS[key] ?? key) as Column;
  });
  const unknown = columns.filter((c) => !COLUMNS.includes(c));
  // A column named twice (or by a synonym too) would have one of its values silently ignored.
  const repeated = COLUMNS.find((c) => columns.indexOf(c) !== columns.lastIndexOf(c));
  if (unknown.length === 0 && repeated) {
    const names = header.fields.filter((_, i) => columns[i] === repeated).map((name) => `"${name.trim()}"`);
    return {
      rows: [],
      errors: [
        `line ${header.line}: the header names the ${repeated} column more than once (${names.join(', ')})`,
      ],
    };
  }
  if (unknown.length > 0 || !columns.includes('text')) {
    return {
      rows: [],
      errors: [
        `line ${header.line}: the header must name a "text" column and may add ${COLUMNS.slice(1).join(', ')}` +
          (unknown.length > 0 ? `; unknown column(s): ${unknown.join(', ')}` : ''),
      ],
    };
  }
  const rows: PromptRow[] = [];
  const errors: string[] = [];
  for (const record of records) {
    if (record.fields.length !== columns.length) {
      errors.push(`line ${record.line}: expected ${columns.length} fields, found ${record.fields.length}`);
      continue;
    }
    const value = (column: Column) => (record.fields[columns.indexOf(column)] ?? '').trim();
    try {
      const monitored = value('monitored').toLowerCase();
      if (monitored && !TRUE.has(monitored) && !FALSE.has(monitored)) {
        throw new InvalidInput(`monitored must be true or false, got "${value('monitored')}"`);
      }
      rows.push({
        line: record.line,
        text: validPromptText(value('text')),
        key: value('key') ? validExternalKey(value('key')) : null,
        category: value('category') ? parseRef(value('category')) : null,
        monitored: !FALSE.has(monitored),
      });
    } catch (error) {
      if (!(error instanceof InvalidInput)) throw error;
      errors.push(`line ${record.line}: ${error.message}`);
    }
  }
  if (rows.length === 0 && errors.length === 0) errors.push('the file has a header but no prompts');
  return { rows, errors };
}
