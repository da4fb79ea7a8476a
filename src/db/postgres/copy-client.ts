import { finished } from 'node:stream/promises';
import pg from 'pg';
import { from as copyFrom } from 'pg-copy-streams';

// Rows for a bulk insert in PostgreSQL's COPY protocol (`copy … from stdin`), which the server
// parses about a third faster than the same rows as array parameters (docs/performance.md, "COPY
// for the import's rows on PostgreSQL"). Kysely hands a connection only SQL text and parameters,
// so the clients of the pool that writes are of this class (not the read pools', which send no COPY
// and would prepare one): a `copy <table> (<columns>) from stdin` statement with one parameter, the
// rows in COPY's text format (copy-text.ts), is sent as a COPY; everything else goes to node-postgres
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
