import { sql } from 'kysely';
import {
  CURRENT_METHODOLOGY,
  exclusionOf,
  groupByPrompt,
  type Observation,
  type PromptRunScore,
  promptsWithCurrentData,
  scoreOf,
} from '../domain/scoring.ts';
import { refreshRunRollups } from './analytics-rollups.ts';
import type { Db } from './connect.ts';

/**
 * Recomputes the stored per-prompt scores of one run from its responses. A prompt's score in a run
 * follows the same rules as any other set of observations: its legacy answers count only when the
 * run has no usable current-methodology answer for it. Prefer refreshRunAggregates, which also
 * keeps the analytics aggregates in step.
 */
export async function refreshRunPromptScores(db: Db, orgId: number, runId: number): Promise<void> {
  const run = await db
    .selectFrom('runs')
    .select(['id', 'brand_id', 'category_id', 'status', 'finished_at'])
    .where('org_id', '=', orgId)
    .where('id', '=', runId)
    .executeTakeFirst();
  await db.deleteFrom('run_prompt_scores').where('org_id', '=', orgId).where('run_id', '=', runId).execute();
  if (run?.status !== 'completed' || !run.finished_at) return;

  const rows = await db
    .selectFrom('responses')
    .select(['prompt_id', 'outcome', 'methodology', 'has_mention_data', 'sample_count', 'mentioned', 'rank'])
    .where('org_id', '=', orgId)
    .where('run_id', '=', runId)
    .execute();
  const observations = rows.map((r) => ({
    promptId: r.prompt_id,
    outcome: r.outcome,
    methodology: r.methodology,
    hasMentionData: r.has_mention_data === 1,
    weight: r.sample_count,
    mentioned: r.mentioned === 1,
    rank: r.rank,
  }));
  const current = promptsWithCurrentData(observations);
  const byPrompt = new Map<number, Observation[]>();
  for (const o of observations) {
    if (exclusionOf(o, current.has(o.promptId)) !== null) continue;
    const list = byPrompt.get(o.promptId) ?? [];
    list.push(o);
    byPrompt.set(o.promptId, list);
  }
  const values = [];
  for (const [promptId, usable] of byPrompt) {
    const score = scoreOf(usable);
    if (score === null) continue;
    values.push({
      org_id: orgId,
      brand_id: run.brand_id,
      category_id: run.category_id,
      run_id: runId,
      prompt_id: promptId,
      // The methodology the score rests on: legacy only when it is a legacy fallback.
      methodology: current.has(promptId) ? CURRENT_METHODOLOGY : 'legacy',
      scored_at: run.finished_at,
      score,
      weight_total: usable.reduce((sum, o) => sum + o.weight, 0),
    });
  }
  for (let i = 0; i < values.length; i += 200) {
    await db
      .insertInto('run_prompt_scores')
      .values(values.slice(i, i + 200))
      .execute();
  }
}

/**
 * Brings everything derived from some runs' responses up to date: their per-prompt scores and
 * the analytics aggregates. The demo writer and the import call it after writing runs, publish and
 * unpublish after changing a run's visibility. Pass many runs at once when you can: they share the
 * work on the day blocks. Call it inside the writer's transaction when there is one.
 */
export async function refreshRunAggregates(
  db: Db,
  orgId: number,
  runIds: number | readonly number[],
): Promise<void> {
  const ids = typeof runIds === 'number' ? [runIds] : [...new Set(runIds)];
  if (ids.length === 0) return;
  for (const id of ids) await refreshRunPromptScores(db, orgId, id);
  await refreshRunRollups(db, orgId, ids);
}

/** Visible runs only: completed, and published or legacy. */
export const visibleRun = sql<boolean>`r.status = 'completed' and (r.is_legacy = 1 or r.published_at is not null)`;

/** 1 for a prompt's newest score (alias s), 2 for the one before, and so on. */
export const recencyPerPrompt = sql<number>`row_number() over (partition by s.prompt_id order by s.scored_at desc, s.run_id desc)`;

/** A prompt's score in one run, with the brand and category it was scored for. */
export interface ScopedPromptRunScore extends PromptRunScore {
  brandId: number;
  categoryId: number;
  /** The methodology the score rests on (scoring.ts `isLegacy`). */
  methodology: string;
}

/** A ScopedPromptRunScore, read from run_prompt_scores (alias s). */
const SCORE_COLUMNS = [
  's.prompt_id as promptId',
  's.run_id as runId',
  's.scored_at as scoredAt',
  's.score',
  's.brand_id as brandId',
  's.category_id as categoryId',
  's.methodology',
] as const;

/**
 * Per-prompt run scores of visible runs for the eligible prompts (monitored, not archived, in a
 * non-archived category) of several brands, or of some of their categories, in one query, so a
 * page of brands or categories costs one round trip rather than one per row.
 */
