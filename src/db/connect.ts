import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { availableParallelism } from 'node:os';
import { type Dialect, Kysely, sql } from 'kysely';
import type { Config } from '../config.ts';
import { freshReads } from './fresh-reads.ts';
import { interceptDialect } from './intercept.ts';
import { DatabaseMonitor, type PoolName } from './monitor.ts';
import { sqliteDataVersion } from './sqlite/data-version.ts';
import { inProcessSqliteDialect } from './sqlite/in-process-dialect.ts';
import { openSqlite } from './sqlite/open.js';
import { readerPoolSqliteDialect } from './sqlite/reader-pool-dialect.ts';
import type { Database } from './types.ts';

export type Db = Kysely<Database>;
/** The cheapest statement that proves the database answers (readiness probes). */
export async function ping(db: Db): Promise<void> {
  await sql`select 1`.execute(db);
}

export type DialectName = 'sqlite' | 'postgres';

/**
 * The service's database handles. `primary` takes writes (migrations, CLI, imports); `read` serves
 * API reads and enforces the per-request database-work cap; on PostgreSQL it may be a replica.
 */
export interface Databases {
  dialect: DialectName;
  primary: Db;
  read: Db;
  /** Statement times and pool usage, for metrics. */
  monitor: DatabaseMonitor;
  /**
   * A value that differs whenever what `read` sees may have changed: equal values bracket the same
   * committed data. What the response and analytics caches keep their values under
   * (src/domain/versioned-cache.ts).
   */
  dataVersion(): Promise<string>;
  /**
   * The same value read in this process without a statement, where that is possible (SQLite):
   * cheap enough to ask after every computation whether anything was committed meanwhile.
   */
  dataVersionInProcess: (() => string) | undefined;
  close(): Promise<void>;
}

export function sqlitePath(url: string): string {
  return url.slice('sqlite:'.length);
}

/**
 * A SQLite file that is not there holds no schema. Said before connecting, which would create it
 * and its folders: a mistyped path left an empty database (and folders) behind a command that
 * only refused.
 */
export function requireDatabaseFile(databaseUrl: string): void {
  if (!databaseUrl.startsWith('sqlite:')) return;
  const path = sqlitePath(databaseUrl);
  if (path !== ':memory:' && !existsSync(path)) {
    throw new Error(`no database at ${path}: run "npx sightline migrate" first`);
  }
}

/**
 * The primary pool only serves migrations, imports and the odd bookkeeping write (a key's
 * last-used time), so it is a fraction of the read pool: connections are the scarce resource
 * when many instances share one PostgreSQL.
 */
export function primaryPoolSize(readPoolSize: number): number {
  return Math.max(2, Math.ceil(readPoolSize / 4));
}

type DatabaseConfig = Pick<
  Config,
  'databaseUrl' | 'databaseReadUrl' | 'databasePoolSize' | 'databasePreparedStatements' | 'queryTimeoutMs'
>;

interface Dialects {
  dialect: DialectName;
  primary: Dialect;
  read: Dialect;
  /** Connections each pool may hold, for the pool-usage metrics. */
  sizes: Record<PoolName, number>;
  /** The SQLite file's commit counter; PostgreSQL reads its snapshot through `read`. */
  sqliteVersion?: { read(): string; close(): void };
}

// The PostgreSQL driver (pg, its protocol and COPY streams, ~35 modules) loads only where the URL
// asks for PostgreSQL: a command on the embedded database starts ~10 ms sooner without it
// (docs/performance.md, "The command's start"). Loaded with `require` because connecting is
// synchronous; the module is ES like the rest, which Node's `require` loads.
const postgresModule = () =>
  createRequire(import.meta.url)('./postgres/pool.ts') as typeof import('./postgres/pool.ts');

