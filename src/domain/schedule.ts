import { addDays, localDate, zonedInstant } from './windows.ts';

// When a brand's monitoring runs next, and which budget month an ask falls in. Pure: the clock and
// the organization's time zone are arguments.

export const CADENCES = ['daily', 'weekly', 'off'] as const;
export type Cadence = (typeof CADENCES)[number];

const CADENCE_DAYS: Record<Exclude<Cadence, 'off'>, number> = { daily: 1, weekly: 7 };
const DAY_MS = 86_400_000;

export interface Schedule {
  cadence: Cadence;
  /** "HH:MM" in the organization's time zone; null: any time of day. */
  time: string | null;
  timezone: string;
}

/** "HH:MM" (24-hour clock) as hour and minute; null when it is not one. */
export function parseTimeOfDay(value: string): { hour: number; minute: number } | null {
  const match = /^([01]\d|2[0-3]):([0-5]\d)$/.exec(value);
  return match ? { hour: Number(match[1]), minute: Number(match[2]) } : null;
}

/** The first moment at or after `from` whose wall-clock time in the zone is `time`. */
function nextWallTime(time: { hour: number; minute: number }, timezone: string, from: Date): Date {
  const today = localDate(from, timezone);
  for (let days = 0; ; days++) {
    const at = zonedInstant({ ...addDays(today, days), ...time, second: 0, millisecond: 0 }, timezone);
    if (at.getTime() >= from.getTime()) return at;
  }
}

/**
 * When the next run is due. `previous` is the slot that was just run (null when the schedule was
 * set or changed): the next slot is a day or a week after it, at the schedule's time of day when
 * it has one. A slot already in the past is not caught up on: a worker that was down for a week
 * runs once, now (or at the next time of day), not seven times.
 */
export function nextRunAt(schedule: Schedule, previous: Date | null, now: Date): Date | null {
  if (schedule.cadence === 'off') return null;
  const days = CADENCE_DAYS[schedule.cadence];
  const time = schedule.time === null ? null : parseTimeOfDay(schedule.time);
  if (time === null) {
    if (previous === null) return now;
    const next = previous.getTime() + days * DAY_MS;
    return new Date(Math.max(next, now.getTime()));
  }
  if (previous === null) return nextWallTime(time, schedule.timezone, now);
  const day = addDays(localDate(previous, schedule.timezone), days);
  const next = zonedInstant({ ...day, ...time, second: 0, millisecond: 0 }, schedule.timezone);
  return next.getTime() > now.getTime() ? next : nextWallTime(time, schedule.timezone, now);
}

/** The calendar month, "YYYY-MM", an instant falls in in the organization's time zone. */
export function budgetMonth(now: Date, timezone: string): string {
  const { year, month } = localDate(now, timezone);
  return `${year}-${String(month).padStart(2, '0')}`;
}
