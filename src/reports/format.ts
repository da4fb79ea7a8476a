// How API figures read in a report. Every figure keeps the precision the API serves (scores 1
// decimal, rates and shares 4 decimals shown as percentages with 2, ranks 2 decimals), so a reader
// can match any number in a report against the API response digit for digit.
import { localDate } from '../domain/windows.ts';
import type { Change, Tone } from './document.ts';

const DASH = '–';

export function score(value: number | null): string {
  return value === null ? DASH : value.toFixed(1);
}

/** A 0–1 fraction as a percentage: 0.4512 → "45.12%". */
export function percent(fraction: number | null): string {
  return fraction === null ? DASH : `${(fraction * 100).toFixed(2)}%`;
}

export function rank(value: number | null): string {
  return value === null ? DASH : value.toFixed(2);
}

export function count(value: number): string {
  return value.toLocaleString('en-US');
}

/** A count with its noun: "1 domain", "3,360 citations". */
export function counted(value: number, noun: string): string {
  return `${count(value)} ${value === 1 ? noun : `${noun}s`}`;
}

function signed(text: string, value: number): string {
  return value > 0 ? `+${text}` : text;
}

const REASONS: Record<string, string> = {
  no_data: 'no data in this window',
  no_prior: 'nothing to compare with',
  no_boundary: 'no score before the window',
  cross_era: 'methodology changed; not comparable',
};

/** Why a delta is absent, in words. */
export function suppressed(reason: string): string {
  return REASONS[reason] ?? reason.replace(/_/g, ' ');
}

/** A change the API judged within the sampling noise (its significance), in words. */
export const WITHIN_NOISE = 'within the sampling noise';

/**
 * A change the API judged within the sampling noise keeps its figure but not its colour: it is no
 * evidence of a move either way.
 */
export function judged(change: Change | null, significance: string | null): Change | null {
  return change && significance === 'within_noise' ? { ...change, tone: 'neutral' } : change;
}

/** A change within the sampling noise in words, its figure beside them: "held steady — … (+1.23 pts)". */
export const heldSteady = (changeText: string) => `held steady — ${WITHIN_NOISE} (${changeText})`;

/**
 * A change where there is room for words: one the API judged within the sampling noise reads as
 * heldSteady, in no colour; any other as it is.
 */
export function worded(change: Change | null, significance: string | null): Change | null {
  return change && significance === 'within_noise'
    ? { text: heldSteady(change.text), tone: 'neutral' }
    : change;
}

function tone(value: number, higherIsBetter: boolean): Tone {
  if (value === 0) return 'neutral';
  return value > 0 === higherIsBetter ? 'good' : 'bad';
}

/** A change of a 0–100 score, in points: "+3.2 pts". Null when the API suppressed it. */
export function scoreChange(delta: number | null): Change | null {
  return delta === null ? null : { text: `${signed(delta.toFixed(1), delta)} pts`, tone: tone(delta, true) };
}

/** A change of a rate or share, in percentage points: 0.0123 → "+1.23 pts". */
export function rateChange(delta: number | null): Change | null {
  return delta === null
    ? null
    : { text: `${signed((delta * 100).toFixed(2), delta)} pts`, tone: tone(delta, true) };
}

/** A change of an average rank: lower is better, so a negative delta reads as good. */
export function rankChange(delta: number | null): Change | null {
  return delta === null ? null : { text: signed(delta.toFixed(2), delta), tone: tone(delta, false) };
}

const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];

/** "16 Mar 2026" in the organization's time zone. */
export function date(instant: string, timeZone: string): string {
  return `${shortDate(instant, timeZone)} ${localDate(new Date(instant), timeZone).year}`;
}

/** "16 Mar" in the organization's time zone. */
export function shortDate(instant: string, timeZone: string): string {
  const { month, day } = localDate(new Date(instant), timeZone);
  return `${day} ${MONTHS[month - 1]}`;
}

/** "16 Mar 2026, 09:30 UTC" in the organization's time zone. */
export function dateTime(instant: string, timeZone: string): string {
  // The zone's abbreviation is the one thing localDate does not give.
  const format = new Intl.DateTimeFormat('en-GB', {
    timeZone,
    hour: '2-digit',
    minute: '2-digit',
    hourCycle: 'h23',
    timeZoneName: 'short',
  });
  const p = Object.fromEntries(
    format.formatToParts(new Date(instant)).map((part) => [part.type, part.value]),
  );
  return `${date(instant, timeZone)}, ${p.hour}:${p.minute} ${p.timeZoneName}`;
}

/** The last moment before a custom window's end: it ends at 24:00 of its last day, the next day's date. */
export const lastMomentOf = (end: string) => new Date(Date.parse(end) - 1).toISOString();

const PRESETS: Record<string, string> = { '7d': 'Last 7 days', '30d': 'Last 30 days', '90d': 'Last 90 days' };

/**
 * The window a report covers: "Last 30 days · 14 Feb – 16 Mar 2026", in the organization's time
 * zone. A rolling window ends at the moment of generation, so its last day is the day of `end`.
 */
export function windowLabel(window: { range: string; start: string; end: string }, timeZone: string): string {
  const end = window.range === 'custom' ? lastMomentOf(window.end) : window.end;
  const span = `${date(window.start, timeZone)} – ${date(end, timeZone)}`;
  if (window.range === 'all') return `All time · ${span}`;
  const preset = PRESETS[window.range];
  return preset ? `${preset} · ${span}` : span;
}
