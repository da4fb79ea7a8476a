import { addDays, type CalendarDate, localDate, localTime, zonedInstant } from './windows.ts';

// When a brand's monitoring runs next, and which budget month an ask falls in. Pure: the clock and
// the organization's time zone are arguments. Every slot is a wall-clock time on a calendar day
// in the organization's time zone (docs/monitoring.md, "Schedule"), so a daily 06:00 run stays at
// 06:00 across a daylight-saving change; the change's odd hours follow zonedInstant: a time the
// clocks skip is read with the offset before the jump (02:30 on a spring-forward night is 03:30),
// and a time that happens twice is the first of the two.

export const CADENCES = ['daily', 'weekly', 'off'] as const;
export type Cadence = (typeof CADENCES)[number];

/** Days of the week, in the order Date.getUTCDay numbers them (0 is Sunday). */
export const WEEKDAYS = ['sun', 'mon', 'tue', 'wed', 'thu', 'fri', 'sat'] as const;
export type Weekday = (typeof WEEKDAYS)[number];

const CADENCE_DAYS: Record<Exclude<Cadence, 'off'>, number> = { daily: 1, weekly: 7 };
const MIDNIGHT = { hour: 0, minute: 0, second: 0, millisecond: 0 };

export interface Schedule {
  cadence: Cadence;
  /** "HH:MM" in the organization's time zone; null: any time of day. */
  time: string | null;
  /** The day of the week a weekly run falls on; null: the weekday the schedule started on. */
  weekday: Weekday | null;
  timezone: string;
}

/** "HH:MM" (24-hour clock) as hour and minute; null when it is not one. */
export function parseTimeOfDay(value: string): { hour: number; minute: number } | null {
  const match = /^([01]\d|2[0-3]):([0-5]\d)$/.exec(value);
  return match ? { hour: Number(match[1]), minute: Number(match[2]) } : null;
}

export const WEEKDAY_NAMES: Record<Weekday, string> = {
  sun: 'Sunday',
  mon: 'Monday',
  tue: 'Tuesday',
  wed: 'Wednesday',
  thu: 'Thursday',
  fri: 'Friday',
  sat: 'Saturday',
};

/** "mon", "Monday", "MON": the weekday; null when it is not one. */
export function parseWeekday(value: string): Weekday | null {
  const name = value.trim().toLowerCase();
  return WEEKDAYS.find((d) => name === d || name === WEEKDAY_NAMES[d].toLowerCase()) ?? null;
}

function weekdayOf(date: CalendarDate): Weekday {
  return WEEKDAYS[new Date(Date.UTC(date.year, date.month - 1, date.day)).getUTCDay()] as Weekday;
}

/** The first day on or after `date` that falls on `weekday`. */
function onOrAfter(date: CalendarDate, weekday: Weekday): CalendarDate {
  const ahead = (WEEKDAYS.indexOf(weekday) - WEEKDAYS.indexOf(weekdayOf(date)) + 7) % 7;
  return addDays(date, ahead);
}

type Clock = ReturnType<typeof localTime>;

/**
 * When the next run is due. `previous` is the slot that was just run (null when the schedule was
 * set or changed).
 *
 * The first slot is the schedule's time of day on the first run day at or after `now`; without a
 * time of day it is `now` itself, or the start (00:00) of the weekday when a weekly run waits for
 * one. Each next slot is a day or a week on, at the same wall-clock time: the schedule's time of
 * day, or without one the previous slot's. A slot already in the past is not caught up on: a
 * worker that was down for a week runs the due slot once, now, and the slot after it is the first
 * one of the series still ahead.
 */
export function nextRunAt(schedule: Schedule, previous: Date | null, now: Date): Date | null {
  if (schedule.cadence === 'off') return null;
  const { timezone } = schedule;
  const time = schedule.time === null ? null : parseTimeOfDay(schedule.time);
  const clock: Clock | null = time && { ...time, second: 0, millisecond: 0 };
  const weekday = schedule.cadence === 'weekly' ? schedule.weekday : null;
  const slot = (day: CalendarDate, at: Clock) => zonedInstant({ ...day, ...at }, timezone);

  if (previous === null) {
    const today = localDate(now, timezone);
    if (clock === null) {
      if (weekday === null || weekdayOf(today) === weekday) return now;
      return slot(onOrAfter(today, weekday), MIDNIGHT);
    }
    // Today's slot may already have passed: the run day after it is the next candidate.
    let day = weekday === null ? today : onOrAfter(today, weekday);
    while (slot(day, clock).getTime() < now.getTime()) {
      day = addDays(day, weekday === null ? 1 : 7);
    }
    return slot(day, clock);
  }

  const step = CADENCE_DAYS[schedule.cadence];
  const at = clock ?? localTime(previous, timezone);
  const previousDay = localDate(previous, timezone);
  // The weekday's next day after the previous slot (a week on, unless the weekday was changed).
  let day = weekday === null ? addDays(previousDay, step) : onOrAfter(addDays(previousDay, 1), weekday);
  while (slot(day, at).getTime() <= now.getTime()) day = addDays(day, step);
  return slot(day, at);
}

/** The calendar month, "YYYY-MM", an instant falls in in the organization's time zone. */
export function budgetMonth(now: Date, timezone: string): string {
  const { year, month } = localDate(now, timezone);
  return `${year}-${String(month).padStart(2, '0')}`;
}
