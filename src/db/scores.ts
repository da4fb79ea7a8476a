import { type Insertable, sql } from 'kysely';
import type { SampledPromptScore } from '../domain/score-history.ts';
import type { Observation, ObservationStatus, PromptRunScore } from '../domain/scoring.ts';
import { insertRows } from './bulk-insert.ts';
import type { Db } from './connect.ts';
import { eligiblePrompt, eligiblePromptsOf, visibleRun } from './predicates.ts';
import { executeShaped } from './shaped.ts';
import type { RunPromptScoresTable } from './types.ts';

/** Some runs' headers, as scoring needs them. */
export function findRunsForScoring(db: Db, orgId: number, runIds: readonly number[]) {
  return db
    .selectFrom('runs')
    .select(['id', 'brand_id', 'category_id', 'status', 'finished_at'])
    .where('org_id', '=', orgId)
    .where('id', 'in', runIds)
    .execute();
}

/** A run's answers as scoring observations. */
export type RunObservation = Observation & ObservationStatus & { promptId: number };

/** A response's columns that decide its part in a score (a RunObservation). */
export const OBSERVATION_COLUMNS = [
  'prompt_id',
  'outcome',
  'methodology',
  'has_mention_data',
  'sample_count',
  'mentioned',
  'rank',
] as const;

/** Some runs' answers as scoring observations, by run. */
export async function runObservations(
  db: Db,
  orgId: number,
  runIds: readonly number[],
): Promise<Map<number, RunObservation[]>> {
  const byRun = new Map<number, RunObservation[]>();
  if (runIds.length === 0) return byRun;
  const rows = await db
    .selectFrom('responses')
    .select(['run_id', ...OBSERVATION_COLUMNS])
    .where('org_id', '=', orgId)
    .where('run_id', 'in', runIds)
    // The order a run's scores are summed in: its answers' as stored, whichever plan reads them.
    .orderBy('run_id')
    .orderBy('id')
    .execute();
  for (const r of rows) {
    const observation: RunObservation = {
      promptId: r.prompt_id,
      outcome: r.outcome,
      methodology: r.methodology,
      hasMentionData: r.has_mention_data === 1,
      weight: r.sample_count,
      mentioned: r.mentioned === 1,
      rank: r.rank,
    };
    const observations = byRun.get(r.run_id);
    if (observations) observations.push(observation);
    else byRun.set(r.run_id, [observation]);
  }
  return byRun;
}

/** A prompt, with the brand its scores are filed under. */
export interface ScoredPrompt {
  brandId: number;
  promptId: number;
}

/**
 * Replaces the stored per-prompt scores of some runs; returns the prompts they had or now have
 * scores for, whose recent scores (refreshRecentPromptScores) may have changed.
 */
export async function replaceRunPromptScores(
  db: Db,
  orgId: number,
  runIds: readonly number[],
  values: readonly Insertable<RunPromptScoresTable>[],
): Promise<ScoredPrompt[]> {
  const removed = await db
    .deleteFrom('run_prompt_scores')
    .where('org_id', '=', orgId)
    .where('run_id', 'in', runIds)
    .returning(['brand_id as brandId', 'prompt_id as promptId'])
    .execute();
  await insertRows(db, 'run_prompt_scores', values);
  return [...removed, ...values.map((v) => ({ brandId: v.brand_id, promptId: v.prompt_id }))];
}

/**
 * Rewrites the newest and previous visible score of some prompts (recent_prompt_scores) from their
 * stored run scores: per prompt, one backward index seek that stops after two visible runs.
 */
export async function refreshRecentPromptScores(
  db: Db,
  orgId: number,
  prompts: readonly ScoredPrompt[],
): Promise<void> {
  const brandOf = new Map(prompts.map((p) => [p.promptId, p.brandId]));
  if (brandOf.size === 0) return;
  const rows = [];
  for (const [promptId, brandId] of brandOf) {
    const latest = await db
      .selectFrom('run_prompt_scores as s')
      .innerJoin('runs as r', 'r.id', 's.run_id')
      .select(['s.brand_id', 's.category_id', 's.run_id', 's.methodology', 's.scored_at', 's.score'])
      .where('s.org_id', '=', orgId)
      .where('s.brand_id', '=', brandId)
      .where('s.prompt_id', '=', promptId)
      .where(visibleRun)
      .orderBy('s.scored_at', 'desc')
      .orderBy('s.run_id', 'desc')
      .limit(2)
      .execute();
    for (const [index, score] of latest.entries()) {
      rows.push({ org_id: orgId, prompt_id: promptId, recency: index + 1, ...score });
    }
  }
  const ids = [...brandOf.keys()];
  for (let i = 0; i < ids.length; i += 500) {
    await db
      .deleteFrom('recent_prompt_scores')
      .where('org_id', '=', orgId)
      .where('prompt_id', 'in', ids.slice(i, i + 500))
      .execute();
  }
  for (let i = 0; i < rows.length; i += 100) {
    await db
      .insertInto('recent_prompt_scores')
      .values(rows.slice(i, i + 100))
      .execute();
  }
}

