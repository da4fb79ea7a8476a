import type { Kysely } from 'kysely';
import { columnTypes } from './column-types.ts';

// Who is drafting a recommendation's artifact with an engine, until when (docs/recommendations.md,
// "Asking the engine"): the one drafter holding the claim asks and pays; another that meets it
// asks nothing. A drafter that died leaves its claim to run out. The artifact row itself is only
// written once there is a draft, as before.
export async function up(db: Kysely<unknown>): Promise<void> {
  const t = columnTypes(db);
  await db.schema
    .createTable('artifact_draft_claims')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('org_id', 'bigint', (c) => c.notNull().references('organizations.id'))
    .addColumn('until', t.timestamp, (c) => c.notNull())
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('artifact_draft_claims').execute();
}
