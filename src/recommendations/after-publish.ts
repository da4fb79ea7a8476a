import type { Db } from '../db/connect.ts';
import type { MonitorLog } from '../monitoring/asks.ts';
import type { Engine } from '../monitoring/engines/index.ts';
import { DraftInterrupted, type DraftOutcome, draftGeneration } from './artifacts.ts';
import { type Generation, generateRecommendations } from './generate.ts';
import { type MeasuredOutcome, measureOutcomes } from './outcomes.ts';

// What follows a run's publication: the brand's recommendations are regenerated from the analytics
// that now include it, the new ones' artifacts drafted (by the drafting engine, or from the
// template when there is none), and the organization's due outcomes are measured. A failure here
// is logged and swallowed: the run is published and stays published whatever happens to its
// follow-up, and the next publication (or `sightline recommendations generate|draft|measure`)
// catches up.

export async function afterRunPublished(
  db: Db,
  scope: { orgId: number; brandId: number; runId: number },
  at: Date,
  drafter: Engine | null,
  log: MonitorLog,
  signal?: AbortSignal,
): Promise<{ generation: Generation; drafted: DraftOutcome[]; measured: MeasuredOutcome[] } | null> {
  try {
    const generation = await generateRecommendations(db, scope, at);
    const drafted = await draftGeneration(db, scope.orgId, generation, drafter, at, { log, signal });
    const measured = await measureOutcomes(db, { orgId: scope.orgId, at });
    log.info(
      {
        event: 'recommendations_generated',
        ...scope,
        created: generation.created.length,
        kept: generation.kept.length,
        superseded: generation.superseded.length,
        drafted: drafted.length,
        measured: measured.length,
      },
      `run ${scope.runId}: ${generation.created.length} new recommendation(s), ${generation.superseded.length} superseded, ${drafted.length} artifact(s) drafted, ${measured.length} outcome(s) measured`,
    );
    return { generation, drafted, measured };
  } catch (error) {
    // Stopped by its caller (Ctrl-C): not a failure to log, the caller says it.
    if (error instanceof DraftInterrupted) throw error;
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
export function publicationFollowUp(db: Db, clock: () => Date, drafter: Engine | null, log: MonitorLog) {
  return async (run: { orgId: number; brandId: number; runId: number }): Promise<void> => {
    await afterRunPublished(db, run, clock(), drafter, log);
  };
}
