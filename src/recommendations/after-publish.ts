import type { Db } from '../db/connect.ts';
import { type Generation, generateRecommendations } from './generate.ts';
import { type MeasuredOutcome, measureOutcomes } from './outcomes.ts';

// What follows a run's publication: the brand's recommendations are regenerated from the analytics
// that now include it, and the organization's due outcomes are measured. A failure here is logged
// and swallowed: the run is published and stays published whatever happens to its follow-up, and
// the next publication (or `sightline recommendations generate|measure`) catches up.

export interface FollowUpLog {
  info(fields: Record<string, unknown>, message: string): void;
  error(fields: Record<string, unknown>, message: string): void;
}

export async function afterRunPublished(
  db: Db,
  scope: { orgId: number; brandId: number; runId: number },
  at: Date,
  log: FollowUpLog,
): Promise<{ generation: Generation; measured: MeasuredOutcome[] } | null> {
  try {
    const generation = await generateRecommendations(db, scope, at);
    const measured = await measureOutcomes(db, { orgId: scope.orgId, at });
    log.info(
      {
        event: 'recommendations_generated',
        ...scope,
        created: generation.created.length,
        kept: generation.kept.length,
        superseded: generation.superseded.length,
        measured: measured.length,
      },
      `run ${scope.runId}: ${generation.created.length} new recommendation(s), ${generation.superseded.length} superseded, ${measured.length} outcome(s) measured`,
    );
    return { generation, measured };
  } catch (error) {
    log.error(
      {
        event: 'recommendations_failed',
        ...scope,
        error: error instanceof Error ? error.message : String(error),
      },
      `run ${scope.runId} is published, but its recommendations were not generated`,
    );
    return null;
  }
}

/** The follow-up a monitoring run calls once it has published itself (`AskDeps.afterPublish`). */
export function publicationFollowUp(db: Db, clock: () => Date, log: FollowUpLog) {
  return async (run: { orgId: number; brandId: number; runId: number }): Promise<void> => {
    await afterRunPublished(db, run, clock(), log);
  };
}
