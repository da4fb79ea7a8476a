import type { FieldErrors, Parsed } from '../errors.ts';

// Date-range windows (api.md "Date-range windows"; decisions.md "Windows and deltas"). Parsing is
// pure: the route passes the query, the request time and the organization's timezone, and gets a
// window or the DRF-style field errors to answer 400 with.

export const PRESET_DAYS = { '7d': 7, '30d': 30, '90d': 90 } as const;
export type Preset = keyof typeof PRESET_DAYS;
export const RANGES = ['7d', '30d', '90d', 'all', 'custom'] as const;
export type Range = (typeof RANGES)[number];
export const DEFAULT_RANGE: Preset = '30d';
export const HISTORY_LIMIT = { fallback: 30, max: 1000 } as const;

const DAY_MS = 86_400_000;

export interface Interval {
  start: Date;
  end: Date;
}

export interface Selection {
  /** rolling (7d/30d/90d), all, custom (explicit dates) or since (a history cutoff). */
  kind: 'rolling' | 'all' | 'custom' | 'since';
  preset: Preset | null;
  /** First and last calendar day the window touches, inclusive, in the organization's timezone. */
  startDate: string | null;
  endDate: string | null;
}

/**
 * A window [start, end) with its comparison window. `start` is null only for `all` until the
 * earliest observation is known (see `startingAt`).
 */
export interface Window {
  range: Range | 'since';
  start: Date | null;
  end: Date;
  asOf: Date;
  timezone: string;
  selection: Selection;
  previous: Interval | null;
  /** How a windowed delta names its span: 7d, since 2026-01-05, 2026-01-01 to 2026-01-31, all time. */
  spanLabel: string;
}

export interface RangeQuery {
  range?: string | undefined;
  start?: string | undefined;
  end?: string | undefined;
}

export interface HistoryQuery extends RangeQuery {
  since?: string | undefined;
  limit?: number | undefined;
}

export interface HistoryWindow {
  window: Window;
  /** Most points to return; null when the whole history is asked for (limit is then ignored). */
  limit: number | null;
}

const MESSAGES = {
  invalidChoice: (value: string) => `"${value}" is not a valid choice.`,
  onlyWithCustom: 'Only allowed with range=custom.',
  requiredWithCustom: 'This field is required when range=custom.',
  dateFormat: 'Date has wrong format. Use one of these formats instead: YYYY-MM-DD.',
  outOfOrder: 'start must be on or before end.',
  comparisonTooEarly: (earliest: string) =>
    `The comparison period (as many days before start) would begin before ${earliest}: choose a later start or a shorter range.`,
  future: (today: string, timezone: string) => `Cannot be in the future (today is ${today} in ${timezone}).`,
  sinceFormat: 'Enter "all", a date (YYYY-MM-DD) or an ISO 8601 date-time.',
  sinceFuture: 'Cannot be in the future.',
  sinceMixed: 'since cannot be combined with range, start or end.',
  limitMinimum: 'Ensure this value is greater than or equal to 1.',
} as const;

// ---- Calendar dates and wall-clock time in an IANA timezone (Intl only; correct across DST) ----

export interface CalendarDate {
  year: number;
  month: number;
  day: number;
}

interface WallTime extends CalendarDate {
  hour: number;
  minute: number;
  second: number;
  millisecond: number;
}

/** The earliest day a date parameter names, and the earliest a comparison period may begin. */
const EARLIEST_DATE: CalendarDate = { year: 1000, month: 1, day: 1 };

/** Date.UTC, except that years 0–99 are those years, not 1900–1999. */
function utc(year: number, monthIndex: number, day: number, hour = 0, minute = 0, second = 0, ms = 0) {
  const date = new Date(0);
  date.setUTCFullYear(year, monthIndex, day);
  date.setUTCHours(hour, minute, second, ms);
  return date.getTime();
}

/** Days since 1970-01-01 (negative before): for counting days and comparing dates of any year. */
const dayNumber = (date: CalendarDate) => Math.round(utc(date.year, date.month - 1, date.day) / DAY_MS);

