import { type Insertable, sql } from 'kysely';
import type { Db } from './connect.ts';
import { isPostgres } from './migrations/column-types.ts';
import { eligiblePromptsOf } from './predicates.ts';
import { inTransaction } from './transaction.ts';
import type { RunAsksTable } from './types.ts';

// The monitoring engine's reads and writes: brand schedules, organization budgets, monitoring
// runs and their planned asks. Every claim is one conditional statement, so on either database
// two workers can never both hold the same ask, the same schedule slot or the budget's last ask.

export interface BrandMonitoring {
  orgId: number;
  brandId: number;
  brandName: string;
  cadence: string;
  time: string | null;
  weekday: string | null;
  engines: string[];
  samples: number;
  nextRunAt: string | null;
  timezone: string;
}

export interface OrgMonitoring {
  orgId: number;
  slug: string;
  timezone: string;
  monthlyAskBudget: number | null;
  reviewBeforePublish: boolean;
}

function brandMonitoringRows(db: Db) {
  return db
    .selectFrom('brands as b')
    .innerJoin('organizations as o', 'o.id', 'b.org_id')
    .select([
      'b.org_id',
      'b.id',
      'b.name',
      'b.monitoring_cadence',
      'b.monitoring_time',
      'b.monitoring_weekday',
      'b.monitoring_engines',
      'b.monitoring_samples',
      'b.next_monitored_run_at',
      'o.timezone',
    ]);
}

type BrandMonitoringRow = Awaited<
  ReturnType<ReturnType<typeof brandMonitoringRows>['executeTakeFirstOrThrow']>
>;

function toBrandMonitoring(row: BrandMonitoringRow): BrandMonitoring {
  const engines: unknown = JSON.parse(row.monitoring_engines);
  return {
    orgId: row.org_id,
    brandId: row.id,
    brandName: row.name,
    cadence: row.monitoring_cadence,
    time: row.monitoring_time,
    weekday: row.monitoring_weekday,
    engines: Array.isArray(engines) ? engines.filter((e): e is string => typeof e === 'string') : [],
    samples: row.monitoring_samples,
    nextRunAt: row.next_monitored_run_at,
    timezone: row.timezone,
  };
}

export async function findBrandMonitoring(
  db: Db,
  orgId: number,
  brandId: number,
): Promise<BrandMonitoring | undefined> {
  const row = await brandMonitoringRows(db)
    .where('b.org_id', '=', orgId)
    .where('b.id', '=', brandId)
    .executeTakeFirst();
  return row && toBrandMonitoring(row);
}

/** Every brand of the organization with its monitoring settings, by id. */
export async function listBrandMonitoring(db: Db, orgId: number): Promise<BrandMonitoring[]> {
  const rows = await brandMonitoringRows(db).where('b.org_id', '=', orgId).orderBy('b.id').execute();
  return rows.map(toBrandMonitoring);
}

export async function setBrandMonitoring(
  db: Db,
  orgId: number,
  brandId: number,
  values: {
    cadence: string;
    time: string | null;
    weekday: string | null;
    engines: string[];
    samples: number;
    nextRunAt: string | null;
  },
): Promise<void> {
  await db
    .updateTable('brands')
    .set({
      monitoring_cadence: values.cadence,
      monitoring_time: values.time,
      monitoring_weekday: values.weekday,
      monitoring_engines: JSON.stringify(values.engines),
      monitoring_samples: values.samples,
      next_monitored_run_at: values.nextRunAt,
    })
    .where('org_id', '=', orgId)
    .where('id', '=', brandId)
    .execute();
}

/**
 * Active brands whose next run is due, across organizations (the worker serves them all), oldest
 * slot first; `after` pages on from the last brand of the page before.
 */
export async function dueBrands(
  db: Db,
  now: string,
  limit: number,
  after?: { nextRunAt: string; brandId: number },
): Promise<BrandMonitoring[]> {
  let query = brandMonitoringRows(db)
    .where('b.monitoring_cadence', '!=', 'off')
    .where('b.status', '=', 'active')
    .where('b.next_monitored_run_at', '<=', now);
  if (after) {
    query = query.where((eb) =>
      eb.or([
        eb('b.next_monitored_run_at', '>', after.nextRunAt),
        eb.and([eb('b.next_monitored_run_at', '=', after.nextRunAt), eb('b.id', '>', after.brandId)]),
      ]),
    );
  }
  const rows = await query.orderBy('b.next_monitored_run_at').orderBy('b.id').limit(limit).execute();
  return rows.map(toBrandMonitoring);
}

