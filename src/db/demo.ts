// The demo generator's writes (src/demo): rows it has shaped itself, with the timestamps and the
// fields (is_demo, merges, executive summaries) no operator command sets, written as given.
import { type Insertable, sql } from 'kysely';
import type { Db } from './connect.ts';
import { isPostgres } from './migrations/column-types.ts';
import type { Database } from './types.ts';

type WithId = 'organizations' | 'users' | 'brands' | 'categories' | 'prompts';

/** Inserts one row and answers its new id. */
export async function insertReturningId<T extends WithId>(
  db: Db,
  table: T,
  row: Insertable<Database[T]>,
): Promise<number> {
  // Kysely cannot follow a table name that is a type parameter; `row` was checked against it above.
  const inserted = await db
    .insertInto(table as WithId)
    .values(row as never)
    .returning('id')
    .executeTakeFirstOrThrow();
  return inserted.id;
}

export function setBrandMergedInto(db: Db, orgId: number, brandId: number, targetId: number) {
  return db
    .updateTable('brands')
    .set({ merged_into_brand_id: targetId })
    .where('org_id', '=', orgId)
    .where('id', '=', brandId)
    .execute();
}

/** Why this database cannot take the demo (it has brands, or one of its organizations), if so. */
export async function demoSeedConflict(db: Db, orgSlugs: readonly string[]): Promise<string | undefined> {
  const taken = await db.selectFrom('organizations').select('slug').where('slug', 'in', orgSlugs).execute();
  if (taken.length > 0) return `organization "${taken[0]?.slug}" already exists`;
  const brand = await db.selectFrom('brands').select('id').limit(1).executeTakeFirst();
  return brand ? 'it already has brands' : undefined;
}

/** A seed's turn on PostgreSQL: a transaction-scoped advisory lock, held until it ends. */
export async function takeDemoSeedTurn(db: Db): Promise<void> {
  await sql`select pg_advisory_xact_lock(hashtextextended('sightline:demo-seed', 0))`.execute(db);
}

/**
 * Runs a demo seed in one transaction. On PostgreSQL seeds take turns, and read committed whatever
 * the database's default: a second seed's check then sees the first's rows, and does not restart
 * the sequences under it (`restartEmptySequences` cannot see uncommitted rows: two seeds at once
 * drew the same ids and the first failed on its own rows; under repeatable read the snapshot, taken
 * before the wait, still showed an empty database). SQLite's write transaction does this.
 */
export function inDemoSeedTransaction<T>(db: Db, work: (trx: Db) => Promise<T>): Promise<T> {
  if (!isPostgres(db)) return db.transaction().execute(work);
  return db
    .transaction()
    .setIsolationLevel('read committed')
    .execute(async (trx) => {
      await takeDemoSeedTurn(trx);
      return work(trx);
    });
}

/**
 * On PostgreSQL, restarts the id sequence of every empty table: a seed killed midway rolled its
 * rows back but not the ids it drew (sequences stand outside transactions), so the next seed's
 * brand 9 came out 19 and it refused to go on, and every retry drew ten more. SQLite rolls its
 * ids back with the rows.
 */
export async function restartEmptySequences(db: Db): Promise<void> {
  if (!isPostgres(db)) return;
  const { rows } = await sql<{ table: string; sequence: string }>`
    select c.relname as "table", pg_get_serial_sequence(format('%I.%I', n.nspname, c.relname), a.attname) as "sequence"
    from pg_class c
    join pg_namespace n on n.oid = c.relnamespace
    join pg_attribute a on a.attrelid = c.oid
    where n.nspname = current_schema() and c.relkind = 'r' and a.attnum > 0 and not a.attisdropped
      and pg_get_serial_sequence(format('%I.%I', n.nspname, c.relname), a.attname) is not null`.execute(db);
  for (const { table, sequence } of rows) {
    await sql`select setval(${sequence}::regclass, 1, false) where not exists (select from ${sql.table(table)})`.execute(
      db,
    );
  }
}
