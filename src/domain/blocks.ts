// The time layout of the analytics aggregates (docs/performance.md). Whole UTC days are grouped
// into aligned blocks of 4, 16, 64 and 256 days; a block of span s starts on a day number
// divisible by s and is the sum of its four children (for a 4-day block, of the runs finishing in
// it). Any window is then a handful of blocks plus, at each end, less than four days read per run,
// so a 90-day window and a three-year one cost about the same. There is no 1-day block: with a
// run or two per category a day it would only copy the run rows.

export const DAY_MS = 86_400_000;
/** Block spans in days, largest first; each is four of the next. */
export const BLOCK_SPANS = [256, 64, 16, 4] as const;
const SMALLEST = 4;
const FANOUT = 4;
const SPAN_FACTOR = 1_000_000;

/** The UTC day number (days since 1970-01-01) of an instant. */
export const dayOf = (ms: number) => Math.floor(ms / DAY_MS);

/** Blocks are stored as one integer, span × 1 000 000 + first day, so a set of them is one IN list. */
export const blockId = (span: number, firstDay: number) => span * SPAN_FACTOR + firstDay;

export function blockSpan(block: number): { span: number; firstDay: number } {
  const span = Math.floor(block / SPAN_FACTOR);
  return { span, firstDay: block - span * SPAN_FACTOR };
}

/** The block of a span that contains the day. */
const blockOf = (span: number, day: number) => blockId(span, day - (((day % span) + span) % span));

/** The block of each span that contains the day, smallest first. */
export function blocksContaining(day: number): number[] {
  return [...BLOCK_SPANS].reverse().map((span) => blockOf(span, day));
}

/** The smallest block that contains the day. */
export const smallestBlockOf = (day: number) => blockOf(SMALLEST, day);

/**
 * Where a time range [startMs, endMs) is cut so that its part before the day holding its end can
 * be kept apart (a new run lands after the cut): that day's first instant, when it lies strictly
 * inside the range; otherwise null.
 */
export function lastDayCut(startMs: number, endMs: number): number | null {
  const cut = dayOf(endMs) * DAY_MS;
  return cut > startMs && cut < endMs ? cut : null;
}

/** The four blocks a block sums; empty for the smallest blocks, which sum runs. */
export function childrenOf(block: number): number[] {
  const { span, firstDay } = blockSpan(block);
  if (span === SMALLEST) return [];
  const child = span / FANOUT;
  return Array.from({ length: FANOUT }, (_, i) => blockId(child, firstDay + i * child));
}

/** The days a smallest block sums the runs of. */
export function daysOf(block: number): number[] {
  const { span, firstDay } = blockSpan(block);
  return Array.from({ length: span }, (_, i) => firstDay + i);
}

export interface TimeRange {
  /** ISO-8601, inclusive. */
  start: string;
  /** ISO-8601, exclusive. */
  end: string;
}

/** A window [start, end) as aligned blocks plus, at its ends, the stretches read per run. */
export interface Cover {
  blocks: number[];
  edges: TimeRange[];
}

const iso = (ms: number) => new Date(ms).toISOString();

export function cover(fromMs: number, endMs: number): Cover {
  // Nothing is stored before 1970, and day numbers stay non-negative.
  const startMs = Math.max(fromMs, 0);
  if (endMs <= startMs) return { blocks: [], edges: [] };
  const unit = SMALLEST * DAY_MS;
  const first = Math.ceil(startMs / unit) * SMALLEST;
  const end = Math.floor(endMs / unit) * SMALLEST;
  if (first >= end) return { blocks: [], edges: [{ start: iso(startMs), end: iso(endMs) }] };

  const edges: TimeRange[] = [];
  if (first * DAY_MS > startMs) edges.push({ start: iso(startMs), end: iso(first * DAY_MS) });
  if (end * DAY_MS < endMs) edges.push({ start: iso(end * DAY_MS), end: iso(endMs) });
  // Greedy from the left: the largest aligned block that fits, then on. At most 2·(4 − 1) blocks
  // per span, so even the whole history is a few dozen blocks.
  const blocks: number[] = [];
  let day = first;
  while (day < end) {
    const span = BLOCK_SPANS.find((s) => day % s === 0 && day + s <= end) ?? SMALLEST;
    blocks.push(blockId(span, day));
    day += span;
  }
  return { blocks, edges };
}

/**
 * The generations of the analytics aggregates are kept per day, stored as a block of one day
 * (span 1, below every aggregate block's span) beside the 4-day ones written for instances from
 * before them (aggregates.ts `advanceGenerations`).
 */
export const generationDayOf = (day: number) => blockId(1, day);

/**
 * The first and last generation days (`generationDayOf`) a time range [startMs, endMs) touches;
 * null for an empty range. What was written inside the range was written on these days.
 */
export function generationDaysTouched(
  startMs: number,
  endMs: number,
): { first: number; last: number } | null {
  if (endMs <= startMs) return null;
  const day = (ms: number) => generationDayOf(dayOf(Math.max(ms, 0)));
  return { first: day(startMs), last: day(endMs - 1) };
}