/**
 * Moves a brand's schedule from the slot it was due at to the next one; false when another
 * worker moved it first (that worker plans the runs).
 */
export async function claimScheduleSlot(
  db: Db,
  brand: Pick<BrandMonitoring, 'orgId' | 'brandId'>,
  due: string,
  next: string | null,
): Promise<boolean> {
  const result = await db
    .updateTable('brands')
    .set({ next_monitored_run_at: next })
    .where('org_id', '=', brand.orgId)
    .where('id', '=', brand.brandId)
    .where('next_monitored_run_at', '=', due)
    .executeTakeFirst();
  return result.numUpdatedRows > 0n;
}

export async function findOrgMonitoring(db: Db, orgId: number): Promise<OrgMonitoring | undefined> {
  const row = await db
    .selectFrom('organizations')
    .select(['id', 'slug', 'timezone', 'monthly_ask_budget', 'review_before_publish'])
    .where('id', '=', orgId)
    .executeTakeFirst();
  return (
    row && {
      orgId: row.id,
      slug: row.slug,
      timezone: row.timezone,
      monthlyAskBudget: row.monthly_ask_budget === null ? null : Number(row.monthly_ask_budget),
      reviewBeforePublish: row.review_before_publish === 1,
    }
  );
}

export async function setOrgMonitoring(
  db: Db,
  orgId: number,
  values: { monthlyAskBudget?: number | null; reviewBeforePublish?: boolean },
): Promise<void> {
  await db
    .updateTable('organizations')
    .set({
      ...(values.monthlyAskBudget !== undefined ? { monthly_ask_budget: values.monthlyAskBudget } : {}),
      ...(values.reviewBeforePublish !== undefined
        ? { review_before_publish: values.reviewBeforePublish ? 1 : 0 }
        : {}),
    })
    .where('id', '=', orgId)
    .execute();
}

export async function askUsage(db: Db, orgId: number, month: string): Promise<number> {
  const row = await db
    .selectFrom('org_ask_usage')
    .select('asks')
    .where('org_id', '=', orgId)
    .where('month', '=', month)
    .executeTakeFirst();
  return Number(row?.asks ?? 0);
}

/**
 * Whether the organization's month has no ask left. Read before waiting for a turn at an engine:
 * an ask whose count would be refused need not wait for the engine's windows first.
 */
export async function budgetSpent(
  db: Db,
  org: Pick<OrgMonitoring, 'orgId' | 'monthlyAskBudget'>,
  month: string,
): Promise<boolean> {
  return org.monthlyAskBudget !== null && (await askUsage(db, org.orgId, month)) >= org.monthlyAskBudget;
}

/** The brand's live categories that have eligible prompts, with their prompts in id order. */
export async function eligiblePrompts(
  db: Db,
  orgId: number,
  brandId: number,
  categoryIds?: readonly number[],
): Promise<Array<{ id: number; categoryId: number; text: string }>> {
  return eligiblePromptsOf(db, orgId, { brandId, categoryIds })
    .select(['p.id', 'p.category_id as categoryId', 'p.text'])
    .orderBy('p.category_id')
    .orderBy('p.id')
    .execute();
}

export interface MonitorRun {
  id: number;
  orgId: number;
  brandId: number;
  categoryId: number;
  status: string;
  statusReason: string | null;
  totalPrompts: number;
  completedPrompts: number;
}

function monitorRuns(db: Db) {
  return db
    .selectFrom('runs')
    .select([
      'id',
      'org_id as orgId',
      'brand_id as brandId',
      'category_id as categoryId',
      'status',
      'status_reason as statusReason',
      'total_prompts as totalPrompts',
      'completed_prompts as completedPrompts',
    ])
    .where('source', '=', 'monitor');
}

export function findMonitorRun(db: Db, runId: number): Promise<MonitorRun | undefined> {
  return monitorRuns(db).where('id', '=', runId).executeTakeFirst();
}

