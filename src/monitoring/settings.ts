// A brand's monitoring settings: cadence, time of day, weekday, engines, samples. Changing the
// cadence, the time or the weekday moves the next run (stored on the brand, so the API's nextMonitoredRunAt is the
// schedule itself); changing only the engines or samples leaves it where it was.
import type { EngineName } from '../config.ts';
import type { Db } from '../db/connect.ts';
import { type BrandMonitoring, findBrandMonitoring, setBrandMonitoring } from '../db/monitoring.ts';
import { InvalidInput } from '../domain/catalog.ts';
import { type Cadence, nextRunAt, WEEKDAY_NAMES, type Weekday } from '../domain/schedule.ts';

export const MAX_SAMPLES = 10;

export interface MonitoringChanges {
  cadence?: Cadence;
  /** "HH:MM"; null clears it. */
  time?: string | null;
  /** The day of the week of weekly runs; null clears it. */
  weekday?: Weekday | null;
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
  const cadence = changes.cadence ?? (current.cadence as Cadence);
  const next = {
    cadence,
    time: changes.time === undefined ? current.time : changes.time,
    // Only a weekly schedule has a weekday: one left from an earlier weekly schedule would come
    // back with the next, unasked.
    weekday:
      cadence !== 'weekly'
        ? null
        : changes.weekday === undefined
          ? (current.weekday as Weekday | null)
          : changes.weekday,
    engines: changes.engines ? [...new Set(changes.engines)] : current.engines,
    samples: changes.samples ?? current.samples,
  };
  if (next.cadence !== 'off' && next.engines.length === 0) {
    throw new InvalidInput(
      `a ${next.cadence} schedule needs engines: give --engines, e.g. --engines chatgpt,perplexity`,
    );
  }
  if (changes.weekday && next.cadence !== 'weekly') {
    throw new InvalidInput(
      `a weekday is for a weekly schedule, and this one is ${next.cadence}: add --cadence weekly`,
    );
  }
  const rescheduled =
    next.cadence !== current.cadence ||
    next.time !== current.time ||
    next.weekday !== current.weekday ||
    current.nextRunAt === null;
  const nextRun = rescheduled
    ? (nextRunAt({ ...next, timezone: current.timezone }, null, now)?.toISOString() ?? null)
    : current.nextRunAt;
  await setBrandMonitoring(db, orgId, brandId, {
    ...next,
    nextRunAt: next.cadence === 'off' ? null : nextRun,
  });
  return (await findBrandMonitoring(db, orgId, brandId)) as BrandMonitoring;
}

/** One line: "weekly on Monday at 06:00 (Europe/Berlin), engines …, next run …". */
export function describeMonitoring(m: BrandMonitoring): string {
  if (m.cadence === 'off')
    return `monitoring off${m.engines.length > 0 ? ` (engines ${m.engines.join(', ')})` : ''}`;
  const day = m.cadence === 'weekly' && m.weekday ? ` on ${WEEKDAY_NAMES[m.weekday as Weekday]}` : '';
  const at = m.time ? ` at ${m.time}` : '';
  const when = day || at ? `${day}${at} (${m.timezone})` : '';
  return `monitoring ${m.cadence}${when}, engines ${m.engines.join(', ')}, ${m.samples} sample(s) per prompt and engine, next run ${m.nextRunAt ?? 'not scheduled'}`;
}
