import type { Kysely } from 'kysely';

// The day of the week a brand's weekly monitoring runs on ("mon" … "sun", docs/monitoring.md,
// "Schedule"). Null, as every existing schedule has it: the weekday the schedule was set on.
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('brands').addColumn('monitoring_weekday', 'text').execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('brands').dropColumn('monitoring_weekday').execute();
}
