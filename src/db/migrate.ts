import { type Migration, type MigrationProvider, Migrator } from 'kysely/migration';
import type { Db } from './connect.ts';
import * as initial from './migrations/0001_initial.ts';
import * as monitoring from './migrations/0002_monitoring.ts';
import * as recentPromptScores from './migrations/0003_recent_prompt_scores.ts';
import * as recommendationFindings from './migrations/0004_recommendation_findings.ts';
import * as monitoringWeekday from './migrations/0005_monitoring_weekday.ts';
import * as aggregateGenerations from './migrations/0006_aggregate_generations.ts';
import * as responseCompositeKeys from './migrations/0007_response_composite_keys.ts';
import * as sqliteResponseCompositeKeys from './migrations/0008_sqlite_response_composite_keys.ts';
import * as weightedSumsBigint from './migrations/0009_weighted_sums_bigint.ts';
import * as artifactDraftClaims from './migrations/0010_artifact_draft_claims.ts';

// Migrations are listed here, in order, rather than discovered on disk, so that a typo in a file
// name can never silently skip one.
export const MIGRATIONS: Record<string, Migration> = {
  '0001_initial': initial,
  '0002_monitoring': monitoring,
  '0003_recent_prompt_scores': recentPromptScores,
  '0004_recommendation_findings': recommendationFindings,
  '0005_monitoring_weekday': monitoringWeekday,
  '0006_aggregate_generations': aggregateGenerations,
  '0007_response_composite_keys': responseCompositeKeys,
  '0008_sqlite_response_composite_keys': sqliteResponseCompositeKeys,
  '0009_weighted_sums_bigint': weightedSumsBigint,
  '0010_artifact_draft_claims': artifactDraftClaims,
};

const provider: MigrationProvider = { getMigrations: async () => MIGRATIONS };

/** Brings the schema up to date; returns the names of the migrations it applied. */
export async function migrateToLatest(db: Db): Promise<string[]> {
  const migrator = new Migrator({ db, provider });
  const { error, results } = await migrator.migrateToLatest();
  if (error) throw error instanceof Error ? error : new Error(String(error));
  return (results ?? []).filter((r) => r.status === 'Success').map((r) => r.migrationName);
}

/** Fails with a hint, instead of a missing-table error, when the database was never migrated. */
export async function requireSchema(db: Db): Promise<void> {
  try {
    await db.selectFrom('organizations').select('id').limit(1).execute();
  } catch (error) {
    // SQLite's words, or PostgreSQL's undefined_table: "does not exist" alone is also how the
    // server refuses a database or role that does not exist, which no migration can mend.
    const message = error instanceof Error ? error.message : String(error);
    if (/^no such table/i.test(message) || (error as { code?: unknown }).code === '42P01') {
      throw new Error('the database has no schema yet: run "npx sightline migrate" first');
    }
    throw error;
  }
}