/** The category's monitoring run in flight, if any (there is at most one: runs_one_monitoring_run). */
export function findRunningMonitorRun(
  db: Db,
  orgId: number,
  categoryId: number,
): Promise<MonitorRun | undefined> {
  return monitorRuns(db)
    .where('org_id', '=', orgId)
    .where('category_id', '=', categoryId)
    .where('status', '=', 'running')
    .executeTakeFirst();
}

/** Every monitoring run in flight, oldest first: what the worker resumes. */
export function runningMonitorRuns(db: Db): Promise<MonitorRun[]> {
  return monitorRuns(db).where('status', '=', 'running').orderBy('id').execute();
}

/**
 * Creates a running monitoring run; undefined when the category already has one (another planner
 * got there first: the caller resumes that one).
 */
export async function insertMonitorRun(
  db: Db,
  values: { orgId: number; brandId: number; categoryId: number; totalPrompts: number; now: string },
): Promise<number | undefined> {
  const row = await db
    .insertInto('runs')
    .values({
      org_id: values.orgId,
      brand_id: values.brandId,
      category_id: values.categoryId,
      external_id: null,
      status: 'running',
      methodology: 'sample_v1',
      is_legacy: 0,
      source: 'monitor',
      started_at: values.now,
      completed_prompts: 0,
      total_prompts: values.totalPrompts,
      created_at: values.now,
    })
    // The partial index's own predicate, as literals: SQLite matches it to the index textually.
    .onConflict((oc) =>
      oc.column('category_id').where(sql<boolean>`source = 'monitor' and status = 'running'`).doNothing(),
    )
    .returning('id')
    .executeTakeFirst();
  return row?.id;
}

export async function insertPlannedAsks(db: Db, rows: readonly Insertable<RunAsksTable>[]): Promise<void> {
  // 7 columns a row: 500 rows stay under both databases' parameter limits.
  for (let i = 0; i < rows.length; i += 500) {
    await db
      .insertInto('run_asks')
      .values(rows.slice(i, i + 500))
      .onConflict((oc) => oc.columns(['run_id', 'prompt_id', 'engine', 'sample']).doNothing())
      .execute();
  }
}

/**
 * Asks of running runs (all, or the ones given) that nobody holds: never claimed, or claimed
 * under a lease that ran out.
 */
export async function claimableAskIds(
  db: Db,
  scope: { runIds?: readonly number[]; engines: readonly string[] },
  now: string,
  limit: number,
): Promise<number[]> {
  if (scope.engines.length === 0) return [];
  let query = db
    .selectFrom('run_asks as a')
    .innerJoin('runs as r', 'r.id', 'a.run_id')
    .innerJoin('brands as b', 'b.id', 'r.brand_id')
    .select('a.id')
    .where('r.status', '=', 'running')
    // Only active brands are asked: a paused brand's unfinished run waits until it is active again.
    .where('b.status', '=', 'active')
    .where('a.engine', 'in', scope.engines);
  if (scope.runIds) query = query.where('a.run_id', 'in', scope.runIds.length > 0 ? scope.runIds : [0]);
  const rows = await query
    .where((eb) =>
      eb.or([
        eb('a.state', '=', 'pending'),
        eb.and([eb('a.state', '=', 'asking'), eb('a.lease_expires_at', '<', now)]),
      ]),
    )
    .orderBy('a.id')
    .limit(limit)
    .execute();
  return rows.map((r) => r.id);
}

export interface PlannedAsk {
  id: number;
  orgId: number;
  runId: number;
  brandId: number;
  categoryId: number;
  promptId: number;
  promptText: string;
  engine: string;
  sample: number;
}

export function findPlannedAsk(db: Db, askId: number): Promise<PlannedAsk | undefined> {
  return db
    .selectFrom('run_asks as a')
    .innerJoin('runs as r', 'r.id', 'a.run_id')
    .innerJoin('prompts as p', 'p.id', 'a.prompt_id')
    .select([
      'a.id',
      'a.org_id as orgId',
      'a.run_id as runId',
      'r.brand_id as brandId',
      'r.category_id as categoryId',
      'a.prompt_id as promptId',
      'p.text as promptText',
      'a.engine',
      'a.sample',
    ])
    .where('a.id', '=', askId)
    .whereRef('p.org_id', '=', 'a.org_id')
    .executeTakeFirst();
}

export class BudgetReached extends Error {
  override name = 'BudgetReached';
}

