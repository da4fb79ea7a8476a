import { availableParallelism } from 'node:os';
import { Kysely, PostgresDialect } from 'kysely';
import pg from 'pg';
import type { Config } from '../config.ts';
import { inProcessSqliteDialect } from './sqlite/in-process-dialect.ts';
import { openSqlite } from './sqlite/open.ts';
import { readerPoolSqliteDialect } from './sqlite/reader-pool-dialect.ts';
import type { Database } from './types.ts';

export type Db = Kysely<Database>;
export type DialectName = 'sqlite' | 'postgres';

/**
 * The service's database handles. `primary` takes writes (migrations, CLI, imports); `read` serves
 * API reads and enforces the per-request database-work cap. They may be the same pool.
 */
export interface Databases {
  dialect: DialectName;
  primary: Db;
  read: Db;
  close(): Promise<void>;
}

// PostgreSQL hands back int8 as strings and timestamptz as Date by default; the repositories
// expect numbers and ISO-8601 text on both databases.
pg.types.setTypeParser(20, (v) => Number(v));
pg.types.setTypeParser(1700, (v) => Number(v));
pg.types.setTypeParser(1184, (v) => new Date(v).toISOString());
pg.types.setTypeParser(1114, (v) => new Date(`${v}Z`).toISOString());

export function sqlitePath(url: string): string {
  return url.slice('sqlite:'.length);
}

function postgresPool(url: string, size: number, statementTimeoutMs?: number): pg.Pool {
  const pool = new pg.Pool({
    connectionString: url,
    max: size,
    ...(statementTimeoutMs ? { options: `-c statement_timeout=${statementTimeoutMs}` } : {}),
  });
  // An idle client losing its connection must not crash the process; the pool replaces it.
  pool.on('error', () => {});
  return pool;
}

export function connectDatabases(
  config: Pick<Config, 'databaseUrl' | 'databaseReadUrl' | 'databasePoolSize' | 'queryTimeoutMs'>,
): Databases {
  if (config.databaseUrl.startsWith('sqlite:')) {
    const path = sqlitePath(config.databaseUrl);
    const primary = new Kysely<Database>({ dialect: inProcessSqliteDialect(openSqlite(path)) });
    const readers = Math.max(1, Math.min(config.databasePoolSize, availableParallelism()));
    const read = new Kysely<Database>({
      dialect: readerPoolSqliteDialect(path, readers, config.queryTimeoutMs),
    });
    return {
      dialect: 'sqlite',
      primary,
      read,
      async close() {
        await read.destroy();
        await primary.destroy();
      },
    };
  }
  const primary = new Kysely<Database>({
    dialect: new PostgresDialect({ pool: postgresPool(config.databaseUrl, config.databasePoolSize) }),
  });
  const read = new Kysely<Database>({
    dialect: new PostgresDialect({
      pool: postgresPool(config.databaseReadUrl ?? config.databaseUrl, config.databasePoolSize, config.queryTimeoutMs),
    }),
  });
  return {
    dialect: 'postgres',
    primary,
    read,
    async close() {
      await read.destroy();
      await primary.destroy();
    },
  };
}