function dialects(config: DatabaseConfig, monitor: DatabaseMonitor, options: ConnectOptions): Dialects {
  if (config.databaseUrl.startsWith('sqlite:')) {
    const path = sqlitePath(config.databaseUrl);
    const writers = options.sqliteWriters ?? 'wait';
    // Readers are processes; more of them than cores only adds contention.
    const readers = Math.max(1, Math.min(config.databasePoolSize, availableParallelism()));
    return {
      dialect: 'sqlite',
      // `wait` keeps SQLite's own busy timeout; `fail` and `yield` open without one.
      primary: inProcessSqliteDialect(
        openSqlite(path, writers === 'wait' ? {} : { writeWaitMs: 0 }),
        writers === 'yield' ? YIELD_FOR_WRITERS_MS : 0,
      ),
      read: readerPoolSqliteDialect(
        path,
        readers,
        config.queryTimeoutMs,
        monitor.countedByDriver('read', readers),
      ),
      sizes: { primary: 1, read: readers },
      sqliteVersion: sqliteDataVersion(path),
    };
  }
  const sizes = {
    primary: Math.max(primaryPoolSize(config.databasePoolSize), options.primaryConnections ?? 0),
    read: config.databasePoolSize,
  };
  const { postgresDialect } = postgresModule();
  return {
    dialect: 'postgres',
    primary: postgresDialect({
      url: config.databaseUrl,
      size: sizes.primary,
      applicationName: 'sightline-primary',
      defaultCapMs: undefined,
      preparedStatements: 0,
      copyIn: true,
    }),
    read: postgresDialect({
      url: config.databaseReadUrl ?? config.databaseUrl,
      size: sizes.read,
      applicationName: 'sightline-read',
      defaultCapMs: config.queryTimeoutMs,
      preparedStatements: config.databasePreparedStatements,
      copyIn: false,
    }),
    sizes,
  };
}

/** How long a process that yields waits for another's write (a large import takes minutes). */
const YIELD_FOR_WRITERS_MS = 15 * 60_000;

export interface ConnectOptions {
  /**
   * On SQLite, what a write does that finds another process's write lock (an import holds it while
   * it runs): `wait` (default) up to 5 s with the thread blocked, which costs a command nothing;
   * `fail` at once (SQLITE_BUSY), for the service, whose writes are bookkeeping and whose every
   * request a blocked thread would stall; `yield`: tried again up to 15 minutes without blocking,
   * for monitoring, whose answers in flight are paid for.
   */
  sqliteWriters?: 'wait' | 'fail' | 'yield';
  /**
   * PostgreSQL: connections the primary pool holds at least. Each write waiting on another
   * transaction's locks (an import's, for as long as it runs) keeps its connection; a process
   * with this many writes in flight needs room beside them, or its other work fails to get one.
   */
  primaryConnections?: number;
}

export function connectDatabases(config: DatabaseConfig, options: ConnectOptions = {}): Databases {
  const monitor = new DatabaseMonitor();
  const chosen = dialects(config, monitor, options);
  const primary = new Kysely<Database>({
    dialect: interceptDialect(chosen.primary, monitor.track('primary', chosen.sizes.primary)),
  });
  const read = new Kysely<Database>({
    dialect: interceptDialect(chosen.read, monitor.track('read', chosen.sizes.read)),
  });
  const { sqliteVersion } = chosen;
  return {
    dialect: chosen.dialect,
    primary,
    read,
    monitor,
    dataVersion: sqliteVersion
      ? async () => sqliteVersion.read()
      : // The snapshot (xmin:xmax:in-progress ids) changes exactly when a transaction ends, so two
        // equal snapshots see the same committed data; taken where reads go, replica included.
        // Every kept answer asks for it, so requests arriving together share one read
        // (docs/performance.md, "One snapshot read for requests arriving together").
        freshReads(
          async () =>
            (await sql<{ version: string }>`select pg_current_snapshot()::text as version`.execute(read))
              .rows[0]?.version ?? '',
        ),
    dataVersionInProcess: sqliteVersion && (() => sqliteVersion.read()),
    async close() {
      sqliteVersion?.close();
      await read.destroy();
      await primary.destroy();
    },
  };
}
