import type { ObservationGroup } from '../domain/analytics.ts';
import type { Db } from './connect.ts';
import { visibleRun } from './predicates.ts';

// The inputs of a prompt's change feed: its latest two visible scored runs, each with the
// prompt's stored per-run aggregates (never the raw answers).

export interface ScoredRun {
  runId: number;
  observations: (ObservationGroup & { promptId: number })[];
  /** Competitors mentioned in the run's candidate-usable answers, with the answers' methodology. */
  competitors: { name: string; methodology: string }[];
}

export async function latestScoredRuns(db: Db, orgId: number, promptId: number): Promise<ScoredRun[]> {
  const runs = await db
    .selectFrom('run_prompt_scores as s')
    .innerJoin('runs as r', 'r.id', 's.run_id')
    .select('s.run_id')
    .where('s.org_id', '=', orgId)
    .where('r.org_id', '=', orgId)
    .where('s.prompt_id', '=', promptId)
    .where(visibleRun)
    .orderBy('s.scored_at', 'desc')
    .orderBy('s.run_id', 'desc')
    .limit(2)
    .execute();
  const runIds = runs.map((r) => r.run_id);
  if (runIds.length === 0) return [];
  const [observations, competitors] = await Promise.all([
    db
      .selectFrom('agg_run_observations')
      .selectAll()
      .where('org_id', '=', orgId)
      .where('prompt_id', '=', promptId)
      .where('run_id', 'in', runIds)
      .execute(),
    db
      .selectFrom('agg_run_mentions as m')
      .innerJoin('competitors as c', 'c.id', 'm.competitor_id')
      .select(['m.run_id', 'm.methodology', 'c.name'])
      .where('m.org_id', '=', orgId)
      .where('c.org_id', '=', orgId)
      .where('m.prompt_id', '=', promptId)
      .where('m.run_id', 'in', runIds)
      .where('m.mentions', '>', 0)
      .execute(),
  ]);
  return runIds.map((runId) => ({
    runId,
    observations: observations
      .filter((o) => o.run_id === runId)
      .map((o) => ({
        promptId: o.prompt_id,
        model: o.model,
        modelLabel: o.model_label,
        surface: o.surface,
        methodology: o.methodology,
        outcome: o.outcome,
        hasMentionData: o.has_mention_data === 1,
        answers: o.answers,
        weight: o.weight,
        mentionedWeight: o.mentioned_weight,
        rankedWeight: o.ranked_weight,
        rankWeighted: o.rank_weighted,
        valueWeighted: o.value_weighted,
        positiveWeight: o.positive_weight,
        neutralWeight: o.neutral_weight,
        negativeWeight: o.negative_weight,
      })),
    competitors: competitors
      .filter((c) => c.run_id === runId)
      .map((c) => ({ name: c.name, methodology: c.methodology })),
  }));
}
