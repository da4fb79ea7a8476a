// The demo data: five organizations with realistic brands, 121 days of imported monitoring history
// (and two weeks that Sightline's monitoring engine asked the simulated engine itself), reports and
// recommendations, written deterministically (same seeding day, same rows) in one
// transaction. See docs/notes/cli.md for what it contains and why.
import type { Db } from '../db/connect.ts';
import { demoSeedConflict, inDemoSeedTransaction, restartEmptySequences } from '../db/demo.ts';
import { refreshPlannerStatistics } from '../db/statistics.ts';
import { BRANDS } from './brands.ts';
import { type BrandSpec, ORGS } from './catalog.ts';
import { brandHistory, type HistoryRun } from './history.ts';
import { type DemoManifest, findDemoManifest } from './manifest.ts';
import { Prng } from './prng.ts';
import { writeRecommendations } from './recommendations.ts';
import { anchorOf } from './timeline.ts';
import { writeCatalog } from './write-catalog.ts';
import { writeMonitoredHistory } from './write-monitored.ts';
import { writeReports } from './write-reports.ts';
import { writeBrandHistory } from './write-runs.ts';

export type { DemoManifest } from './manifest.ts';
export { findDemoManifest } from './manifest.ts';

const SEED = 'sightline-demo-v1';

export class DemoConflictError extends Error {
  override name = 'DemoConflictError';
}

function historyOf(spec: BrandSpec, brandIndex: number, anchor: number): HistoryRun[] {
  return brandHistory(spec, brandIndex, anchor, new Prng(SEED).derive(`brand/${spec.name}`));
}

/**
 * The runs and answers (with the scripts they were written from) that seeding on `now`'s day
 * imports for the brand at `brandIndex` of the demo's brands.
 */
export function demoBrandHistory(brandIndex: number, now: Date): HistoryRun[] {
  const spec = BRANDS[brandIndex];
  if (!spec) throw new Error(`the demo has no brand at index ${brandIndex}`);
  return historyOf(spec, brandIndex, anchorOf(now));
}

/**
 * Seeds the demo into a database that has no brands and none of the demo organizations (brand ids
 * must start at 1 for the public demo brand to be id 9). `now` fixes the seeding day: timestamps
 * are relative to its midnight UTC, so the latest day of history is always yesterday.
 */
export async function seedDemo(db: Db, options: { now?: Date } = {}): Promise<DemoManifest> {
  const anchor = anchorOf(options.now ?? new Date());
  const prng = new Prng(SEED);
  const slugs = ORGS.map((o) => o.slug);
  const refused = (conflict: string) =>
    new DemoConflictError(`cannot seed the demo into this database: ${conflict}; use a fresh database`);
  const seeding = inDemoSeedTransaction(db, async (trx) => {
    const conflict = await demoSeedConflict(trx, slugs);
    if (conflict) throw refused(conflict);
    await restartEmptySequences(trx);
    const ids = await writeCatalog(trx, anchor);
    // The import's clock is the anchor too: every answer was captured before it, and the rows the
    // import stamps with its clock come out the same for any moment of the day.
    for (const [index, brand] of ids.brands.entries()) {
      if (brand.spec.monitoredDailyAt === undefined)
        await writeBrandHistory(trx, brand, historyOf(brand.spec, index, anchor), new Date(anchor));
      else await writeMonitoredHistory(trx, brand, anchor);
    }
    await refreshPlannerStatistics(trx);
    // Recommendations (generated over the history just written) first: reports list the open ones.
    await writeRecommendations(trx, ids, anchor, prng.derive('recommendations'));
    await writeReports(trx, ids, anchor, prng.derive('reports'));
  });
  await seeding.catch(async (error: unknown) => {
    if (error instanceof DemoConflictError) throw error;
    // Another seed (or an organization created meanwhile) wrote first: its rows were not there at
    // the check, and the insert met them (PostgreSQL's unique-key error, said as the conflict).
    const conflict = await demoSeedConflict(db, slugs).catch(() => undefined);
    throw conflict ? refused(conflict) : error;
  });
  const manifest = await findDemoManifest(db);
  if (!manifest) throw new Error('the demo was written but its manifest cannot be read back');
  return manifest;
}

/** Seeds the demo unless it is already there; either way returns its manifest. */
export async function ensureDemo(
  db: Db,
  options: { now?: Date } = {},
): Promise<{ manifest: DemoManifest; created: boolean }> {
  const existing = await findDemoManifest(db);
  if (existing) return { manifest: existing, created: false };
  try {
    return { manifest: await seedDemo(db, options), created: true };
  } catch (error) {
    // Seeded by another process while this one waited its turn (two `npm start`s at once).
    const seeded = error instanceof DemoConflictError ? await findDemoManifest(db) : undefined;
    if (seeded) return { manifest: seeded, created: false };
    throw error;
  }
}