/**
 * Takes an ask for `owner` until `leaseUntil`, and counts it against the organization's month:
 * 'claimed'; 'taken' when it is done or another worker holds it; 'budget' when the month's budget
 * is spent (then nothing changes); 'exhausted' when it was already taken `maxAttempts` times
 * without its answer being stored: taken, but not counted, since it is not to be sent again.
 */
export async function claimAsk(
  db: Db,
  ask: { id: number; orgId: number },
  claim: {
    owner: string;
    now: string;
    leaseUntil: string;
    month: string;
    budget: number | null;
    maxAttempts: number;
  },
): Promise<'claimed' | 'exhausted' | 'taken' | 'budget'> {
  try {
    return await inTransaction(db, async (trx) => {
      const taken = await trx
        .updateTable('run_asks')
        .set((eb) => ({
          state: 'asking',
          lease_owner: claim.owner,
          lease_expires_at: claim.leaseUntil,
          asked_at: claim.now,
          attempts: eb('attempts', '+', 1),
        }))
        .where('id', '=', ask.id)
        .where((eb) =>
          eb.or([
            eb('state', '=', 'pending'),
            eb.and([eb('state', '=', 'asking'), eb('lease_expires_at', '<', claim.now)]),
          ]),
        )
        .where((eb) =>
          eb.exists(
            eb
              .selectFrom('runs')
              .innerJoin('brands', 'brands.id', 'runs.brand_id')
              .select(sql`1`.as('one'))
              .whereRef('runs.id', '=', 'run_asks.run_id')
              .where('runs.status', '=', 'running')
              .where('brands.status', '=', 'active'),
          ),
        )
        .returning('attempts')
        .executeTakeFirst();
      if (!taken) return 'taken' as const;
      if (taken.attempts > claim.maxAttempts) return 'exhausted' as const;
      // Rolls the claim back with it.
      if (!(await countAsk(trx, ask.orgId, claim.month, claim.budget))) throw new BudgetReached();
      return 'claimed' as const;
    });
  } catch (error) {
    if (error instanceof BudgetReached) return 'budget';
    throw error;
  }
}

/**
 * Counts one ask against the organization's month, only while under `budget` (null: no budget):
 * false when the budget is spent, and then nothing is counted. Every ask sent to an engine goes
 * through here, a monitoring claim or a recommendation draft alike.
 */
export async function countAsk(
  db: Db,
  orgId: number,
  month: string,
  budget: number | null,
): Promise<boolean> {
  await db
    .insertInto('org_ask_usage')
    .values({ org_id: orgId, month, asks: 0 })
    .onConflict((oc) => oc.columns(['org_id', 'month']).doNothing())
    .execute();
  let counted = db
    .updateTable('org_ask_usage')
    .set((eb) => ({ asks: eb('asks', '+', 1) }))
    .where('org_id', '=', orgId)
    .where('month', '=', month);
  if (budget !== null) counted = counted.where('asks', '<', budget);
  return (await counted.executeTakeFirst()).numUpdatedRows > 0n;
}

/**
 * Lets go of an ask this worker failed on: its lease is no longer renewed, so it runs out and the
 * ask is taken again (up to its attempts), as a dead worker's would be.
 */
export async function releaseLease(db: Db, askId: number, owner: string): Promise<void> {
  await db
    .updateTable('run_asks')
    .set({ lease_owner: null })
    .where('id', '=', askId)
    .where('lease_owner', '=', owner)
    .where('state', '=', 'asking')
    .execute();
}

/**
 * Hands back an ask `owner` claimed but could not send (the engine's circuit was open): not
 * renewed, taken again once `until` has passed, and neither the take nor the month's count kept.
 * False when the ask is no longer this owner's.
 */
export async function deferAsk(
  db: Db,
  ask: { id: number; orgId: number },
  owner: string,
  values: { until: string; month: string },
): Promise<boolean> {
  return inTransaction(db, async (trx) => {
    const deferred = await trx
      .updateTable('run_asks')
      .set((eb) => ({ lease_owner: null, lease_expires_at: values.until, attempts: eb('attempts', '-', 1) }))
      .where('id', '=', ask.id)
      .where('lease_owner', '=', owner)
      .where('state', '=', 'asking')
      .executeTakeFirst();
    if (deferred.numUpdatedRows === 0n) return false;
    await uncountAsk(trx, ask.orgId, values.month);
    return true;
  });
}

