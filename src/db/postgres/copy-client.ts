import { finished } from 'node:stream/promises';
import pg from 'pg';
import { from as copyFrom } from 'pg-copy-streams';

// Rows for a bulk insert in PostgreSQL's COPY protocol (`copy … from stdin`), which the server
// parses about a third faster than the same rows as array parameters (docs/performance.md, "COPY
// for the import's rows on PostgreSQL"). Kysely hands a connection only SQL text and parameters,
// so the clients of the pool that writes are of this class (not the read pools', which send no COPY
// and would prepare one): a `copy <table> (<columns>) from stdin` statement with one parameter, the
// rows in COPY's text format (copyText), is sent as a COPY; everything else goes to node-postgres
// as it came.

const COPY_IN = /^copy [^;]* from stdin$/;

export class CopyingClient extends pg.Client {
  // node-postgres's query has a dozen overloads; this one only looks at its arguments.
  override query(...args: unknown[]): never {
    const [text, values, callback] = args;
    if (
      typeof text === 'string' &&
      COPY_IN.test(text) &&
      Array.isArray(values) &&
      values.length === 1 &&
      typeof values[0] === 'string' &&
      callback === undefined
    ) {
      return this.copyIn(text, values[0]) as never;
    }
    return (super.query as (...a: unknown[]) => never).apply(this, args);
  }

  private async copyIn(text: string, rows: string): Promise<pg.QueryResult> {
    const stream = (super.query as (q: unknown) => ReturnType<typeof copyFrom>).call(this, copyFrom(text));
    stream.end(rows);
    // Settles once the server has answered the COPY: its row count, or the error that refused it.
    await finished(stream);
    return { command: 'COPY', rowCount: Number(stream.rowCount), rows: [], fields: [], oid: 0 };
  }
}

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
