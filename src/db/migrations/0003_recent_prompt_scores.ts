import { type Kysely, sql } from 'kysely';
import { columnTypes } from './column-types.ts';

// Scores kept at write time (docs/performance.md, "Scores at write time"): each prompt's latest
// and previous visible score, so that a brand's, category's or prompt's current and previous
// score read a fixed number of rows per prompt instead of ranking its whole history.
export async function up(db: Kysely<unknown>): Promise<void> {
  const t = columnTypes(db);
  await db.schema
    .createTable('recent_prompt_scores')
    .addColumn('org_id', 'bigint', (c) => c.notNull().references('organizations.id'))
    .addColumn('brand_id', 'bigint', (c) => c.notNull().references('brands.id'))
    .addColumn('category_id', 'bigint', (c) => c.notNull().references('categories.id'))
    .addColumn('prompt_id', 'bigint', (c) => c.notNull().references('prompts.id'))
    // 1 for the prompt's newest visible score, 2 for the one before it.
    .addColumn('recency', 'integer', (c) => c.notNull())
    .addColumn('run_id', 'bigint', (c) => c.notNull().references('runs.id'))
    .addColumn('methodology', 'text', (c) => c.notNull())
    .addColumn('scored_at', t.timestamp, (c) => c.notNull())
    .addColumn('score', t.float, (c) => c.notNull())
    .addPrimaryKeyConstraint('recent_prompt_scores_pk', ['prompt_id', 'recency'])
    .execute();
  await db.schema
    .createIndex('recent_prompt_scores_brand')
    .on('recent_prompt_scores')
    .columns(['org_id', 'brand_id', 'category_id', 'prompt_id'])
    .execute();

  // A brand's in-flight runs, and a brand's or category's last visible run, are index seeks that
  // stop at the first match instead of a scan of every run it ever had.
  await db.schema
    .createIndex('runs_brand_status')
    .on('runs')
    .columns(['org_id', 'brand_id', 'status', 'created_at'])
    .execute();

  // Existing data: the same two rows per prompt the refresh would write (visible runs only).
  await sql`
    insert into recent_prompt_scores
      (org_id, brand_id, category_id, prompt_id, recency, run_id, methodology, scored_at, score)
    select org_id, brand_id, category_id, prompt_id, recency, run_id, methodology, scored_at, score
    from (
      select s.*, row_number() over (
        partition by s.prompt_id order by s.scored_at desc, s.run_id desc
      ) as recency
      from run_prompt_scores s
      join runs r on r.id = s.run_id
      where r.status = 'completed' and (r.is_legacy = 1 or r.published_at is not null)
    ) ranked
    where recency <= 2
  `.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropIndex('runs_brand_status').execute();
  await db.schema.dropTable('recent_prompt_scores').execute();
}