/** Gives back an ask `countAsk` counted that was not sent (an open circuit refused it first). */
export async function uncountAsk(db: Db, orgId: number, month: string): Promise<void> {
  await db
    .updateTable('org_ask_usage')
    .set((eb) => ({ asks: eb('asks', '-', 1) }))
    .where('org_id', '=', orgId)
    .where('month', '=', month)
    .where('asks', '>', 0)
    .execute();
}

/**
 * Extends the leases `owner` holds on the asks it is still asking. On PostgreSQL an ask whose row
 * is locked (its answer being stored, by this very process, and waiting behind another writer) is
 * passed over: waiting for it held back every other lease of the process until they ran out, and
 * other workers asked those asks again. The locked one needs none: its store ends it done, and a
 * claim of it waits for that store and then finds it done.
 */
export async function renewLeases(db: Db, owner: string, leaseUntil: string): Promise<void> {
  const mine = db
    .selectFrom('run_asks')
    .select('id')
    .where('lease_owner', '=', owner)
    .where('state', '=', 'asking');
  await db
    .updateTable('run_asks')
    .set({ lease_expires_at: leaseUntil })
    .where('id', 'in', isPostgres(db) ? mine.forUpdate().skipLocked() : mine)
    .execute();
}

export interface AskFacts {
  outcome: string;
  finishedAt: string;
  vendorModel: string | null;
  latencyMs: number;
  inputTokens: number;
  outputTokens: number;
  estimatedCostUsd: number | null;
  error: string | null;
}

/**
 * Marks an ask done with what it cost; false when `owner` no longer holds it. Call it first in the
 * transaction that stores the ask's answer and then counts the run's progress: on PostgreSQL it
 * locks the run's row, so that the stores of one run take turns and each count sees the asks the
 * others finished (counted side by side, each from its own snapshot, the later write would drop
 * the other's ask). SQLite runs one write transaction at a time already.
 */
export async function finishAsk(
  db: Db,
  ask: { id: number; runId: number },
  owner: string,
  facts: AskFacts,
): Promise<boolean> {
  if (isPostgres(db))
    await db.selectFrom('runs').select('id').where('id', '=', ask.runId).forUpdate().execute();
  const result = await db
    .updateTable('run_asks')
    .set({
      state: 'done',
      lease_owner: null,
      lease_expires_at: null,
      finished_at: facts.finishedAt,
      outcome: facts.outcome,
      vendor_model: facts.vendorModel,
      latency_ms: facts.latencyMs,
      input_tokens: facts.inputTokens,
      output_tokens: facts.outputTokens,
      estimated_cost_usd: facts.estimatedCostUsd,
      error: facts.error,
    })
    .where('id', '=', ask.id)
    .where('state', '=', 'asking')
    .where('lease_owner', '=', owner)
    .executeTakeFirst();
  return result.numUpdatedRows > 0n;
}

export async function setAskResponse(db: Db, askId: number, responseId: number): Promise<void> {
  await db.updateTable('run_asks').set({ response_id: responseId }).where('id', '=', askId).execute();
}

export async function findResponseId(db: Db, orgId: number, externalKey: string): Promise<number> {
  const row = await db
    .selectFrom('responses')
    .select('id')
    .where('org_id', '=', orgId)
    .where('external_key', '=', externalKey)
    .executeTakeFirstOrThrow();
  return row.id;
}

/** completed_prompts: the run's prompts whose every planned ask is done. */
export async function updateRunProgress(db: Db, runId: number): Promise<void> {
  await db
    .updateTable('runs')
    .set({
      completed_prompts: sql<number>`(select count(*) from (select prompt_id from run_asks where run_id = ${runId} group by prompt_id having sum(case when state = 'done' then 0 else 1 end) = 0) as finished)`,
    })
    .where('id', '=', runId)
    .execute();
}

/**
 * The unfinished asks of running runs that none of `engines` can ask, per run and engine: they
 * wait for a process that has those engines configured.
 */