/** YYYY-MM-DD naming a real calendar day (years 1000–9999); null otherwise. */
export function parseDate(raw: string): CalendarDate | null {
  const match = /^(\d{4})-(\d{2})-(\d{2})$/.exec(raw);
  if (!match) return null;
  const [year, month, day] = [Number(match[1]), Number(match[2]), Number(match[3])];
  if (year < EARLIEST_DATE.year) return null;
  const probe = new Date(utc(year, month - 1, day));
  if (probe.getUTCMonth() !== month - 1 || probe.getUTCDate() !== day) return null;
  return { year, month, day };
}

export function formatDate(date: CalendarDate): string {
  const pad = (n: number, width: number) => String(n).padStart(width, '0');
  return `${pad(date.year, 4)}-${pad(date.month, 2)}-${pad(date.day, 2)}`;
}

export function addDays(date: CalendarDate, days: number): CalendarDate {
  const moved = new Date(utc(date.year, date.month - 1, date.day + days));
  return { year: moved.getUTCFullYear(), month: moved.getUTCMonth() + 1, day: moved.getUTCDate() };
}

const formatters = new Map<string, Intl.DateTimeFormat>();

function wallTime(instant: number, timezone: string): WallTime {
  let formatter = formatters.get(timezone);
  if (!formatter) {
    formatter = new Intl.DateTimeFormat('en-US', {
      timeZone: timezone,
      hourCycle: 'h23',
      year: 'numeric',
      month: 'numeric',
      day: 'numeric',
      hour: 'numeric',
      minute: 'numeric',
      second: 'numeric',
    });
    formatters.set(timezone, formatter);
  }
  const parts: Record<string, number> = {};
  for (const part of formatter.formatToParts(instant)) parts[part.type] = Number(part.value);
  return {
    year: parts.year ?? 0,
    month: parts.month ?? 0,
    day: parts.day ?? 0,
    hour: parts.hour ?? 0,
    minute: parts.minute ?? 0,
    second: parts.second ?? 0,
    millisecond: ((instant % 1000) + 1000) % 1000,
  };
}

const asUtc = (t: WallTime) => utc(t.year, t.month - 1, t.day, t.hour, t.minute, t.second, t.millisecond);

/** The calendar day an instant falls on in the timezone. */
export function localDate(instant: Date, timezone: string): CalendarDate {
  const { year, month, day } = wallTime(instant.getTime(), timezone);
  return { year, month, day };
}

/** The wall-clock time of day an instant shows in the timezone. */
export function localTime(
  instant: Date,
  timezone: string,
): Pick<WallTime, 'hour' | 'minute' | 'second' | 'millisecond'> {
  const { hour, minute, second, millisecond } = wallTime(instant.getTime(), timezone);
  return { hour, minute, second, millisecond };
}

/**
 * The instant a wall-clock time happens in the timezone. The candidates are the time read with
 * the offsets in force a day before and a day after (a zone changes offset at most once in two
 * days). When the clock is set back and the time happens twice, the first; when it is skipped (a
 * spring-forward gap), the same wall time after the jump, i.e. a midnight that does not exist
 * becomes the moment the day begins.
 */
export function zonedInstant(time: WallTime, timezone: string): Date {
  const target = asUtc(time);
  const offsetAt = (instant: number) => asUtc(wallTime(instant, timezone)) - instant;
  const candidates = [target - offsetAt(target - DAY_MS), target - offsetAt(target + DAY_MS)];
  const exact = candidates.filter((c) => asUtc(wallTime(c, timezone)) === target);
  return new Date(exact.length > 0 ? Math.min(...exact) : Math.max(...candidates));
}

const midnight = (date: CalendarDate, timezone: string) =>
  zonedInstant({ ...date, hour: 0, minute: 0, second: 0, millisecond: 0 }, timezone);

// ---- Windows ----

function addError(errors: FieldErrors, field: string, message: string): void {
  const list = errors[field] ?? [];
  list.push(message);
  errors[field] = list;
}

const hasErrors = (errors: FieldErrors) => Object.keys(errors).length > 0;

