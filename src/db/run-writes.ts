import type { Insertable, Updateable } from 'kysely';
import type { Db } from './connect.ts';
import { isPostgres } from './migrations/column-types.ts';
import type { RunPromptsTable, RunsTable } from './types.ts';

// The writes an import and the publish commands make to runs, and the reads they decide from.

/**
 * The state of runs an import is about to describe, read in its transaction: on PostgreSQL their
 * rows locked until it commits (SQLite's write transaction holds the whole database already), so
 * what it compares with its check pass cannot change before its own write. `FOR NO KEY UPDATE`,
 * the lock its own update of the row takes: `FOR UPDATE` also waits on the key-share locks the
 * answers' foreign keys take, and two imports into one run deadlocked on each other's.
 */
export function lockedRunStates(db: Db, orgId: number, runIds: readonly number[]) {
  const query = db
    .selectFrom('runs')
    .select(['id', 'status', 'published_at as publishedAt'])
    .where('org_id', '=', orgId)
    .where('id', 'in', runIds);
  return (isPostgres(db) ? query.forNoKeyUpdate() : query).execute();
}

export function insertRuns(db: Db, rows: readonly Insertable<RunsTable>[]) {
  return db.insertInto('runs').values(rows).returning(['id', 'org_id', 'external_id']).execute();
}

/** Per run: its first and last capture and how many prompts it answered. */
export function runAnswerSpans(db: Db, orgId: number, runIds: readonly number[]) {
  return db
    .selectFrom('responses')
    .select((eb) => [
      'run_id',
      eb.fn.min('captured_at').as('first'),
      eb.fn.max('captured_at').as('last'),
      eb.fn.count<number>('prompt_id').distinct().as('prompts'),
    ])
    .where('org_id', '=', orgId)
    .where('run_id', 'in', runIds)
    .groupBy('run_id')
    .execute();
}

/** Per category: its monitored, non-archived prompts. */
export function monitoredPromptCounts(db: Db, orgId: number, categoryIds: readonly number[]) {
  return db
    .selectFrom('prompts')
    .select((eb) => ['category_id', eb.fn.countAll<number>().as('prompts')])
    .where('org_id', '=', orgId)
    .where('category_id', 'in', categoryIds)
    .where('is_monitored', '=', 1)
    .where('is_archived', '=', 0)
    .groupBy('category_id')
    .execute();
}

export async function describeRun(
  db: Db,
  orgId: number,
  runId: number,
  values: Pick<
    Updateable<RunsTable>,
    'status' | 'started_at' | 'finished_at' | 'completed_prompts' | 'total_prompts'
  >,
): Promise<void> {
  await db.updateTable('runs').set(values).where('org_id', '=', orgId).where('id', '=', runId).execute();
}

export function findRunVisibility(db: Db, orgId: number, runId: number) {
  return db
    .selectFrom('runs')
    .select(['id', 'brand_id', 'external_id', 'status', 'is_legacy', 'published_at'])
    .where('org_id', '=', orgId)
    .where('id', '=', runId)
    .executeTakeFirst();
}

export async function setRunPublishedAt(db: Db, orgId: number, runId: number, at: string | null) {
  await db
    .updateTable('runs')
    .set({ published_at: at })
    .where('org_id', '=', orgId)
    .where('id', '=', runId)
    .execute();
}

/** The organization a run belongs to, for operator commands given a bare run id. */
export async function findRunOrganization(db: Db, runId: number): Promise<number | undefined> {
  const row = await db.selectFrom('runs').select('org_id').where('id', '=', runId).executeTakeFirst();
  return row?.org_id;
}

/** A run of the organization by id or external id. */
export async function findRunId(db: Db, orgId: number, ref: number | string): Promise<number | undefined> {
  const query = db.selectFrom('runs').select('id').where('org_id', '=', orgId);
  const row = await (typeof ref === 'number'
    ? query.where('id', '=', ref)
    : query.where('external_id', '=', ref)
  ).executeTakeFirst();
  return row?.id;
}

/** An organization's runs with these external ids, as an import decides from them. */
export function runsByExternalId(db: Db, orgId: number, externalIds: readonly string[]) {
  return db
    .selectFrom('runs')
    .select([
      'id',
      'external_id as externalId',
      'brand_id as brandId',
      'category_id as categoryId',
      'status',
      'methodology',
      'is_legacy as isLegacy',
      'published_at as publishedAt',
    ])
    .where('org_id', '=', orgId)
    .where('external_id', 'in', externalIds.length > 0 ? externalIds : [''])
    .execute();
}

/** Publishes the runs among `runIds` that are not published yet. */
export async function publishRunsAt(db: Db, orgId: number, runIds: readonly number[], at: string) {
  if (runIds.length === 0) return;
  await db
    .updateTable('runs')
    .set({ published_at: at })
    .where('org_id', '=', orgId)
    .where('id', 'in', runIds)
    .where('published_at', 'is', null)
    .execute();
}

/** Records which prompts each run answered; pairs already there stay as they are. */
export async function insertRunPrompts(db: Db, pairs: readonly Insertable<RunPromptsTable>[]) {
  if (pairs.length === 0) return;
  await db
    .insertInto('run_prompts')
    .values(pairs)
    .onConflict((oc) => oc.columns(['run_id', 'prompt_id']).doNothing())
    .execute();
}
