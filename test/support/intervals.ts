// Every interval a response body serves, checked against the figure it bounds (methodology.md
// "Uncertainty"): low ≤ value ≤ high when there is one, a reason exactly when there is none. Shared
// by the demo-data test (test/uncertainty-demo.test.ts) and the 1 M-answer bench (bench/run.ts).
//
// An interval sits beside its figure under one of two names: `interval` bounds `value` (metrics)
// or `share` (share of voice, sources); `<figure>Interval` bounds `<figure>` (a platform's
// `mentionRateInterval`, a windowed delta's `latestScoreInterval`). Its reason is `<name>Reason`.

export interface IntervalTally {
  /** Intervals served (non-null) and checked. */
  checked: number;
  /** What was wrong, each with its path in the body. */
  violations: string[];
  /** Where intervals were served, array indices and category ids left out: ".metrics.avgRank.value". */
  places: Set<string>;
}

export const emptyTally = (): IntervalTally => ({ checked: 0, violations: [], places: new Set() });

const isIntervalKey = (key: string) => key === 'interval' || key.endsWith('Interval');

function figureKey(key: string, holder: Record<string, unknown>): string {
  if (key !== 'interval') return key.slice(0, -'Interval'.length);
  return 'value' in holder ? 'value' : 'share';
}

/** Adds every interval of a response body to `tally`; `source` (e.g. its URL) names it in messages. */
export function checkIntervals(
  body: unknown,
  source: string,
  tally: IntervalTally = emptyTally(),
): IntervalTally {
  walk(body, '', source, tally);
  return tally;
}

function walk(body: unknown, path: string, source: string, tally: IntervalTally): void {
  if (Array.isArray(body)) {
    for (const item of body) walk(item, `${path}[]`, source, tally);
    return;
  }
  if (body === null || typeof body !== 'object') return;
  const holder = body as Record<string, unknown>;
  for (const [key, value] of Object.entries(holder)) {
    // Category deltas are keyed by category id: one place for all of them.
    const at = `${path}.${/^\d+$/.test(key) ? '*' : key}`;
    if (!isIntervalKey(key)) {
      walk(value, at, source, tally);
      continue;
    }
    const figure = figureKey(key, holder);
    const reason = holder[`${key}Reason`];
    if (value === null) {
      if (typeof reason !== 'string') tally.violations.push(`${source} ${at} is null without a reason`);
      continue;
    }
    const { low, high } = value as { low: number; high: number };
    const served = holder[figure];
    tally.checked++;
    tally.places.add(`${path}.${figure}`);
    if (reason !== null) tally.violations.push(`${source} ${at} has both an interval and a reason`);
    if (typeof served !== 'number' || !(low <= served && served <= high)) {
      tally.violations.push(
        `${source} ${at} ${JSON.stringify(value)} does not hold ${figure} ${String(served)}`,
      );
    }
  }
}
