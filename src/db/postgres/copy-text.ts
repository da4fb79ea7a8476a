// Rows in COPY's text format, for `copy … from stdin` (copy-client.ts sends them). Apart from the
// client so that building them loads no PostgreSQL driver: bulk-insert.ts imports this on SQLite too.

const ESCAPES: Record<string, string> = { '\\': '\\\\', '\n': '\\n', '\r': '\\r', '\t': '\\t' };

/** One value in COPY's text format: `\N` for null, the rest as text with its separators escaped. */
function copyValue(value: unknown): string {
  if (value === null || value === undefined) return '\\N';
  // Every column the bulk inserts write is text or a number; anything else (a blob) would need a
  // format of its own here.
  if (typeof value !== 'string' && typeof value !== 'number') {
    throw new TypeError(`COPY rows take text and numbers, not ${Object.prototype.toString.call(value)}`);
  }
  return String(value).replace(/[\\\n\r\t]/g, (c) => ESCAPES[c] as string);
}

/** Rows in COPY's text format: a line per row, its columns' values in order, tab-separated. */
export function copyText(
  rows: readonly Readonly<Record<string, unknown>>[],
  columns: readonly string[],
): string {
  let text = '';
  for (const row of rows) text += `${columns.map((column) => copyValue(row[column])).join('\t')}\n`;
  return text;
}
