// A brand's monitoring settings: cadence, time of day, engines, samples. Changing the cadence or
// the time moves the next run (stored on the brand, so the API's nextMonitoredRunAt is the
// schedule itself); changing only the engines or samples leaves it where it was.
import type { EngineName } from '../config.ts';
import type { Db } from '../db/connect.ts';
import { type BrandMonitoring, findBrandMonitoring, setBrandMonitoring } from '../db/monitoring.ts';
import { InvalidInput } from '../domain/catalog.ts';
import { type Cadence, nextRunAt } from '../domain/schedule.ts';

export const MAX_SAMPLES = 10;

export interface MonitoringChanges {
  cadence?: Cadence;
  /** "HH:MM"; null clears it. */
  time?: string | null;
  engines?: readonly EngineName[];
  samples?: number;
}

export function hasMonitoringChanges(changes: MonitoringChanges): boolean {
  return Object.values(changes).some((v) => v !== undefined);
}

export async function updateBrandMonitoring(
  db: Db,
  orgId: number,
  brandId: number,
  changes: MonitoringChanges,
  now: Date,
): Promise<BrandMonitoring> {
  const current = await findBrandMonitoring(db, orgId, brandId);
  if (!current) throw new InvalidInput(`brand ${brandId} does not exist in this organization`);
  const next = {
    cadence: changes.cadence ?? (current.cadence as Cadence),
    time: changes.time === undefined ? current.time : changes.time,
    engines: changes.engines ? [...new Set(changes.engines)] : current.engines,
    samples: changes.samples ?? current.samples,
  };
  if (next.cadence !== 'off' && next.engines.length === 0) {
    throw new InvalidInput(
      `a ${next.cadence} schedule needs engines: give --engines, e.g. --engines chatgpt,perplexity`,
    );
  }
  const rescheduled =
    next.cadence !== current.cadence || next.time !== current.time || current.nextRunAt === null;
  const nextRun = rescheduled
    ? (nextRunAt({ ...next, timezone: current.timezone }, null, now)?.toISOString() ?? null)
    : current.nextRunAt;
  await setBrandMonitoring(db, orgId, brandId, {
    ...next,
    nextRunAt: next.cadence === 'off' ? null : nextRun,
  });
  return (await findBrandMonitoring(db, orgId, brandId)) as BrandMonitoring;
}

/** One line: "daily at 06:00 (Europe/Berlin), chatgpt+perplexity × 2 samples, next …". */
export function describeMonitoring(m: BrandMonitoring): string {
  if (m.cadence === 'off')
    return `monitoring off${m.engines.length > 0 ? ` (engines ${m.engines.join(', ')})` : ''}`;
  const when = m.time ? ` at ${m.time} (${m.timezone})` : '';
  return `monitoring ${m.cadence}${when}, engines ${m.engines.join(', ')}, ${m.samples} sample(s) per prompt and engine, next run ${m.nextRunAt ?? 'not scheduled'}`;
}
