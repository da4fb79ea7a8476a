import type { DatabaseSync } from 'node:sqlite';
import { type SqliteDatabase, SqliteDialect, type SqliteStatement } from 'kysely';
import { statementCache } from './statement-cache.js';

// Kysely's SQLite dialect speaks the better-sqlite3 interface; node:sqlite differs only in taking
// parameters spread rather than as an array, and in how it reports whether a statement reads.
function adapt(db: DatabaseSync): SqliteDatabase {
  const cached = statementCache(db);
  return {
    close: () => db.close(),
    prepare(sql: string): SqliteStatement {
      const { statement, reader } = cached(sql);
      type Params = Parameters<typeof statement.all>;
      return {
        reader,
        all: (parameters) => statement.all(...(parameters as Params)),
        run: (parameters) => statement.run(...(parameters as Params)),
        iterate: (parameters) => statement.iterate(...(parameters as Params)),
      };
    },
  };
}

/** The dialect for the process's own connection: migrations, the CLI, imports and seeding. */
export function inProcessSqliteDialect(db: DatabaseSync): SqliteDialect {
  return new SqliteDialect({ database: adapt(db) });
}