function isRange(value: string): value is Range {
  return (RANGES as readonly string[]).includes(value);
}

/** end = asOf = now, start = N days before, previous = the N days before that. */
function rolling(preset: Preset, now: Date, timezone: string): Window {
  const span = PRESET_DAYS[preset] * DAY_MS;
  const start = new Date(now.getTime() - span);
  return {
    range: preset,
    start,
    end: now,
    asOf: now,
    timezone,
    selection: {
      kind: 'rolling',
      preset,
      startDate: formatDate(localDate(start, timezone)),
      endDate: formatDate(localDate(now, timezone)),
    },
    previous: { start: new Date(start.getTime() - span), end: start },
    spanLabel: preset,
  };
}

function allTime(now: Date, timezone: string): Window {
  return {
    range: 'all',
    start: null,
    end: now,
    asOf: now,
    timezone,
    selection: { kind: 'all', preset: null, startDate: null, endDate: formatDate(localDate(now, timezone)) },
    previous: null,
    spanLabel: 'all time',
  };
}

/** The first day of a custom range's comparison period: as many calendar days before `first`. */
function comparisonStart(first: CalendarDate, last: CalendarDate): CalendarDate {
  return addDays(first, -(dayNumber(last) - dayNumber(first) + 1));
}

/** first 00:00 to last 24:00 in the timezone; the previous window is as many calendar days before. */
function custom(first: CalendarDate, last: CalendarDate, now: Date, timezone: string): Window {
  const start = midnight(first, timezone);
  return {
    range: 'custom',
    start,
    end: midnight(addDays(last, 1), timezone),
    asOf: now,
    timezone,
    selection: { kind: 'custom', preset: null, startDate: formatDate(first), endDate: formatDate(last) },
    previous: { start: midnight(comparisonStart(first, last), timezone), end: start },
    spanLabel: `${formatDate(first)} to ${formatDate(last)}`,
  };
}

/** The analytics window of `range`, `start` and `end` (default 30d). */
export function parseRange(query: RangeQuery, now: Date, timezone: string): Parsed<Window> {
  const errors: FieldErrors = {};
  const range = query.range ?? DEFAULT_RANGE;
  if (!isRange(range)) {
    addError(errors, 'range', MESSAGES.invalidChoice(range));
    return { ok: false, errors };
  }
  if (range !== 'custom') {
    if (query.start !== undefined) addError(errors, 'start', MESSAGES.onlyWithCustom);
    if (query.end !== undefined) addError(errors, 'end', MESSAGES.onlyWithCustom);
    if (hasErrors(errors)) return { ok: false, errors };
    return { ok: true, value: range === 'all' ? allTime(now, timezone) : rolling(range, now, timezone) };
  }

  const dates: Partial<Record<'start' | 'end', CalendarDate>> = {};
  for (const field of ['start', 'end'] as const) {
    const raw = query[field];
    const date = raw === undefined ? null : parseDate(raw);
    if (date) dates[field] = date;
    else addError(errors, field, raw === undefined ? MESSAGES.requiredWithCustom : MESSAGES.dateFormat);
  }
  const { start, end } = dates;
  if (!start || !end) return { ok: false, errors };
  const today = formatDate(localDate(now, timezone));
  if (formatDate(end) > today) addError(errors, 'end', MESSAGES.future(today, timezone));
  if (formatDate(start) > formatDate(end)) addError(errors, 'non_field_errors', MESSAGES.outOfOrder);
  else if (dayNumber(comparisonStart(start, end)) < dayNumber(EARLIEST_DATE))
    // Its dates would fall outside what a date names (and past year 0, what the API can write).
    addError(errors, 'start', MESSAGES.comparisonTooEarly(formatDate(EARLIEST_DATE)));
  if (hasErrors(errors)) return { ok: false, errors };
  return { ok: true, value: custom(start, end, now, timezone) };
}

const CUTOFF =
  /^(\d{4}-\d{2}-\d{2})(?:T(\d{2}):(\d{2})(?::(\d{2})(?:\.(\d{1,9}))?)?(Z|[+\- ]\d{2}:\d{2})?)?$/;

