import { join } from 'node:path';
import type { Db } from '../../src/db/connect.ts';
import { migrateToLatest } from '../../src/db/migrate.ts';
import { seedDemo } from '../../src/demo/seed.ts';

// The starting points of a test database: the schema alone, or the schema with the demo data,
// seeded on a pinned day so that whole bodies and rows can be compared to fixed ones on any day the
// suite runs (a demo context's app clock starts on that morning: demo.ts). Seeding the demo takes
// seconds, on PostgreSQL tens of them, so the runner (scripts/test.mjs) prepares each one once per pass
// and names the copies in TEST_TEMPLATES: a directory of SQLite files, or (PostgreSQL pass) a
// database name prefix. Every test context then copies one (`services.ts`). A test file run on
// its own, without the runner, prepares its database itself.

export const TEMPLATES = ['migrated', 'demo'] as const;
export type Template = (typeof TEMPLATES)[number];

/** When the `demo` template was seeded: its data is the same on any day the suite runs. */
export const PINNED_DEMO_SEEDED_AT = new Date('2026-03-15T00:20:00Z');
/** The app's "now" on the demo template: later that morning. */
export const PINNED_DEMO_NOW = new Date('2026-03-15T06:00:00Z');

export async function prepareDatabase(db: Db, template: Template): Promise<void> {
  await migrateToLatest(db);
  if (template === 'demo') await seedDemo(db, { now: PINNED_DEMO_SEEDED_AT });
}

/** Where the runner keeps template `name`: a SQLite file, or the name of a PostgreSQL database. */
export function templateLocation(
  templates: string,
  name: Template,
  postgres = Boolean(process.env.TEST_DATABASE_URL),
): string {
  return postgres ? `${templates}_${name}` : join(templates, `${name}.db`);
}
