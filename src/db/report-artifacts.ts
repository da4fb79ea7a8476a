import type { Db } from './connect.ts';

// The report_artifacts writes of generation: each status change is one guarded UPDATE, so an
// artifact only moves forward (queued → running → complete, failed or aborted) and never skips a
// step.
// Every statement is scoped by organization.

export interface NewArtifact {
  brandId: number;
  categoryId: number | null;
  reportType: string;
  format: 'pdf' | 'html';
  userId: number | null;
  isBranded: boolean;
  agentName: string;
  agentVersion: string;
  costUsd: string;
  createdAt: string;
}

export async function createQueuedArtifact(db: Db, orgId: number, artifact: NewArtifact): Promise<number> {
  const row = await db
    .insertInto('report_artifacts')
    .values({
      org_id: orgId,
      brand_id: artifact.brandId,
      category_id: artifact.categoryId,
      report_type: artifact.reportType,
      status: 'queued',
      format: artifact.format,
      created_at: artifact.createdAt,
      completed_at: null,
      error_message: '',
      agent_name: artifact.agentName,
      agent_version: artifact.agentVersion,
      cost_usd: artifact.costUsd,
      kg_generation_job: '',
      evidence_refs_count: 0,
      is_branded: artifact.isBranded ? 1 : 0,
      aborted_reason: '',
      generated_by_user_id: artifact.userId,
    })
    .returning('id')
    .executeTakeFirstOrThrow();
  return row.id;
}

async function advance(
  db: Db,
  orgId: number,
  artifactId: number,
  from: string,
  values: {
    status: string;
    completed_at?: string;
    error_message?: string;
    evidence_refs_count?: number;
    aborted_reason?: string;
  },
): Promise<void> {
  const result = await db
    .updateTable('report_artifacts')
    .set(values)
    .where('org_id', '=', orgId)
    .where('id', '=', artifactId)
    .where('status', '=', from)
    .executeTakeFirst();
  if (Number(result.numUpdatedRows) !== 1) {
    throw new Error(`Report ${artifactId} is no longer ${from}; it cannot become ${values.status}.`);
  }
}

export function markRunning(db: Db, orgId: number, artifactId: number): Promise<void> {
  return advance(db, orgId, artifactId, 'queued', { status: 'running' });
}

export function markComplete(
  db: Db,
  orgId: number,
  artifactId: number,
  done: { completedAt: string; evidenceRefsCount: number },
): Promise<void> {
  return advance(db, orgId, artifactId, 'running', {
    status: 'complete',
    completed_at: done.completedAt,
    evidence_refs_count: done.evidenceRefsCount,
  });
}

/** A failed report keeps when it stopped (completedAt) and why (errorMessage). */
export function markFailed(
  db: Db,
  orgId: number,
  artifactId: number,
  failure: { completedAt: string; message: string },
): Promise<void> {
  return advance(db, orgId, artifactId, 'running', {
    status: 'failed',
    completed_at: failure.completedAt,
    error_message: failure.message,
  });
}

/** An interrupted report keeps when it stopped (completedAt) and why (abortedReason). */
export function markAborted(
  db: Db,
  orgId: number,
  artifactId: number,
  stop: { completedAt: string; reason: string },
): Promise<void> {
  return advance(db, orgId, artifactId, 'running', {
    status: 'aborted',
    completed_at: stop.completedAt,
    aborted_reason: stop.reason,
  });
}

/**
 * Aborts the artifacts of this generator (of one organization, or of all) still queued or running
 * though created before `createdBefore`: the process that made them stopped without saying so
 * (killed, or its machine gone). Returns how many it aborted. Looks before it writes: the service
 * sweeps every minute, and a write would take SQLite's write lock (busy during an import) even
 * when nothing is left behind.
 */
export async function abortAbandoned(
  db: Db,
  abandoned: { orgId?: number; agentName: string; createdBefore: string },
  stop: { completedAt: string; reason: string },
): Promise<number> {
  const unfinished = ['queued', 'running'];
  let left = db
    .selectFrom('report_artifacts')
    .select('id')
    .where('agent_name', '=', abandoned.agentName)
    .where('status', 'in', unfinished)
    .where('created_at', '<', abandoned.createdBefore);
  if (abandoned.orgId !== undefined) left = left.where('org_id', '=', abandoned.orgId);
  const ids = (await left.execute()).map((row) => row.id);
  if (ids.length === 0) return 0;
  let update = db
    .updateTable('report_artifacts')
    .set({ status: 'aborted', completed_at: stop.completedAt, aborted_reason: stop.reason })
    .where('id', 'in', ids)
    .where('status', 'in', unfinished);
  if (abandoned.orgId !== undefined) update = update.where('org_id', '=', abandoned.orgId);
  const [result] = await update.execute();
  return Number(result?.numUpdatedRows ?? 0);
}