export async function eligiblePromptScoreRows(
  db: Db,
  orgId: number,
  scope: { brandIds: readonly number[]; categoryIds?: readonly number[] },
  options: { latestPerPrompt?: number; scoredFrom?: string; scoredBefore?: string } = {},
): Promise<ScopedPromptRunScore[]> {
  if (scope.brandIds.length === 0 || scope.categoryIds?.length === 0) return [];
  let query = db
    .selectFrom('run_prompt_scores as s')
    .innerJoin('runs as r', 'r.id', 's.run_id')
    .innerJoin('prompts as p', 'p.id', 's.prompt_id')
    .innerJoin('categories as c', 'c.id', 'p.category_id')
    .select(SCORE_COLUMNS)
    .where('s.org_id', '=', orgId)
    .where('r.org_id', '=', orgId)
    .where('s.brand_id', 'in', scope.brandIds)
    .where(visibleRun)
    .where('p.is_monitored', '=', 1)
    .where('p.is_archived', '=', 0)
    .where('c.is_archived', '=', 0);
  if (scope.categoryIds) query = query.where('s.category_id', 'in', scope.categoryIds);
  if (options.scoredFrom !== undefined) query = query.where('s.scored_at', '>=', options.scoredFrom);
  if (options.scoredBefore !== undefined) query = query.where('s.scored_at', '<', options.scoredBefore);
  if (options.latestPerPrompt === undefined) return query.execute();
  // Current and previous scores need only each prompt's newest runs, not its whole history.
  const ranked = query.select(recencyPerPrompt.as('recency'));
  return db
    .selectFrom(ranked.as('e'))
    .select(['e.promptId', 'e.runId', 'e.scoredAt', 'e.score', 'e.brandId', 'e.categoryId', 'e.methodology'])
    .where('e.recency', '<=', options.latestPerPrompt)
    .execute();
}

/** Per-prompt run scores of visible runs for the eligible prompts of a brand (or one category). */
export async function eligiblePromptScores(
  db: Db,
  orgId: number,
  scope: { brandId: number; categoryId?: number },
): Promise<Map<number, PromptRunScore[]>> {
  const categoryIds = scope.categoryId === undefined ? undefined : [scope.categoryId];
  return groupByPrompt(await eligiblePromptScoreRows(db, orgId, { brandIds: [scope.brandId], categoryIds }));
}

/** The eligible prompts (alias p, their category alias c) of a brand, or of some of its categories. */
export function eligiblePromptsOf(
  db: Db,
  orgId: number,
  scope: { brandId: number; categoryIds?: readonly number[] },
) {
  let query = db
    .selectFrom('prompts as p')
    .innerJoin('categories as c', 'c.id', 'p.category_id')
    .where('p.org_id', '=', orgId)
    .where('c.org_id', '=', orgId)
    .where('p.brand_id', '=', scope.brandId)
    .where('p.is_monitored', '=', 1)
    .where('p.is_archived', '=', 0)
    .where('c.is_archived', '=', 0);
  if (scope.categoryIds) query = query.where('p.category_id', 'in', scope.categoryIds);
  return query;
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
): Promise<ScopedPromptRunScore[]> {
  if (scope.categoryIds?.length === 0) return [];
  const latest = eligiblePromptsOf(db, orgId, scope).select((eb) => [
    'p.id as promptId',
    eb
      .selectFrom('run_prompt_scores as s')
      .innerJoin('runs as r', 'r.id', 's.run_id')
      .select('s.run_id')
      .where('s.org_id', '=', orgId)
      .where('s.brand_id', '=', scope.brandId)
      .whereRef('s.prompt_id', '=', 'p.id')
      .where('s.scored_at', '<=', at)
      .where(visibleRun)
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
    .select(SCORE_COLUMNS)
    .where('s.org_id', '=', orgId)
    .execute();
}

/** Per category, when the first visible scored run of its eligible prompts finished. */
export async function firstScoredAtByCategory(
  db: Db,
  orgId: number,
  scope: { brandId: number; categoryIds?: readonly number[] },
): Promise<Map<number, string>> {
  if (scope.categoryIds?.length === 0) return new Map();
  const firsts = eligiblePromptsOf(db, orgId, scope).select((eb) => [
    'p.category_id as categoryId',
    eb
      .selectFrom('run_prompt_scores as s')
      .innerJoin('runs as r', 'r.id', 's.run_id')
      .select('s.scored_at')
      .where('s.org_id', '=', orgId)
      .where('s.brand_id', '=', scope.brandId)
      .whereRef('s.prompt_id', '=', 'p.id')
      .where(visibleRun)
      .orderBy('s.scored_at')
      .limit(1)
      .as('first'),
  ]);
  const rows = await db
    .selectFrom(firsts.as('f'))
    .select((eb) => ['f.categoryId', eb.fn.min('f.first').as('first')])
    .groupBy('f.categoryId')
    .execute();
  const byCategory = new Map<number, string>();
  for (const row of rows) if (row.first !== null) byCategory.set(row.categoryId, row.first);
  return byCategory;
}
