import type { Db } from '../db/connect.ts';
import { abortAbandoned } from '../db/report-artifacts.ts';

// What the report generator writes its artifacts as, and the sweep of those a killed generation
// left behind. Apart from generate.ts so that `sightline serve`, which sweeps, does not load the
// renderers.

export const AGENT_NAME = 'sightline-reports';

/**
 * A report takes seconds; one of this generator's still queued or running this long after its
 * creation was left by a process that stopped without finishing it.
 */
export const ABANDONED_AFTER_MS = 15 * 60_000;
export const ABANDONED_REASON = 'The generating process stopped before the report was finished.';

/**
 * Aborts the artifacts a generation killed outright left queued or running (this generator's,
 * older than ABANDONED_AFTER_MS), of one organization or of all: each generation sweeps its
 * organization's before queuing, and `sightline serve` all of them every minute. Returns how many.
 */
export function abortAbandonedReports(db: Db, now: Date, orgId?: number): Promise<number> {
  return abortAbandoned(
    db,
    {
      orgId,
      agentName: AGENT_NAME,
      createdBefore: new Date(now.getTime() - ABANDONED_AFTER_MS).toISOString(),
    },
    { completedAt: now.toISOString(), reason: ABANDONED_REASON },
  );
}
