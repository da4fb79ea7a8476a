// Planning a monitoring run: one category's eligible prompts × the engines × the samples. The run
// row (running, with its prompt total) and every planned ask are written in one transaction, so
// a run never exists without its asks. A category with a run still in flight is not planned
// again: that run is resumed instead (the database allows one per category).
import type { EngineName } from '../config.ts';
import type { Db } from '../db/connect.ts';
import {
  type BrandMonitoring,
  eligiblePrompts,
  findRunningMonitorRun,
  insertMonitorRun,
  insertPlannedAsks,
} from '../db/monitoring.ts';
import { inTransaction } from '../db/transaction.ts';

export class MonitoringError extends Error {
  override name = 'MonitoringError';
}

export interface PlanOptions {
  /** Only these categories of the brand (default: every category with eligible prompts). */
  categoryIds?: readonly number[];
  /** Overrides the brand's engines for this run. */
  engines?: readonly EngineName[];
  /** Overrides the brand's samples for this run. */
  samples?: number;
}

export interface PlannedRun {
  runId: number;
  categoryId: number;
  /** An unfinished run of the category, taken up again instead of starting a second one. */
  resumed: boolean;
  prompts: number;
  /** Asks planned when the run was created (prompts × engines × samples). */
  asks: number;
}

/** The engines a run of the brand asks: the override, else the brand's list. */
export function runEngines(brand: BrandMonitoring, options: PlanOptions): EngineName[] {
  return [...new Set(options.engines ?? (brand.engines as EngineName[]))];
}

export async function planRuns(
  db: Db,
  brand: BrandMonitoring,
  options: PlanOptions,
  configured: ReadonlySet<EngineName>,
  now: Date,
): Promise<PlannedRun[]> {
  const engines = runEngines(brand, options);
  const samples = options.samples ?? brand.samples;
  if (engines.length === 0) {
    throw new MonitoringError(
      `brand ${brand.brandId} has no engines to ask: give --engines, or set them with sightline brands update ${brand.brandId} --engines`,
    );
  }
  const missing = engines.find((e) => !configured.has(e));
  if (missing) throw new MonitoringError(`engine ${missing} is not configured (see: sightline engines list)`);
  const prompts = await eligiblePrompts(db, brand.orgId, brand.brandId, options.categoryIds);
  if (prompts.length === 0) {
    throw new MonitoringError(
      `brand ${brand.brandId} has no monitored prompts${options.categoryIds ? ' in that category' : ''} to ask`,
    );
  }
  const planned: PlannedRun[] = [];
  const nowIso = now.toISOString();
  for (const [categoryId, categoryPrompts] of Map.groupBy(prompts, (p) => p.categoryId)) {
    const run = await inTransaction(db, async (trx) => {
      const running = await findRunningMonitorRun(trx, brand.orgId, categoryId);
      if (running) return { runId: running.id, resumed: true, prompts: running.totalPrompts, asks: 0 };
      const runId = await insertMonitorRun(trx, {
        orgId: brand.orgId,
        brandId: brand.brandId,
        categoryId,
        totalPrompts: categoryPrompts.length,
        now: nowIso,
      });
      if (runId === undefined) {
        // Another worker planned the category between our look and our insert: resume theirs.
        const theirs = await findRunningMonitorRun(trx, brand.orgId, categoryId);
        if (!theirs) throw new Error(`category ${categoryId}: its running run vanished while planning`);
        return { runId: theirs.id, resumed: true, prompts: theirs.totalPrompts, asks: 0 };
      }
      // Prompt by prompt, the engines side by side: each engine's own limits then pace it.
      const rows = categoryPrompts.flatMap((p) =>
        Array.from({ length: samples }, (_, i) =>
          engines.map((engine) => ({
            org_id: brand.orgId,
            run_id: runId,
            prompt_id: p.id,
            engine,
            sample: i + 1,
            created_at: nowIso,
          })),
        ).flat(),
      );
      await insertPlannedAsks(trx, rows);
      return { runId, resumed: false, prompts: categoryPrompts.length, asks: rows.length };
    });
    planned.push({ ...run, categoryId });
  }
  return planned;
}