/** A prompt's score in one run, with the brand and category it was scored for. */
export interface ScopedPromptRunScore extends PromptRunScore {
  brandId: number;
  categoryId: number;
  /** The methodology the score rests on (scoring.ts `isLegacy`). */
  methodology: string;
}

/** A ScopedPromptRunScore, read from run_prompt_scores or recent_prompt_scores (alias s). */
const SCORE_COLUMNS = [
  's.prompt_id as promptId',
  's.run_id as runId',
  's.scored_at as scoredAt',
  's.score',
  's.brand_id as brandId',
  's.category_id as categoryId',
  's.methodology',
] as const;

/** A prompt's score in one run with the samples it rests on, as a score history reads it. */
export type SampledPromptRunScore = ScopedPromptRunScore & SampledPromptScore;

/** A SampledPromptRunScore, read from run_prompt_scores (alias s). */
const SAMPLED_SCORE_COLUMNS = [...SCORE_COLUMNS, 's.weight_total as samples'] as const;

/**
 * Per-prompt run scores of visible runs for the eligible prompts (monitored, not archived, in a
 * non-archived category) of several brands, or of some of their categories, in one query, so a
 * page of brands or categories costs one round trip rather than one per row.
 */
export async function eligiblePromptScoreRows(
  db: Db,
  orgId: number,
  scope: { brandIds: readonly number[]; categoryIds?: readonly number[] },
  options: { scoredFrom?: string; scoredBefore?: string } = {},
): Promise<SampledPromptRunScore[]> {
  if (scope.brandIds.length === 0 || scope.categoryIds?.length === 0) return [];
  const input = { orgId, scope, options };
  const { rows } = await executeShaped(db, 'eligiblePromptScoreRows', input, ({ orgId, scope, options }) => {
    let query = db
      .selectFrom('run_prompt_scores as s')
      .innerJoin('runs as r', 'r.id', 's.run_id')
      .innerJoin('prompts as p', 'p.id', 's.prompt_id')
      .innerJoin('categories as c', 'c.id', 'p.category_id')
      .select(SAMPLED_SCORE_COLUMNS)
      .where('s.org_id', '=', orgId)
      .where('r.org_id', '=', orgId)
      .where('s.brand_id', 'in', scope.brandIds)
      // Named prompt by prompt, so that the index (org, brand, prompt, scored_at) seeks each prompt's
      // time range: without it a window's scores were found by reading every score of the brand
      // (18 ms for the last days of a three-year brand, ~96,000 scores).
      .where('s.prompt_id', 'in', (eb) =>
        eb
          .selectFrom('prompts')
          .select('id')
          .where('org_id', '=', orgId)
          .where('brand_id', 'in', scope.brandIds),
      )
      .where(visibleRun)
      .where(eligiblePrompt);
    if (scope.categoryIds) query = query.where('s.category_id', 'in', scope.categoryIds);
    if (options.scoredFrom !== undefined) query = query.where('s.scored_at', '>=', options.scoredFrom);
    if (options.scoredBefore !== undefined) query = query.where('s.scored_at', '<', options.scoredBefore);
    return query;
  });
  return rows;
}

/**
 * The newest and previous visible score of each eligible prompt of several brands, or of some of
 * their categories: all that a current and previous score read, two rows per prompt at most
 * however long its history (kept by refreshRecentPromptScores).
 */
