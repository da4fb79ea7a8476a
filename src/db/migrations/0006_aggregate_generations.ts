import type { Kysely } from 'kysely';

// A counter per category and smallest day block (4 days, domain/blocks.ts) that moves whenever
// aggregates or prompt scores of runs finishing in those days are rewritten (refreshRunAggregates),
// so that analytics sums kept by a service process can be checked against the blocks they read
// instead of against every commit to the database (docs/performance.md, "Kept across commits").
// No row: never refreshed. Rows are never deleted, so a range's sum of generations only grows.
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('aggregate_generations')
    .addColumn('org_id', 'bigint', (c) => c.notNull().references('organizations.id'))
    .addColumn('category_id', 'bigint', (c) => c.notNull().references('categories.id'))
    .addColumn('block', 'bigint', (c) => c.notNull())
    .addColumn('generation', 'bigint', (c) => c.notNull())
    .addPrimaryKeyConstraint('aggregate_generations_pk', ['org_id', 'category_id', 'block'])
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('aggregate_generations').execute();
}
