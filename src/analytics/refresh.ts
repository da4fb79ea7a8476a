import type { RunRows } from '../db/aggregate-kinds.ts';
import { advanceGenerations, replaceRunRows, resumBlocks, storedRunDays } from '../db/aggregates.ts';
import type { Db } from '../db/connect.ts';
import {
  findRunsForScoring,
  type RunObservation,
  refreshRecentPromptScores,
  replaceRunPromptScores,
  runObservations,
  type ScoredPrompt,
} from '../db/scores.ts';
import { dayOf } from '../domain/blocks.ts';
import { CURRENT_METHODOLOGY, exclusionOf, promptsWithCurrentData, scoreOf } from '../domain/scoring.ts';
import { entry, loadRuns, runRows } from './run-rows.ts';

// Everything derived from a run's responses (per-prompt scores, the analytics aggregates) is
// recomputed here whenever the run is written, published, unpublished or re-imported.

const RUNS_PER_LOAD = 100;

/**
 * Recomputes the stored per-prompt scores of some runs from their responses. A prompt's score in a
 * run follows the same rules as any other set of observations: its legacy answers count only when
 * the run has no usable current-methodology answer for it. Returns the prompts whose newest and
 * previous scores may have changed with them.
 */
async function rescoreRuns(db: Db, orgId: number, runIds: readonly number[]): Promise<ScoredPrompt[]> {
  // Only a completed run has scores; any other run's (or a run no longer there) are removed.
  const scored = (await findRunsForScoring(db, orgId, runIds)).flatMap(({ finished_at, ...run }) =>
    run.status === 'completed' && finished_at ? [{ ...run, finished_at }] : [],
  );
  const observationsOf = await runObservations(
    db,
    orgId,
    scored.map((run) => run.id),
  );
  const values = [];
  for (const run of scored) {
    const observations = observationsOf.get(run.id) ?? [];
    const current = promptsWithCurrentData(observations);
    const byPrompt = new Map<number, RunObservation[]>();
    for (const o of observations) {
      if (exclusionOf(o, current.has(o.promptId)) !== null) continue;
      entry(byPrompt, o.promptId, () => []).push(o);
    }
    for (const [promptId, usable] of byPrompt) {
      const score = scoreOf(usable);
      if (score === null) continue;
      values.push({
        org_id: orgId,
        brand_id: run.brand_id,
        category_id: run.category_id,
        run_id: run.id,
        prompt_id: promptId,
        // The methodology the score rests on: legacy only when it is a legacy fallback.
        methodology: current.has(promptId) ? CURRENT_METHODOLOGY : 'legacy',
        scored_at: run.finished_at,
        score,
        weight_total: usable.reduce((sum, o) => sum + o.weight, 0),
      });
    }
  }
  return replaceRunPromptScores(db, orgId, runIds, values);
}

/**
 * Recomputes one run's per-prompt scores and its prompts' newest and previous scores. Prefer
 * refreshRunAggregates, which also keeps the analytics aggregates in step.
 */
export async function refreshRunPromptScores(db: Db, orgId: number, runId: number): Promise<void> {
  await refreshRecentPromptScores(db, orgId, await rescoreRuns(db, orgId, [runId]));
}

/** Recomputes the run-grain aggregate rows of some runs; adds the days they were and now are on. */
async function refreshRunRows(
  db: Db,
  orgId: number,
  runIds: readonly number[],
  days: Map<number, Set<number>>,
): Promise<void> {
  for (const { categoryId, day } of await storedRunDays(db, orgId, runIds)) {
    entry(days, categoryId, () => new Set()).add(day);
  }
  const { runs, competitorsOf, urlsOf } = await loadRuns(db, orgId, runIds);
  const all: RunRows = { coverage: [], observations: [], mentions: [], mention_domains: [], citations: [] };
  for (const run of runs) {
    const rows = runRows(orgId, run, competitorsOf, urlsOf);
    // Row by row: spread into push, a run's 100,000-odd rows of one kind would overflow the stack.
    for (const kind of Object.keys(all) as (keyof RunRows)[]) {
      const into = all[kind] as unknown[];
      for (const row of rows[kind]) into.push(row);
    }
    entry(days, run.header.category_id, () => new Set()).add(dayOf(Date.parse(run.header.finished_at)));
  }
  await replaceRunRows(db, orgId, runIds, all);
}

/**
 * Brings everything derived from some runs' responses up to date: their per-prompt scores, their
 * prompts' newest and previous scores (what brand, category and prompt scores read) and the
 * analytics aggregates. The demo writer and the import call it after writing runs, publish and
 * unpublish after changing a run's visibility. Pass many runs at once when you can: they share the
 * work on the day blocks. Call it inside the writer's transaction when there is one. `onProgress`
 * hears how many of the runs have their rows written, reaching all of them once the day blocks are
 * summed too.
 */
export async function refreshRunAggregates(
  db: Db,
  orgId: number,
  runIds: number | readonly number[],
  onProgress?: (done: number, total: number) => void,
): Promise<void> {
  const ids = typeof runIds === 'number' ? [runIds] : [...new Set(runIds)];
  if (ids.length === 0) return;
  const rescored: ScoredPrompt[] = [];
  const days = new Map<number, Set<number>>();
  for (let i = 0; i < ids.length; i += RUNS_PER_LOAD) {
    onProgress?.(i, ids.length);
    const some = ids.slice(i, i + RUNS_PER_LOAD);
    rescored.push(...(await rescoreRuns(db, orgId, some)));
    await refreshRunRows(db, orgId, some, days);
  }
  await refreshRecentPromptScores(db, orgId, rescored);
  await resumBlocks(db, orgId, days);
  await advanceGenerations(db, orgId, days);
  onProgress?.(ids.length, ids.length);
}
