import { type ColumnDefinitionBuilder, type CreateTableBuilder, type Kysely, sql } from 'kysely';
import { columnTypes, isPostgres } from './column-types.ts';

// SQLite's half of 0007: a mention's and a citation's organization and run are their response's,
// one composite foreign key (org_id, run_id, response_id) → responses (org_id, run_id, id) where
// three single ones (organization, run, response) only said that each exists. SQLite cannot change
// a table's keys in place, so both tables are rebuilt: a copy with the new keys, the rows, the
// AUTOINCREMENT high-water mark (ids of rows deleted at the top stay unused), then the copy takes
// the table's name and indexes. All or nothing, as every migration (docs/decisions.md,
// "Migrations all or nothing"); a row that breaks the new key fails it, and nothing changes.

type Keys = 'single' | 'composite';
type Table = 'response_mentions' | 'response_citations';

const INDEXES: Record<Table, [string, string[]][]> = {
  response_mentions: [
    ['response_mentions_run', ['org_id', 'run_id']],
    ['response_mentions_response', ['response_id']],
  ],
  response_citations: [
    ['response_citations_run', ['org_id', 'run_id']],
    ['response_citations_response', ['response_id', 'position']],
  ],
};

/** The table's own columns, as 0001 made them. */
function columnsOf(
  table: Table,
  builder: CreateTableBuilder<string, string>,
): CreateTableBuilder<string, string> {
  return table === 'response_mentions'
    ? builder
        .addColumn('competitor_id', 'bigint', (c) => c.references('competitors.id'))
        .addColumn('is_brand', 'integer', (c) => c.notNull().defaultTo(0))
        .addColumn('name', 'text', (c) => c.notNull())
        .addColumn('rank', 'integer')
    : builder
        .addColumn('url', 'text', (c) => c.notNull())
        .addColumn('domain', 'text', (c) => c.notNull())
        .addColumn('position', 'integer', (c) => c.notNull());
}

async function rebuild(db: Kysely<unknown>, table: Table, keys: Keys): Promise<void> {
  const copy = `${table}_rebuilt`;
  const single = keys === 'single';
  // Each of the three refers to its own table with single keys; with the composite key, none does.
  const key = (parent: string) => (c: ColumnDefinitionBuilder) =>
    single ? c.notNull().references(parent) : c.notNull();
  const owned = columnTypes(db)
    .withId(db.schema.createTable(copy))
    .addColumn('org_id', 'bigint', key('organizations.id'))
    .addColumn('run_id', 'bigint', key('runs.id'))
    .addColumn('response_id', 'bigint', key('responses.id'));
  const defined = columnsOf(table, owned);
  await (single
    ? defined
    : defined.addForeignKeyConstraint(
        `${table}_response_run_fkey`,
        ['org_id', 'run_id', 'response_id'],
        'responses',
        ['org_id', 'run_id', 'id'],
      )
  ).execute();

  const columns = sql.join(
    (await sql<{ name: string }>`select name from pragma_table_info(${table})`.execute(db)).rows.map((c) =>
      sql.ref(c.name),
    ),
  );
  await sql`insert into ${sql.table(copy)} (${columns}) select ${columns} from ${sql.table(table)}`.execute(
    db,
  );
  await sql`delete from sqlite_sequence where name = ${copy}`.execute(db);
  await sql`insert into sqlite_sequence (name, seq)
    select ${copy}, seq from sqlite_sequence where name = ${table}`.execute(db);
  await sql`drop table ${sql.table(table)}`.execute(db);
  await sql`alter table ${sql.table(copy)} rename to ${sql.table(table)}`.execute(db);
  for (const [index, on] of INDEXES[table])
    await db.schema.createIndex(index).on(table).columns(on).execute();
}

/** responses_run over (org_id, run_id, id), unique for the composite keys or plain. */
async function responsesRun(db: Kysely<unknown>, unique: boolean): Promise<void> {
  await sql`drop index responses_run`.execute(db);
  const index = db.schema.createIndex('responses_run').on('responses').columns(['org_id', 'run_id', 'id']);
  await (unique ? index.unique() : index).execute();
}

export async function up(db: Kysely<unknown>): Promise<void> {
  if (isPostgres(db)) return;
  await responsesRun(db, true);
  await rebuild(db, 'response_mentions', 'composite');
  await rebuild(db, 'response_citations', 'composite');
}

export async function down(db: Kysely<unknown>): Promise<void> {
  if (isPostgres(db)) return;
  await rebuild(db, 'response_mentions', 'single');
  await rebuild(db, 'response_citations', 'single');
  await responsesRun(db, false);
}
