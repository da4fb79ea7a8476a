import { sql } from 'kysely';
import { groupByPrompt, type PromptRunScore, scoreOf } from '../domain/scoring.ts';
import type { Db } from './connect.ts';

/**
 * Recomputes the stored per-prompt scores of one run from its responses. Called whenever a run's
 * responses are written or its status changes, so readers never rescan raw responses.
 */
export async function refreshRunPromptScores(db: Db, orgId: number, runId: number): Promise<void> {
  const run = await db
    .selectFrom('runs')
    .select(['id', 'brand_id', 'category_id', 'status', 'methodology', 'finished_at'])
    .where('org_id', '=', orgId)
    .where('id', '=', runId)
    .executeTakeFirst();
  await db.deleteFrom('run_prompt_scores').where('org_id', '=', orgId).where('run_id', '=', runId).execute();
  if (!run || run.status !== 'completed' || !run.finished_at) return;

  const rows = await db
    .selectFrom('responses')
    .select(['prompt_id', 'sample_count', 'mentioned', 'rank'])
    .where('org_id', '=', orgId)
    .where('run_id', '=', runId)
    .where('outcome', '=', 'ok')
    .where('has_mention_data', '=', 1)
    .execute();
  const byPrompt = new Map<number, { weight: number; mentioned: boolean; rank: number | null }[]>();
  for (const r of rows) {
    const list = byPrompt.get(r.prompt_id) ?? [];
    list.push({ weight: r.sample_count, mentioned: r.mentioned === 1, rank: r.rank });
    byPrompt.set(r.prompt_id, list);
  }
  const values = [];
  for (const [promptId, observations] of byPrompt) {
    const score = scoreOf(observations);
    if (score === null) continue;
    values.push({
      org_id: orgId,
      brand_id: run.brand_id,
      category_id: run.category_id,
      run_id: runId,
      prompt_id: promptId,
      methodology: run.methodology,
      scored_at: run.finished_at,
      score,
      weight_total: observations.reduce((sum, o) => sum + o.weight, 0),
    });
  }
  for (let i = 0; i < values.length; i += 200) {
    await db.insertInto('run_prompt_scores').values(values.slice(i, i + 200)).execute();
  }
}

/** Visible runs only: completed, and published or legacy. */
export const visibleRun = sql<boolean>`r.status = 'completed' and (r.is_legacy = 1 or r.published_at is not null)`;

/**
 * Per-prompt run scores of visible runs for the eligible prompts of a brand (or one category):
 * monitored, not archived, in a non-archived category.
 */
export async function eligiblePromptScores(
  db: Db,
  orgId: number,
  scope: { brandId: number; categoryId?: number },
): Promise<Map<number, PromptRunScore[]>> {
  let query = db
    .selectFrom('run_prompt_scores as s')
    .innerJoin('runs as r', 'r.id', 's.run_id')
    .innerJoin('prompts as p', 'p.id', 's.prompt_id')
    .innerJoin('categories as c', 'c.id', 'p.category_id')
    .select(['s.prompt_id as promptId', 's.run_id as runId', 's.scored_at as scoredAt', 's.score'])
    .where('s.org_id', '=', orgId)
    .where('r.org_id', '=', orgId)
    .where('s.brand_id', '=', scope.brandId)
    .where(visibleRun)
    .where('p.is_monitored', '=', 1)
    .where('p.is_archived', '=', 0)
    .where('c.is_archived', '=', 0);
  if (scope.categoryId !== undefined) query = query.where('s.category_id', '=', scope.categoryId);
  return groupByPrompt(await query.execute());
}
