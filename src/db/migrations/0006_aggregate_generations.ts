import type { Kysely } from 'kysely';

// A counter per category that moves whenever the category's aggregates or prompt scores are
// rewritten (refreshRunAggregates), so that analytics sums kept by a service process can be
// checked against it instead of against every commit to the database (docs/performance.md,
// "Kept across commits"). A category without a row has never been refreshed.
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('aggregate_generations')
    .addColumn('org_id', 'bigint', (c) => c.notNull().references('organizations.id'))
    .addColumn('category_id', 'bigint', (c) => c.notNull().references('categories.id'))
    .addColumn('generation', 'bigint', (c) => c.notNull())
    .addPrimaryKeyConstraint('aggregate_generations_pk', ['org_id', 'category_id'])
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('aggregate_generations').execute();
}
