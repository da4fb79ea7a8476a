import { type Kysely, sql } from 'kysely';

// Recommendations generated from a brand's analytics (docs/recommendations.md). A finding's
// identity is its type and subject (the prompt, domain, engine or competitor it is about), so a
// re-run of the generator recognises an unchanged finding instead of inserting a twin, and an
// outcome can tell which other recommendations touched the same subject during its window.
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .alterTable('recommendations')
    .addColumn('finding_key', 'text', (c) => c.notNull().defaultTo(''))
    .execute();
  await db.schema
    .alterTable('recommendations')
    .addColumn('subject_kind', 'text', (c) => c.notNull().defaultTo(''))
    .execute();
  await db.schema
    .alterTable('recommendations')
    .addColumn('subject', 'text', (c) => c.notNull().defaultTo(''))
    .execute();
  // The numbers the rationale quotes (window, sample sizes, rates), as JSON: what a re-run
  // compares and what the artifact drafter and the outcome's baseline read.
  await db.schema
    .alterTable('recommendations')
    .addColumn('evidence', 'text', (c) => c.notNull().defaultTo('{}'))
    .execute();
  // One live recommendation per finding, even when two generators race: the database refuses the
  // second insert. Rows written before this migration have no finding key and stay outside it.
  await sql`
    create unique index recommendations_live_finding
    on recommendations (org_id, brand_id, finding_key)
    where finding_key <> '' and superseded_at is null and deleted_at is null
  `.execute(db);

  // Attribution confidence rests on how many answers each side of the comparison had.
  await db.schema
    .alterTable('recommendation_outcomes')
    .addColumn('baseline_sample_size', 'integer', (c) => c.notNull().defaultTo(0))
    .execute();
  await db.schema
    .alterTable('recommendation_outcomes')
    .addColumn('current_sample_size', 'integer', (c) => c.notNull().defaultTo(0))
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`drop index recommendations_live_finding`.execute(db);
  for (const column of ['finding_key', 'subject_kind', 'subject', 'evidence']) {
    await db.schema.alterTable('recommendations').dropColumn(column).execute();
  }
  for (const column of ['baseline_sample_size', 'current_sample_size']) {
    await db.schema.alterTable('recommendation_outcomes').dropColumn(column).execute();
  }
}
