import { refreshRunAggregates } from '../analytics/refresh.ts';
import type { Db } from '../db/connect.ts';
import {
  describeRun,
  findRunVisibility,
  insertRuns,
  lockedRunStates,
  monitoredPromptCounts,
  runAnswerSpans,
  setRunPublishedAt,
} from '../db/run-writes.ts';
import type { Methodology, RunStatus } from '../domain/answer-line.ts';
import type { ExistingRun } from './lookups.ts';

// The runs an import writes into: created on first sight, then described from their answers —
// started at the first capture, finished at the last (unless still running), and how many prompts
// they answered. Publishing makes a completed run visible to the API.

export interface RunPlan {
  orgId: number;
  externalId: string;
  brandId: number;
  categoryId: number;
  status: RunStatus;
  methodology: Methodology;
  existing: ExistingRun | undefined;
  /** The first line naming the run, for messages. */
  line: number;
}

const FINISHED = new Set(['completed', 'failed', 'cancelled']);
const CHUNK = 500;

function chunks<T>(items: readonly T[]): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < items.length; i += CHUNK) out.push(items.slice(i, i + CHUNK));
  return out;
}

/** Why a line cannot go into the run it names, or null when it can. */
export function runConflict(
  plan: RunPlan,
  line: { categoryId: number; status: RunStatus; methodology: Methodology },
): string | null {
  const existing = plan.existing;
  if (line.categoryId !== plan.categoryId) {
    return existing
      ? `run "${plan.externalId}" belongs to category ${plan.categoryId}, but this line's prompt is in category ${line.categoryId}`
      : `run "${plan.externalId}" mixes categories: line ${plan.line} is in category ${plan.categoryId}, this line in ${line.categoryId}`;
  }
  if (line.methodology !== plan.methodology) {
    return `run "${plan.externalId}" is ${plan.methodology}${existing ? '' : ` (line ${plan.line})`}; this line says ${line.methodology}`;
  }
  if (line.status !== plan.status) {
    return existing && FINISHED.has(existing.status)
      ? `run "${plan.externalId}" is already ${existing.status}; its lines must say runStatus "${existing.status}"`
      : `run "${plan.externalId}" has runStatus "${plan.status}" on line ${plan.line}; every line of a run must agree`;
  }
  return null;
}

/** Creates the runs that do not exist yet; returns every plan's run id. */
export async function createRuns(
  db: Db,
  plans: readonly RunPlan[],
  now: string,
): Promise<Map<RunPlan, number>> {
  const ids = new Map<RunPlan, number>();
  for (const plan of plans) if (plan.existing) ids.set(plan, plan.existing.id);
  for (const batch of chunks(plans.filter((p) => !p.existing))) {
    const rows = await insertRuns(
      db,
      batch.map((p) => ({
        org_id: p.orgId,
        brand_id: p.brandId,
        category_id: p.categoryId,
        external_id: p.externalId,
        status: p.status,
        methodology: p.methodology,
        is_legacy: p.methodology === 'legacy' ? 1 : 0,
        completed_prompts: 0,
        total_prompts: 0,
        created_at: now,
      })),
    );
    const byKey = new Map(rows.map((r) => [`${r.org_id}:${r.external_id}`, r.id]));
    for (const p of batch) ids.set(p, byKey.get(`${p.orgId}:${p.externalId}`) as number);
  }
  return ids;
}

/**
 * Whether a run among `plans` that existed at the check has since changed status or publication
 * (another import, a publish command or monitoring finished or published it meanwhile): writing
 * the check's plan over it would undo that, reopening a completed run. Read in the import's
 * transaction, locked until it ends.
 */
export async function runsChangedSinceCheck(db: Db, orgId: number, plans: readonly RunPlan[]) {
  for (const batch of chunks(plans.flatMap((p) => (p.existing ? [p.existing] : [])))) {
    const states = await lockedRunStates(
      db,
      orgId,
      batch.map((run) => run.id),
    );
    const now = new Map(states.map((r) => [r.id, r]));
    for (const run of batch) {
      const state = now.get(run.id);
      if (state?.status !== run.status || state?.publishedAt !== run.publishedAt) return true;
    }
  }
  return false;
}

/** Sets each run's status, times and prompt counts from the answers it now has. */
export async function describeRuns(
  db: Db,
  orgId: number,
  runs: ReadonlyArray<{ id: number; categoryId: number; status: RunStatus }>,
) {
  for (const batch of chunks(runs)) {
    const ids = batch.map((r) => r.id);
    const [spans, monitored] = await Promise.all([
      runAnswerSpans(db, orgId, ids),
      monitoredPromptCounts(db, orgId, [...new Set(batch.map((r) => r.categoryId))]),
    ]);
    const spanOf = new Map(spans.map((s) => [s.run_id, s]));
    const monitoredOf = new Map(monitored.map((m) => [m.category_id, Number(m.prompts)]));
    for (const run of batch) {
      const span = spanOf.get(run.id);
      const answered = Number(span?.prompts ?? 0);
      const running = run.status === 'running';
      await describeRun(db, orgId, run.id, {
        status: run.status,
        started_at: span?.first ?? null,
        finished_at: running ? null : (span?.last ?? null),
        completed_prompts: answered,
        // A run in flight still has the category's other monitored prompts to ask.
        total_prompts: running ? Math.max(answered, monitoredOf.get(run.categoryId) ?? 0) : answered,
      });
    }
  }
}

export interface PublishResult {
  id: number;
  brandId: number;
  externalId: string | null;
  status: string;
  publishedAt: string | null;
  changed: boolean;
}

export class PublishError extends Error {
  override name = 'PublishError';
}

/**
 * Publishes (at `at`) or unpublishes one run of an organization and refreshes the aggregates that
 * depend on visibility. Only a completed run can be published; a legacy run is always visible.
 */
export async function setRunPublished(
  db: Db,
  orgId: number,
  runId: number,
  at: string | null,
): Promise<PublishResult> {
  const run = await findRunVisibility(db, orgId, runId);
  if (!run) throw new PublishError(`run ${runId} does not exist in this organization`);
  if (at !== null && run.status !== 'completed') {
    throw new PublishError(`run ${runId} is ${run.status}; only a completed run can be published`);
  }
  if (run.is_legacy === 1) throw new PublishError(`run ${runId} is a legacy run, which is always visible`);
  const changed = at === null ? run.published_at !== null : run.published_at === null;
  const publishedAt = changed ? at : run.published_at;
  if (changed) {
    await setRunPublishedAt(db, orgId, runId, publishedAt);
    await refreshRunAggregates(db, orgId, [runId]);
  }
  return {
    id: run.id,
    brandId: run.brand_id,
    externalId: run.external_id,
    status: run.status,
    publishedAt,
    changed,
  };
}
