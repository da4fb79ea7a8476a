import { type Kysely, sql } from 'kysely';
import { isPostgres } from './column-types.ts';

// A mention's and a citation's organization and run are their response's. One composite foreign
// key, (org_id, run_id, response_id) → responses (org_id, run_id, id), says so where three single
// ones (organization, run, response) only said that each exists; the response's own keys still
// check that its organization and run do. On PostgreSQL each key is a trigger and an index probe
// per inserted row, and the two dropped per row took about a second off a 20,000-answer import
// (docs/performance.md, "Keys of the import's rows on PostgreSQL"). SQLite cannot change a key in
// place; 0008 rebuilds its two tables with the same keys.

const TABLES = ['response_mentions', 'response_citations'] as const;
const SINGLE_KEYS = [
  ['org_id', 'organizations'],
  ['run_id', 'runs'],
  ['response_id', 'responses'],
] as const;

export async function up(db: Kysely<unknown>): Promise<void> {
  if (!isPostgres(db)) return;
  // The long steps first, under locks that let reads go on: the unique index the composite keys
  // need (the columns of the runs' reads, made unique; the id alone is) and the keys, checked
  // against every existing row. Dropping the old keys and index locks the tables against reads
  // too, until the commit, so it comes last.
  await sql`create unique index responses_run_unique on responses (org_id, run_id, id)`.execute(db);
  for (const table of TABLES) {
    await sql`alter table ${sql.table(table)} add constraint ${sql.ref(`${table}_response_run_fkey`)}
      foreign key (org_id, run_id, response_id) references responses (org_id, run_id, id)`.execute(db);
  }
  for (const table of TABLES) {
    for (const [column] of SINGLE_KEYS) {
      await sql`alter table ${sql.table(table)} drop constraint ${sql.ref(`${table}_${column}_fkey`)}`.execute(
        db,
      );
    }
  }
  await sql`drop index responses_run`.execute(db);
  await sql`alter index responses_run_unique rename to responses_run`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  if (!isPostgres(db)) return;
  for (const table of TABLES) {
    for (const [column, parent] of SINGLE_KEYS) {
      await sql`alter table ${sql.table(table)} add constraint ${sql.ref(`${table}_${column}_fkey`)}
        foreign key (${sql.ref(column)}) references ${sql.table(parent)} (id)`.execute(db);
    }
    await sql`alter table ${sql.table(table)} drop constraint ${sql.ref(`${table}_response_run_fkey`)}`.execute(
      db,
    );
  }
  await sql`create index responses_run_plain on responses (org_id, run_id, id)`.execute(db);
  await sql`drop index responses_run`.execute(db);
  await sql`alter index responses_run_plain rename to responses_run`.execute(db);
}
