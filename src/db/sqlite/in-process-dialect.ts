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

// This connection's transactions write (imports, refreshes, migrations, the CLI's changes), so
// they take the write lock when they begin: one that began reading and then had to write after
// another process's commit would fail at once ("database is locked", the busy timeout not
// applying), where this one waits for the other to finish.
class ImmediateTransactionsDriver extends SqliteDriver {
  override async beginTransaction(connection: DatabaseConnection): Promise<void> {
    await connection.executeQuery(CompiledQuery.raw('begin immediate'));
  }
}

/**
 * A connection whose statements, when another process holds the write lock, are tried again
 * after a pause instead of failing, for up to `yieldMs`: the process goes on with its other work
 * meanwhile, where SQLite's own busy timeout would block its thread. Only outside a transaction
 * (its `begin immediate` included): inside one this connection holds the lock already.
 */
class YieldingConnection implements DatabaseConnection {
  readonly #inner: DatabaseConnection;
  readonly #db: DatabaseSync;
  readonly #yieldMs: number;

  constructor(inner: DatabaseConnection, db: DatabaseSync, yieldMs: number) {
    this.#inner = inner;
    this.#db = db;
    this.#yieldMs = yieldMs;
  }

  async executeQuery<R>(query: CompiledQuery): Promise<QueryResult<R>> {
    const deadline = Date.now() + this.#yieldMs;
    for (let pause = 5; ; pause = Math.min(pause * 2, 500)) {
      try {
        return await this.#inner.executeQuery<R>(query);
      } catch (error) {
        if (!isSqliteBusy(error) || this.#db.isTransaction || Date.now() + pause > deadline) throw error;
        await sleep(pause);
      }
    }
  }

  streamQuery<R>(query: CompiledQuery, chunkSize: number): AsyncIterableIterator<QueryResult<R>> {
    return this.#inner.streamQuery<R>(query, chunkSize);
  }
}

class YieldingDriver extends ImmediateTransactionsDriver {
  readonly #db: DatabaseSync;
  readonly #yieldMs: number;

  constructor(config: SqliteDialectConfig, db: DatabaseSync, yieldMs: number) {
    super(config);
    this.#db = db;
    this.#yieldMs = yieldMs;
  }

  override async acquireConnection(): Promise<DatabaseConnection> {
    return new YieldingConnection(await super.acquireConnection(), this.#db, this.#yieldMs);
  }
}

class InProcessSqliteDialect extends SqliteDialect {
  readonly #config: SqliteDialectConfig;
  readonly #db: DatabaseSync;
  readonly #yieldMs: number;

  constructor(config: SqliteDialectConfig, db: DatabaseSync, yieldMs: number) {
    super(config);
    this.#config = config;
    this.#db = db;
    this.#yieldMs = yieldMs;
  }

  override createAdapter(): SqliteAdapter {
    return new TransactionalSchemaAdapter();
  }

  override createDriver(): SqliteDriver {
    return this.#yieldMs > 0
      ? new YieldingDriver(this.#config, this.#db, this.#yieldMs)
      : new ImmediateTransactionsDriver(this.#config);
  }
}

/**
 * The dialect for the process's own connection: migrations, the CLI, imports and seeding.
 * `yieldMs` > 0: a statement finding another process's write lock is tried again that long
 * without blocking the thread (open `db` with no busy timeout then).
 */
export function inProcessSqliteDialect(db: DatabaseSync, yieldMs = 0): SqliteDialect {
  return new InProcessSqliteDialect({ database: adapt(db) }, db, yieldMs);
}