export async function recentEligibleScoreRows(
  db: Db,
  orgId: number,
  scope: { brandIds: readonly number[]; categoryIds?: readonly number[] },
): Promise<ScopedPromptRunScore[]> {
  if (scope.brandIds.length === 0 || scope.categoryIds?.length === 0) return [];
  let query = db
    .selectFrom('recent_prompt_scores as s')
    .innerJoin('prompts as p', 'p.id', 's.prompt_id')
    .innerJoin('categories as c', 'c.id', 'p.category_id')
    .select(SCORE_COLUMNS)
    .where('s.org_id', '=', orgId)
    .where('s.brand_id', 'in', scope.brandIds)
    .where(eligiblePrompt);
  if (scope.categoryIds) query = query.where('s.category_id', 'in', scope.categoryIds);
  return query.orderBy('s.prompt_id').orderBy('s.recency').execute();
}

/** The newest and previous visible score of some prompts of a brand, whatever their eligibility. */
export async function recentScoresOfPrompts(
  db: Db,
  orgId: number,
  brandId: number,
  promptIds: readonly number[],
): Promise<PromptRunScore[]> {
  if (promptIds.length === 0) return [];
  return db
    .selectFrom('recent_prompt_scores as s')
    .select(['s.prompt_id as promptId', 's.run_id as runId', 's.scored_at as scoredAt', 's.score'])
    .where('s.org_id', '=', orgId)
    .where('s.brand_id', '=', brandId)
    .where('s.prompt_id', 'in', promptIds)
    .orderBy('s.prompt_id')
    .orderBy('s.recency')
    .execute();
}

/** The visible scores of a brand's prompt `p` (the outer query's alias): a correlated subquery. */
function visibleScoresOfPrompt(db: Db, orgId: number, brandId: number) {
  return db
    .selectFrom('run_prompt_scores as s')
    .innerJoin('runs as r', 'r.id', 's.run_id')
    .where('s.org_id', '=', orgId)
    .where('s.brand_id', '=', brandId)
    .where('s.prompt_id', '=', sql.ref<number>('p.id'))
    .where(visibleRun);
}

/**
 * Each eligible prompt's latest visible score at or before a moment: the state a score history
 * starts from. One backward index seek per prompt, however long the history before it.
 */
export async function latestScoresAt(
  db: Db,
  orgId: number,
  scope: { brandId: number; categoryIds?: readonly number[] },
  at: string,
): Promise<SampledPromptRunScore[]> {
  if (scope.categoryIds?.length === 0) return [];
  const { rows } = await executeShaped(db, 'latestScoresAt', { orgId, scope, at }, ({ orgId, scope, at }) => {
    const latest = eligiblePromptsOf(db, orgId, scope).select([
      'p.id as promptId',
      visibleScoresOfPrompt(db, orgId, scope.brandId)
        .select('s.run_id')
        .where('s.scored_at', '<=', at)
        .orderBy('s.scored_at', 'desc')
        .orderBy('s.run_id', 'desc')
        .limit(1)
        .as('runId'),
    ]);
    return db
      .selectFrom(latest.as('l'))
      .innerJoin('run_prompt_scores as s', (join) =>
        join.onRef('s.prompt_id', '=', 'l.promptId').onRef('s.run_id', '=', 'l.runId'),
      )
      .select(SAMPLED_SCORE_COLUMNS)
      .where('s.org_id', '=', orgId);
  });
  return rows;
}

/** Per category, when the first visible scored run of its eligible prompts finished. */
export async function firstScoredAtByCategory(
  db: Db,
  orgId: number,
  scope: { brandId: number; categoryIds?: readonly number[] },
): Promise<Map<number, string>> {
  if (scope.categoryIds?.length === 0) return new Map();
  const { rows } = await executeShaped(
    db,
    'firstScoredAtByCategory',
    { orgId, scope },
    ({ orgId, scope }) => {
      const firsts = eligiblePromptsOf(db, orgId, scope).select([
        'p.category_id as categoryId',
        visibleScoresOfPrompt(db, orgId, scope.brandId)
          .select('s.scored_at')
          .orderBy('s.scored_at')
          .limit(1)
          .as('first'),
      ]);
      return db
        .selectFrom(firsts.as('f'))
        .select((eb) => ['f.categoryId', eb.fn.min('f.first').as('first')])
        .groupBy('f.categoryId');
    },
  );
  const byCategory = new Map<number, string>();
  for (const row of rows) if (row.first !== null) byCategory.set(row.categoryId, row.first);
  return byCategory;
}
