import type { DatabaseSync } from 'node:sqlite';
import { setTimeout as sleep } from 'node:timers/promises';
import {
  CompiledQuery,
  type DatabaseConnection,
  type QueryResult,
  SqliteAdapter,
  type SqliteDatabase,
  SqliteDialect,
  type SqliteDialectConfig,
  SqliteDriver,
  type SqliteStatement,
} from 'kysely';
import { isSqliteBusy } from './busy.ts';
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

/** How long statements wait for another process's write lock, on the connection `db`. */
interface Yielding {
  db: DatabaseSync;
  yieldMs: number;
}

/**
 * A connection whose statements, when another process holds the write lock, are tried again
 * after a pause instead of failing, for up to `yieldMs`: the process goes on with its other work
 * meanwhile, where SQLite's own busy timeout would block its thread. Only outside a transaction
 * (its `begin immediate` included): inside one this connection holds the lock already.
 */
class YieldingConnection implements DatabaseConnection {
  readonly #inner: DatabaseConnection;
  readonly #yielding: Yielding;

  constructor(inner: DatabaseConnection, yielding: Yielding) {
    this.#inner = inner;
    this.#yielding = yielding;
  }

  async executeQuery<R>(query: CompiledQuery): Promise<QueryResult<R>> {
    const deadline = Date.now() + this.#yielding.yieldMs;
    for (let pause = 5; ; pause = Math.min(pause * 2, 500)) {
      try {
        return await this.#inner.executeQuery<R>(query);
      } catch (error) {
        if (!isSqliteBusy(error) || this.#yielding.db.isTransaction || Date.now() + pause > deadline)
          throw error;
        await sleep(pause);
      }
    }
  }

  streamQuery<R>(query: CompiledQuery, chunkSize: number): AsyncIterableIterator<QueryResult<R>> {
    return this.#inner.streamQuery<R>(query, chunkSize);
  }
}

// This connection's transactions write (imports, refreshes, migrations, the CLI's changes), so
// they take the write lock when they begin: one that began reading and then had to write after
// another process's commit would fail at once ("database is locked", the busy timeout not
// applying), where this one waits for the other to finish. With `yielding`, its statements wait
// for another process's write lock as YieldingConnection does.
class ImmediateTransactionsDriver extends SqliteDriver {
  readonly #yielding: Yielding | undefined;

  constructor(config: SqliteDialectConfig, yielding: Yielding | undefined) {
    super(config);
    this.#yielding = yielding;
  }

  override async acquireConnection(): Promise<DatabaseConnection> {
    const connection = await super.acquireConnection();
    return this.#yielding ? new YieldingConnection(connection, this.#yielding) : connection;
  }

  override async beginTransaction(connection: DatabaseConnection): Promise<void> {
    await connection.executeQuery(CompiledQuery.raw('begin immediate'));
  }
}

class InProcessSqliteDialect extends SqliteDialect {
  readonly #config: SqliteDialectConfig;
  readonly #yielding: Yielding | undefined;

  constructor(config: SqliteDialectConfig, yielding: Yielding | undefined) {
    super(config);
    this.#config = config;
    this.#yielding = yielding;
  }

  override createAdapter(): SqliteAdapter {
    return new TransactionalSchemaAdapter();
  }

  override createDriver(): SqliteDriver {
    return new ImmediateTransactionsDriver(this.#config, this.#yielding);
  }
}

/**
 * The dialect for the process's own connection: migrations, the CLI, imports and seeding.
 * `yieldMs` > 0: a statement finding another process's write lock is tried again that long
 * without blocking the thread (open `db` with no busy timeout then).
 */
export function inProcessSqliteDialect(db: DatabaseSync, yieldMs = 0): SqliteDialect {
  return new InProcessSqliteDialect({ database: adapt(db) }, yieldMs > 0 ? { db, yieldMs } : undefined);
}
