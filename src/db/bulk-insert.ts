import { CompiledQuery, type Insertable } from 'kysely';
import type { Db } from './connect.ts';
import { isPostgres } from './migrations/column-types.ts';
import { copyText } from './postgres/copy-text.ts';
import type { Database } from './types.ts';

// Inserting many rows of one table: the import's answers, mentions and citations and the per-run
// aggregate rows, thousands per import. Kysely turns every value of a multi-row insert into a node
// and compiles it again each time, which cost more than the database's own work on SQLite
// (docs/performance.md "Import"); the statements here are text built once per table, columns and
// row count, so SQLite's statement cache prepares each once. PostgreSQL gets the rows through COPY
// (postgres/copy-client.ts), the fastest way in for rows it parses; COPY returns nothing, so rows
// whose columns must come back (the responses' ids) go as one array parameter per column, typed as
// the table's column and spread into rows by `unnest`, one round trip for thousands of rows. Both
// cost the server less than the one JSON parameter through json_populate_recordset they replaced
// (docs/performance.md, "One array per column on PostgreSQL", "COPY for the import's rows on
// PostgreSQL").

type Row = Readonly<Record<string, unknown>>;

/** SQLite binds at most 32,766 parameters a statement; a few hundred rows already amortise it. */
const SQLITE_ROWS = 500;
const SQLITE_PARAMETERS = 32_000;
const POSTGRES_ROWS = 5_000;

/**
 * Every column any row names, in first-seen order. A row without one of them gets null there (not
 * the column's default) on both databases, so callers give every row the same columns.
 */
function columnsOf(rows: readonly Row[]): string[] {
  const columns = new Set<string>();
  for (const row of rows) for (const column in row) columns.add(column);
  return [...columns];
}

const quoted = (name: string) => `"${name}"`;

// Each table's column types as PostgreSQL names them (`bigint`, `timestamp with time zone`), read
// from the catalog on a table's first bulk insert. Migrations add columns but never change one's
// type, so a column missing here means a newer schema than the one read: it is read again.
const postgresTypes = new Map<string, ReadonlyMap<string, string>>();

async function postgresTypesOf(
  db: Db,
  table: string,
  columns: readonly string[],
): Promise<ReadonlyMap<string, string>> {
  const known = postgresTypes.get(table);
  if (known && columns.every((column) => known.has(column))) return known;
  const { rows } = await db.executeQuery<{ name: string; type: string }>(
    CompiledQuery.raw(
      `select attname as name, format_type(atttypid, atttypmod) as type from pg_attribute
        where attrelid = $1::regclass and attnum > 0 and not attisdropped`,
      [quoted(table)],
    ),
  );
  const types = new Map(rows.map((row) => [row.name, row.type]));
  postgresTypes.set(table, types);
  return types;
}

// Full-size statements, kept by shape: the same string each time lets the statement cache find
// it without hashing its tens of kilobytes again. Shorter last statements are built each time.
const fullStatements = new Map<string, string>();

function sqliteStatement(table: string, columns: readonly string[], rows: number, returning: string): string {
  const tuple = `(${columns.map(() => '?').join(', ')})`;
  return `insert into ${quoted(table)} (${columns.map(quoted).join(', ')}) values ${Array(rows).fill(tuple).join(', ')}${returning}`;
}

/**
 * Inserts the rows, in statements of many rows each, on the handle given (inside its
 * transaction when it is one). Returns the `returning` columns of every inserted row, in no
 * promised order.
 */
export async function insertRows<T extends keyof Database & string, R extends keyof Database[T] & string>(
  db: Db,
  table: T,
  rows: readonly Insertable<Database[T]>[],
  returning: readonly R[] = [],
): Promise<Record<R, unknown>[]> {
  if (rows.length === 0) return [];
  // Each row was checked against the table above; from here on they are plain column maps.
  const plain = rows as readonly Row[];
  const columns = columnsOf(plain);
  const back = returning.length > 0 ? ` returning ${returning.map(quoted).join(', ')}` : '';
  const names = columns.map(quoted).join(', ');
  const out: Record<R, unknown>[] = [];
  if (isPostgres(db)) {
    if (returning.length === 0) {
      const statement = `copy ${quoted(table)} (${names}) from stdin`;
      for (let i = 0; i < plain.length; i += POSTGRES_ROWS) {
        await db.executeQuery(
          CompiledQuery.raw(statement, [copyText(plain.slice(i, i + POSTGRES_ROWS), columns)]),
        );
      }
      return out;
    }
    const types = await postgresTypesOf(db, table, columns);
    const arrays = columns.map((column, i) => `$${i + 1}::${types.get(column)}[]`);
    const statement = `insert into ${quoted(table)} (${names}) select * from unnest(${arrays.join(', ')})${back}`;
    for (let i = 0; i < plain.length; i += POSTGRES_ROWS) {
      const chunk = plain.slice(i, i + POSTGRES_ROWS);
      const parameters = columns.map((column) => chunk.map((row) => row[column] ?? null));
      out.push(...(await db.executeQuery<Record<R, unknown>>(CompiledQuery.raw(statement, parameters))).rows);
    }
    return out;
  }
  const perStatement = Math.min(SQLITE_ROWS, Math.floor(SQLITE_PARAMETERS / columns.length));
  for (let i = 0; i < plain.length; i += perStatement) {
    const chunk = plain.slice(i, i + perStatement);
    const parameters: unknown[] = [];
    for (const row of chunk) for (const column of columns) parameters.push(row[column] ?? null);
    const full = chunk.length === perStatement;
    const shape = `${table}(${columns.join()})${back}`;
    let statement = full ? fullStatements.get(shape) : undefined;
    if (statement === undefined) {
      statement = sqliteStatement(table, columns, chunk.length, back);
      if (full) fullStatements.set(shape, statement);
    }
    out.push(...(await db.executeQuery<Record<R, unknown>>(CompiledQuery.raw(statement, parameters))).rows);
  }
  return out;
}
