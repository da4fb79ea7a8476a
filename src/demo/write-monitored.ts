// The history of a demo brand that Sightline monitors itself (BrandSpec.monitoredDailyAt): nothing
// is imported; the brand gets a daily schedule on the simulated engine, and for each of its days
// the worker's own steps run with the clock at that day's slot: the schedule plans the due run,
// each planned ask is claimed, asked, analysed and written through the import's write path, and
// the last ask publishes the run. The brand keeps its schedule, so a `sightline worker` on the
// demo database asks for the seeding day's run.
import { loadConfig } from '../config.ts';
import type { Db } from '../db/connect.ts';
import { claimableAskIds, findBrandMonitoring } from '../db/monitoring.ts';
import { type AskDeps, executeAsk, type MonitorLog } from '../monitoring/asks.ts';
import { createEngines } from '../monitoring/engines/index.ts';
import { updateBrandMonitoring } from '../monitoring/settings.ts';
import { scheduleDue } from '../monitoring/worker.ts';
import { DAY_MS } from './timeline.ts';
import type { CatalogIds } from './write-catalog.ts';

/** A log that keeps nothing but a due run the schedule could not plan, the seed's failure then. */
function planningFailures(): MonitorLog & { failure: () => string | undefined } {
  let failure: string | undefined;
  return {
    info() {},
    warn() {},
    error(fields, message) {
      const { event, err } = fields as { event?: unknown; err?: unknown };
      if (event === 'schedule_failed') failure ??= typeof err === 'string' ? err : message;
    },
    failure: () => failure,
  };
}

export async function writeMonitoredHistory(
  db: Db,
  brand: CatalogIds['brands'][number],
  anchor: number,
): Promise<void> {
  const time = brand.spec.monitoredDailyAt;
  if (time === undefined) throw new Error(`demo brand ${brand.spec.name} is not monitored by Sightline`);
  let now = new Date(anchor - brand.spec.historyFromDaysAgo * DAY_MS);
  // A stopped clock for the engine too: the simulated engine answers in no time, so every latency
  // is 0 ms and the rows are the same on every seeding of the day.
  const engines = createEngines(loadConfig({}).engines, {
    clock: { now: () => now.getTime(), sleep: async () => {} },
  });
  const log = planningFailures();
  const deps: AskDeps = {
    db,
    engines,
    owner: 'demo-seed',
    leaseMs: 10 * 60_000,
    clock: () => now,
    log,
  };
  const monitoring = await updateBrandMonitoring(
    db,
    brand.orgId,
    brand.id,
    { cadence: 'daily', time, engines: ['simulated'], samples: 1 },
    now,
  );
  let due = monitoring.nextRunAt;
  while (due !== null && Date.parse(due) < anchor) {
    now = new Date(due);
    await scheduleDue(deps, new Set(engines.keys()));
    // The worker logs a run it could not plan and goes on; the seed stops on it.
    const failure = log.failure();
    if (failure !== undefined) throw new Error(failure);
    for (;;) {
      const asks = await claimableAskIds(db, { engines: [...engines.keys()] }, now.toISOString(), 100);
      if (asks.length === 0) break;
      for (const ask of asks) await executeAsk(deps, ask);
    }
    const next = (await findBrandMonitoring(db, brand.orgId, brand.id))?.nextRunAt ?? null;
    // The schedule must have moved on, else this loop would plan the same slot forever.
    if (next !== null && Date.parse(next) <= Date.parse(due))
      throw new Error(`demo brand ${brand.spec.name}: the schedule did not move past ${due}`);
    due = next;
  }
}
