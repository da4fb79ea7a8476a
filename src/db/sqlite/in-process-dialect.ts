import type { DatabaseSync } from 'node:sqlite';
import {
  CompiledQuery,
  type DatabaseConnection,
  SqliteAdapter,
  type SqliteDatabase,
  SqliteDialect,
  type SqliteDialectConfig,
  SqliteDriver,
  type SqliteStatement,
} from 'kysely';
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

// SQLite's schema changes are transactional, but Kysely's adapter says they are not (some pragmas
// do nothing inside a transaction, and it plays safe), and its migrator then runs a migration
// statement by statement: one that failed or was killed halfway left a half-made schema that no
// later `migrate` could finish. Our migrations use no pragma, so the migrator gets one transaction
// for everything it applies, as on PostgreSQL (docs/decisions.md, "Migrations all or nothing").
class TransactionalSchemaAdapter extends SqliteAdapter {
  override get supportsTransactionalDdl(): boolean {
    return true;
  }
}

// This connection's transactions write (imports, refreshes, migrations, the CLI's changes), so
// they take the write lock when they begin: one that began reading and then had to write after
// another process's commit would fail at once ("database is locked", the busy timeout not
// applying), where this one waits for the other to finish.
class ImmediateTransactionsDriver extends SqliteDriver {
  override async beginTransaction(connection: DatabaseConnection): Promise<void> {
    await connection.executeQuery(CompiledQuery.raw('begin immediate'));
  }
}

class InProcessSqliteDialect extends SqliteDialect {
  readonly #config: SqliteDialectConfig;

  constructor(config: SqliteDialectConfig) {
    super(config);
    this.#config = config;
  }

  override createAdapter(): SqliteAdapter {
    return new TransactionalSchemaAdapter();
  }

  override createDriver(): SqliteDriver {
    return new ImmediateTransactionsDriver(this.#config);
  }
}

/** The dialect for the process's own connection: migrations, the CLI, imports and seeding. */
export function inProcessSqliteDialect(db: DatabaseSync): SqliteDialect {
  return new InProcessSqliteDialect({ database: adapt(db) });
}
