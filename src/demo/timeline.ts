// When the demo's monitoring runs happened and what state each one is in. Every time is relative
// to an anchor, midnight UTC of the seeding day, so the same day always yields the same data and
// the newest completed runs are always from yesterday.
import type { BrandSpec } from './catalog.ts';
import type { Prng } from './prng.ts';

export const DAY_MS = 86_400_000;
const MINUTE_MS = 60_000;
/** Runs older than this many days used the legacy methodology; the cutover came after. */
export const CUTOVER_DAYS_AGO = 90;
/** Legacy captures this old sometimes lost their mention data. */
const LOST_MENTION_DATA_DAYS_AGO = 106;
/** Seconds one ask takes in a run; spaces capture times out realistically. */
const ASK_SECONDS = 3;

export function anchorOf(now: Date): number {
  return Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate());
}

export interface Ask {
  promptIndex: number;
  model: string;
  repeat: number;
  capturedAt: number;
  /** A legacy capture whose text was not kept, and with it its mention data. */
  lostMentionData: boolean;
}

export interface RunPlan {
  externalId: string;
  categoryIndex: number;
  daysAgo: number;
  status: 'completed' | 'running' | 'failed';
  methodology: 'sample_v1' | 'legacy';
  startedAt: number;
  /** A completed current-methodology run left unpublished, as an operator would before checking it. */
  heldBack: boolean;
  /** Asks per prompt and model: above 1 each ask is its own answer, never merged into a sample. */
  repeats: number;
  /** What was asked, in order; their capture times are the run's start and finish. */
  asks: Ask[];
}

function has(
  list: readonly (readonly [number, number])[] | undefined,
  category: number,
  daysAgo: number,
): boolean {
  return (list ?? []).some(([c, d]) => c === category && d === daysAgo);
}

/** Every run of one brand, oldest first. */
export function planRuns(brand: BrandSpec, brandIndex: number, anchor: number, prng: Prng): RunPlan[] {
  const runs: RunPlan[] = [];
  brand.categories.forEach((category, categoryIndex) => {
    const lastDay = Math.max(brand.historyUntilDaysAgo, category.historyUntilDaysAgo);
    const asked = (daysAgo: number) =>
      category.prompts.flatMap((prompt, index) => (daysAgo >= prompt.askedUntilDaysAgo ? [index] : []));

    const plan = (
      daysAgo: number,
      startedAt: number,
      kind: 'daily' | 'big' | 'in_flight',
      promptIndexes: number[],
      repeats: number,
    ): RunPlan => {
      const legacy = kind === 'daily' && daysAgo > CUTOVER_DAYS_AGO;
      const failed = kind === 'daily' && has(brand.failedRuns, categoryIndex, daysAgo);
      // A failed run stopped after its first prompt; an in-flight one is half-way through.
      const done = failed
        ? 1
        : kind === 'in_flight'
          ? Math.ceil(promptIndexes.length / 2)
          : promptIndexes.length;
      const asks: Ask[] = [];
      for (const promptIndex of promptIndexes.slice(0, done)) {
        for (const model of brand.models) {
          for (let repeat = 0; repeat < repeats; repeat++) {
            asks.push({
              promptIndex,
              model,
              repeat,
              capturedAt: startedAt + (asks.length + 1) * ASK_SECONDS * 1000,
              lostMentionData: legacy && daysAgo >= LOST_MENTION_DATA_DAYS_AGO && prng.chance(0.35),
            });
          }
        }
      }
      const status = kind === 'in_flight' ? 'running' : failed ? 'failed' : 'completed';
      return {
        externalId: `demo-b${brandIndex + 1}-c${categoryIndex + 1}-d${daysAgo}-${kind}`,
        categoryIndex,
        daysAgo,
        status,
        methodology: legacy ? 'legacy' : 'sample_v1',
        startedAt,
        heldBack:
          status === 'completed' &&
          !legacy &&
          kind === 'daily' &&
          has(brand.unpublishedRuns, categoryIndex, daysAgo),
        repeats,
        asks,
      };
    };

    for (let daysAgo = brand.historyFromDaysAgo; daysAgo >= lastDay; daysAgo--) {
      const startedAt =
        anchor -
        daysAgo * DAY_MS +
        (5 * 60 + brandIndex * 9 + categoryIndex * 3) * MINUTE_MS +
        prng.int(0, 120) * 1000;
      runs.push(plan(daysAgo, startedAt, 'daily', asked(daysAgo), 1));
      if (brand.bigRun?.category === categoryIndex && brand.bigRun.daysAgo === daysAgo) {
        const monitored = category.prompts.flatMap((p, i) => (p.isMonitored && !p.isArchived ? [i] : []));
        runs.push(
          plan(
            daysAgo,
            anchor - daysAgo * DAY_MS + 12 * 60 * MINUTE_MS,
            'big',
            monitored,
            brand.bigRun.repeats,
          ),
        );
      }
    }
    if (brand.inFlightCategory === categoryIndex) {
      runs.push(plan(0, anchor - 12 * MINUTE_MS, 'in_flight', asked(0), 1));
    }
  });
  return runs.sort((a, b) => a.startedAt - b.startedAt);
}
