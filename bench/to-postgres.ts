// `npm run bench -- --postgres`: the same generated data in PostgreSQL. The generator writes
// SQLite (bench/generate.ts) and the aggregates are brought up to date there by the service's own
// refresh; every table is then copied row for row into a PostgreSQL database migrated by the same
// migrations, so both databases hold the same rows and the same aggregates, and the timings
// compare the two engines on one dataset.
import { sql } from 'kysely';
import { loadConfig } from '../src/config.ts';
import { insertRows } from '../src/db/bulk-insert.ts';
import { connectDatabases } from '../src/db/connect.ts';
import { migrateToLatest } from '../src/db/migrate.ts';
import { openSqlite } from '../src/db/sqlite/open.js';
import type { Database } from '../src/db/types.ts';
import { asAdmin, createDatabase } from '../test/support/services.ts';

const BATCH = 5_000;
// Kysely's own bookkeeping: the PostgreSQL side has its own from migrating.
const SKIPPED = new Set(['kysely_migration', 'kysely_migration_lock']);

/**
 * The URL of database `name` on the server of `adminUrl`, holding a copy of the SQLite file at
 * `path`; with `reuse`, a copy already there is kept (it is dropped and made again otherwise).
 */
export async function postgresCopy(
  path: string,
  adminUrl: string,
  name: string,
  reuse: boolean,
  progress: (text: string) => void,
): Promise<string> {
  const exists = (await asAdmin(adminUrl, `select 1 from pg_database where datname = '${name}'`)).length > 0;
  if (reuse && exists) {
    const url = new URL(adminUrl);
    url.pathname = `/${name}`;
    return url.toString();
  }
  await asAdmin(adminUrl, `drop database if exists ${name} with (force)`);
  const { url } = await createDatabase(adminUrl, name);

  const target = connectDatabases({ ...loadConfig({}), databaseUrl: url });
  const source = openSqlite(path, { queryOnly: true });
  try {
    await migrateToLatest(target.primary);
    const tables = (
      source
        .prepare(
          `select name from sqlite_master where type = 'table' and name not like 'sqlite_%' order by rowid`,
        )
        .all() as { name: string }[]
    )
      .map((t) => t.name)
      .filter((t) => !SKIPPED.has(t));
    await target.primary.transaction().execute(async (tx) => {
      // Rows go in table by table, so a row may arrive before the row it references.
      await sql`set local session_replication_role = replica`.execute(tx);
      for (const table of tables) {
        let batch: Record<string, unknown>[] = [];
        let copied = 0;
        const flush = async () => {
          await insertRows(tx, table as keyof Database & string, batch as never[]);
          copied += batch.length;
          batch = [];
        };
        for (const row of source.prepare(`select * from "${table}"`).iterate()) {
          batch.push(row as Record<string, unknown>);
          if (batch.length === BATCH) await flush();
        }
        if (batch.length > 0) await flush();
        if (copied > 0) progress(`  copied ${table}: ${copied.toLocaleString('en')} rows`);
      }
      // Ids were copied as they were: each id sequence goes on after the largest one.
      const numbered = await sql<{ table_name: string }>`select table_name from information_schema.columns
        where table_schema = current_schema() and column_name = 'id' and column_default like 'nextval%'`.execute(
        tx,
      );
      for (const { table_name: table } of numbered.rows) {
        await sql`select setval(pg_get_serial_sequence(${table}, 'id'), max(id))
          from ${sql.table(table)} having max(id) is not null`.execute(tx);
      }
    });
    await sql`analyze`.execute(target.primary);
  } finally {
    source.close();
    await target.close();
  }
  return url;
}