/**
 * A date (local midnight) or a date-time (local unless it carries an offset); null when neither,
 * or when it falls before year 1000 in the organization's time zone (1000-01-01T00:00+14:00 is
 * 0999-12-31 in New York: its span label would name a year no date may).
 */
function parseCutoff(raw: string, timezone: string): Date | null {
  const cutoff = instantOf(raw, timezone);
  return cutoff && localDate(cutoff, timezone).year >= EARLIEST_DATE.year ? cutoff : null;
}

function instantOf(raw: string, timezone: string): Date | null {
  const match = CUTOFF.exec(raw);
  const date = match ? parseDate(match[1] ?? '') : null;
  if (!match || !date) return null;
  const [, , hour = '0', minute = '0', second = '0', fraction = '0', offset] = match;
  const time: WallTime = {
    ...date,
    hour: Number(hour),
    minute: Number(minute),
    second: Number(second),
    millisecond: Number(fraction.padEnd(3, '0').slice(0, 3)),
  };
  if (time.hour > 23 || time.minute > 59 || time.second > 59) return null;
  if (offset === undefined) return zonedInstant(time, timezone);
  if (offset === 'Z') return new Date(asUtc(time));
  // An unencoded "+" in a query string arrives as a space.
  const [offsetHours = 0, offsetMinutes = 0] = offset.slice(1).split(':').map(Number);
  if (offsetHours > 23 || offsetMinutes > 59) return null;
  const sign = offset.startsWith('-') ? -1 : 1;
  return new Date(asUtc(time) - sign * (offsetHours * 60 + offsetMinutes) * 60_000);
}

function since(cutoff: Date, now: Date, timezone: string): Window {
  const startDate = formatDate(localDate(cutoff, timezone));
  return {
    range: 'since',
    start: cutoff,
    end: now,
    asOf: now,
    timezone,
    selection: { kind: 'since', preset: null, startDate, endDate: formatDate(localDate(now, timezone)) },
    previous: null,
    spanLabel: `since ${startDate}`,
  };
}

/**
 * The window of a score-history or category-deltas request: `since` (a date, a date-time or
 * `all`; default the 30-day window) or the analytics window parameters, never both; and `limit`
 * (default 30, capped at 1000, ignored for the whole history).
 */
export function parseHistory(query: HistoryQuery, now: Date, timezone: string): Parsed<HistoryWindow> {
  const errors: FieldErrors = {};
  if (query.limit !== undefined && query.limit < 1) addError(errors, 'limit', MESSAGES.limitMinimum);
  const limit = Math.min(query.limit ?? HISTORY_LIMIT.fallback, HISTORY_LIMIT.max);

  let window: Window | null = null;
  if (query.since === undefined) {
    const parsed = parseRange(query, now, timezone);
    if (parsed.ok) window = parsed.value;
    else Object.assign(errors, parsed.errors);
  } else if (query.range !== undefined || query.start !== undefined || query.end !== undefined) {
    addError(errors, 'non_field_errors', MESSAGES.sinceMixed);
  } else if (query.since === 'all') {
    window = allTime(now, timezone);
  } else {
    const cutoff = parseCutoff(query.since, timezone);
    if (!cutoff) addError(errors, 'since', MESSAGES.sinceFormat);
    else if (cutoff.getTime() > now.getTime()) addError(errors, 'since', MESSAGES.sinceFuture);
    else window = since(cutoff, now, timezone);
  }
  if (!window || hasErrors(errors)) return { ok: false, errors };
  return { ok: true, value: { window, limit: window.range === 'all' ? null : limit } };
}

/** An `all` window starts at the earliest observation (at its end when there is none). */
export function startingAt(window: Window, earliest: Date | null): Window & { start: Date } {
  if (window.start) return { ...window, start: window.start };
  const start = earliest && earliest < window.end ? earliest : window.end;
  return {
    ...window,
    start,
    selection: {
      ...window.selection,
      startDate: earliest ? formatDate(localDate(start, window.timezone)) : null,
    },
  };
}
