import { type Migration, type MigrationProvider, Migrator } from 'kysely/migration';
import type { Db } from './connect.ts';
import * as initial from './migrations/0001_initial.ts';

// Migrations are listed here, in order, rather than discovered on disk, so that a typo in a file
// name can never silently skip one.
const migrations: Record<string, Migration> = {
  '0001_initial': initial,
};

const provider: MigrationProvider = { getMigrations: async () => migrations };

/** Brings the schema up to date; returns the names of the migrations it applied. */
export async function migrateToLatest(db: Db): Promise<string[]> {
  const migrator = new Migrator({ db, provider });
  const { error, results } = await migrator.migrateToLatest();
  if (error) throw error instanceof Error ? error : new Error(String(error));
  return (results ?? []).filter((r) => r.status === 'Success').map((r) => r.migrationName);
}
