import type { Span } from './structure.ts';

// Lookups by position that a long answer must not pay for with a scan per mention: an answer of
// 200,000 characters holds thousands of mentions, sentences and list entries, and one pass over
// all of them for each of the others took seconds (a table of 10,000 rows naming the brand: 2 s).

const FEW = 16;

/** The number of leading items of a list sorted by `at` whose `at` is below `position`. */
function countBelow<T>(sorted: readonly T[], at: (item: T) => number, position: number): number {
  let low = 0;
  let high = sorted.length;
  while (low < high) {
    const middle = (low + high) >>> 1;
    if (at(sorted[middle] as T) < position) low = middle + 1;
    else high = middle;
  }
  return low;
}

const startOf = (span: Span) => span.start;

/** The spans of a list sorted by start that start inside `range`. */
export function startingWithin<T extends Span>(sorted: readonly T[], range: Span): T[] {
  return sorted.slice(countBelow(sorted, startOf, range.start), countBelow(sorted, startOf, range.end));
}

/** The first span of a list sorted by start that starts inside `range`. */
export function firstStartingWithin<T extends Span>(sorted: readonly T[], range: Span): T | undefined {
  const first = sorted[countBelow(sorted, startOf, range.start)];
  return first && first.start < range.end ? first : undefined;
}

/**
 * For spans in any order, possibly nested or overlapping: the furthest end among those starting
 * at or before a position (−Infinity when none does). A position is inside one of them when that
 * end is past it; a span lies inside one of them when that end, at its start, reaches its end.
 */
export function reachOf(spans: readonly Span[]): (position: number) => number {
  // A few spans (as most answers have) are read faster one by one than sorted first.
  if (spans.length <= FEW) {
    return (position) => {
      let end = Number.NEGATIVE_INFINITY;
      for (const span of spans) if (span.start <= position && span.end > end) end = span.end;
      return end;
    };
  }
  const sorted = [...spans].sort((a, b) => a.start - b.start);
  const furthest: number[] = [];
  let end = Number.NEGATIVE_INFINITY;
  for (const span of sorted) {
    end = Math.max(end, span.end);
    furthest.push(end);
  }
  return (position) => furthest[countBelow(sorted, startOf, position + 1) - 1] ?? Number.NEGATIVE_INFINITY;
}

/** Where a character last occurs before a position in `text` (−1 if not), its places found once. */
export function lastBefore(text: string, char: string): (position: number) => number {
  let places: number[] | undefined;
  return (position) => {
    if (!places) {
      places = [];
      for (let at = text.indexOf(char); at >= 0; at = text.indexOf(char, at + 1)) places.push(at);
    }
    return places[countBelow(places, (at) => at, position) - 1] ?? -1;
  };
}