export async function asksWaitingForEngines(
  db: Db,
  engines: readonly string[],
  scope: { orgId: number; brandId: number; categoryIds?: readonly number[] } | 'every brand',
): Promise<{ runId: number; categoryId: number; engine: string; asks: number }[]> {
  let query = db
    .selectFrom('run_asks as a')
    .innerJoin('runs as r', 'r.id', 'a.run_id')
    .select(['a.run_id as runId', 'r.category_id as categoryId', 'a.engine'])
    .select((eb) => eb.fn.countAll().as('asks'))
    .where('r.status', '=', 'running')
    .where('a.state', '!=', 'done');
  if (engines.length > 0) query = query.where('a.engine', 'not in', engines);
  if (scope !== 'every brand') {
    query = query.where('r.org_id', '=', scope.orgId).where('r.brand_id', '=', scope.brandId);
    if (scope.categoryIds) query = query.where('r.category_id', 'in', scope.categoryIds);
  }
  const rows = await query
    .groupBy(['a.run_id', 'r.category_id', 'a.engine'])
    .orderBy('a.run_id')
    .orderBy('a.engine')
    .execute();
  return rows.map((r) => ({
    runId: r.runId,
    categoryId: r.categoryId,
    engine: r.engine,
    asks: Number(r.asks),
  }));
}

/**
 * Running monitoring runs every ask of which is done: left so when the process that stored the
 * last answer died, or failed, before it completed the run.
 */
export function runsLeftUnended(
  db: Db,
  runIds?: readonly number[],
): Promise<{ runId: number; orgId: number; brandId: number; categoryId: number }[]> {
  let query = db
    .selectFrom('runs as r')
    .select(['r.id as runId', 'r.org_id as orgId', 'r.brand_id as brandId', 'r.category_id as categoryId'])
    .where('r.source', '=', 'monitor')
    .where('r.status', '=', 'running')
    .where(({ not, exists, selectFrom }) =>
      not(
        exists(
          selectFrom('run_asks as a')
            .select('a.id')
            .whereRef('a.run_id', '=', 'r.id')
            .where('a.state', '!=', 'done'),
        ),
      ),
    );
  if (runIds) query = query.where('r.id', 'in', runIds.length > 0 ? runIds : [0]);
  return query.orderBy('r.id').execute();
}

export async function unfinishedAsks(db: Db, runId: number): Promise<number> {
  const row = await db
    .selectFrom('run_asks')
    .select((eb) => eb.fn.countAll().as('n'))
    .where('run_id', '=', runId)
    .where('state', '!=', 'done')
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

/** Ends a running run; false when it had already ended (another worker finished or stopped it). */
export async function endMonitorRun(
  db: Db,
  runId: number,
  values: { status: 'completed' | 'failed'; finishedAt: string; reason: string | null },
): Promise<boolean> {
  const result = await db
    .updateTable('runs')
    .set({ status: values.status, finished_at: values.finishedAt, status_reason: values.reason })
    .where('id', '=', runId)
    .where('status', '=', 'running')
    .executeTakeFirst();
  return result.numUpdatedRows > 0n;
}

export interface AskCounts {
  planned: number;
  done: number;
  outcomes: Record<string, number>;
  estimatedCostUsd: number;
}

export async function runAskCounts(db: Db, runId: number): Promise<AskCounts> {
  const rows = await db
    .selectFrom('run_asks')
    .select((eb) => [
      'state',
      'outcome',
      eb.fn.countAll().as('n'),
      eb.fn.sum<number | string | null>('estimated_cost_usd').as('cost'),
    ])
    .where('run_id', '=', runId)
    .groupBy(['state', 'outcome'])
    .execute();
  const counts: AskCounts = { planned: 0, done: 0, outcomes: {}, estimatedCostUsd: 0 };
  for (const r of rows) {
    const n = Number(r.n);
    counts.planned += n;
    if (r.state === 'done') counts.done += n;
    if (r.outcome) counts.outcomes[r.outcome] = (counts.outcomes[r.outcome] ?? 0) + n;
    counts.estimatedCostUsd += Number(r.cost ?? 0);
  }
  return counts;
}

/** The names the simulated engine may mention: the category's tracked competitors. */
export async function categoryCompetitorNames(db: Db, orgId: number, categoryId: number): Promise<string[]> {
  const rows = await db
    .selectFrom('competitors')
    .select('canonical_name')
    .where('org_id', '=', orgId)
    .where('category_id', '=', categoryId)
    .orderBy('id')
    .execute();
  return rows.map((r) => r.canonical_name);
}
