import { type Insertable, type Selectable, sql, type Updateable } from 'kysely';
import type { Db } from './connect.ts';
import type {
  RecommendationArtifactsTable,
  RecommendationOutcomesTable,
  RecommendationsTable,
} from './types.ts';

// The recommendations a brand lists: everything except superseded and soft-deleted rows, with
// each one's generated artifacts and measured outcomes.

export type RecommendationRow = Selectable<RecommendationsTable> & {
  artifacts: Selectable<RecommendationArtifactsTable>[];
  outcomes: Selectable<RecommendationOutcomesTable>[];
};

function listed(db: Db, orgId: number, brandId: number) {
  return db
    .selectFrom('recommendations')
    .where('org_id', '=', orgId)
    .where('brand_id', '=', brandId)
    .where('status', '<>', 'superseded')
    .where('superseded_at', 'is', null)
    .where('deleted_at', 'is', null);
}

// Priorities outside the three buckets (none are expected) sort after low rather than vanish.
const priorityBucket = sql<number>`case priority when 'high' then 0 when 'medium' then 1 when 'low' then 2 else 3 end`;

function groupByRecommendation<R extends { recommendation_id: string }>(
  rows: readonly R[],
): Map<string, R[]> {
  const groups = new Map<string, R[]>();
  for (const row of rows) {
    const list = groups.get(row.recommendation_id) ?? [];
    list.push(row);
    groups.set(row.recommendation_id, list);
  }
  return groups;
}

async function artifactsOf(db: Db, orgId: number, ids: string[]) {
  const rows = await db
    .selectFrom('recommendation_artifacts')
    .selectAll()
    .where('org_id', '=', orgId)
    .where('recommendation_id', 'in', ids)
    .orderBy('created_at')
    .orderBy('id')
    .execute();
  return groupByRecommendation(rows);
}

async function outcomesOf(db: Db, orgId: number, ids: string[]) {
  const rows = await db
    .selectFrom('recommendation_outcomes')
    .selectAll()
    .where('org_id', '=', orgId)
    .where('recommendation_id', 'in', ids)
    .orderBy('measured_at')
    .orderBy('id')
    .execute();
  return groupByRecommendation(rows);
}

/** How many recommendations a brand lists. */
export async function countRecommendations(db: Db, orgId: number, brandId: number): Promise<number> {
  const total = await listed(db, orgId, brandId)
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .executeTakeFirstOrThrow();
  return Number(total.n);
}

/**
 * One page (or, with 'all', every one) of a brand's listed recommendations: priority bucket (high,
 * medium, low), then score descending, then newest first, then id so that equal rows keep a
 * stable order across pages. Three queries whatever the size: the rows, their artifacts, their
 * outcomes.
 */
export async function recommendationsPage(
  db: Db,
  orgId: number,
  brandId: number,
  page: { offset: number; pageSize: number } | 'all',
): Promise<RecommendationRow[]> {
  const ordered = listed(db, orgId, brandId)
    .selectAll()
    .orderBy(priorityBucket)
    .orderBy('score', 'desc')
    .orderBy('created_at', 'desc')
    .orderBy('id');
  const rows = await (page === 'all' ? ordered : ordered.limit(page.pageSize).offset(page.offset)).execute();
  if (rows.length === 0) return [];
  const ids = rows.map((row) => row.id);
  const [artifacts, outcomes] = await Promise.all([artifactsOf(db, orgId, ids), outcomesOf(db, orgId, ids)]);
  return rows.map((row) => ({
    ...row,
    artifacts: artifacts.get(row.id) ?? [],
    outcomes: outcomes.get(row.id) ?? [],
  }));
}

// ---- Generation and lifecycle (src/recommendations) ----

/** What the generator needs to know about a brand besides its analytics. */
export interface RecommendationSubject {
  name: string;
  website: string;
  timezone: string;
  /** The brand's prompts (all of them: the analytics decide which have data). */
  prompts: { id: number; text: string; categoryId: number }[];
}

export async function findRecommendationSubject(
  db: Db,
  orgId: number,
  brandId: number,
): Promise<RecommendationSubject | undefined> {
  const brand = await db
    .selectFrom('brands as b')
    .innerJoin('organizations as o', 'o.id', 'b.org_id')
    .select(['b.name', 'b.website', 'o.timezone'])
    .where('b.org_id', '=', orgId)
    .where('b.id', '=', brandId)
    .executeTakeFirst();
  if (!brand) return undefined;
  const prompts = await db
    .selectFrom('prompts')
    .select(['id', 'text', 'category_id'])
    .where('org_id', '=', orgId)
    .where('brand_id', '=', brandId)
    .execute();
  return {
    ...brand,
    prompts: prompts.map((p) => ({ id: p.id, text: p.text, categoryId: p.category_id })),
  };
}

/**
 * Serialises the generators of one brand for the rest of the transaction: PostgreSQL locks the
 * brand's row; SQLite takes its one write lock now, before the reads, so two processes never both
 * read and then both try to upgrade to writing.
 */
export async function lockBrandRecommendations(db: Db, orgId: number, brandId: number): Promise<void> {
  await db
    .updateTable('brands')
    .set((eb) => ({ updated_at: eb.ref('updated_at') }))
    .where('org_id', '=', orgId)
    .where('id', '=', brandId)
    .execute();
}

export type LiveFinding = Pick<
  Selectable<RecommendationsTable>,
  | 'id'
  | 'finding_key'
  | 'rec_type'
  | 'status'
  | 'title'
  | 'why'
  | 'score'
  | 'priority'
  | 'evidence'
  | 'created_at'
>;

/** The brand's live generated recommendations (not superseded or deleted), by finding key. */
export async function liveFindings(db: Db, orgId: number, brandId: number): Promise<LiveFinding[]> {
  return db
    .selectFrom('recommendations')
    .select([
      'id',
      'finding_key',
      'rec_type',
      'status',
      'title',
      'why',
      'score',
      'priority',
      'evidence',
      'created_at',
    ])
    .where('org_id', '=', orgId)
    .where('brand_id', '=', brandId)
    .where('finding_key', '<>', '')
    .where('superseded_at', 'is', null)
    .where('deleted_at', 'is', null)
    .execute();
}

/**
 * Inserts a generated recommendation unless its finding already has a live one (the partial unique
 * index decides, also against a concurrent generator): true when this call inserted it.
 */
export async function insertFinding(db: Db, row: Insertable<RecommendationsTable>): Promise<boolean> {
  const inserted = await db
    .insertInto('recommendations')
    .values(row)
    .onConflict((oc) => oc.doNothing())
    .returning('id')
    .executeTakeFirst();
  return inserted !== undefined;
}

/** Rewrites an open recommendation's figures; a row acted on since keeps the rationale it was acted on. */
export async function refreshFinding(
  db: Db,
  orgId: number,
  id: string,
  values: Updateable<RecommendationsTable>,
): Promise<void> {
  await db
    .updateTable('recommendations')
    .set(values)
    .where('org_id', '=', orgId)
    .where('id', '=', id)
    .where('status', '=', 'open')
    .execute();
}

/** Supersedes open recommendations whose finding no longer holds. */
export async function supersedeFindings(
  db: Db,
  orgId: number,
  ids: readonly string[],
  at: string,
): Promise<void> {
  if (ids.length === 0) return;
  await db
    .updateTable('recommendations')
    .set({ status: 'superseded', superseded_at: at, updated_at: at })
    .where('org_id', '=', orgId)
    .where('id', 'in', ids)
    .where('status', '=', 'open')
    .where('superseded_at', 'is', null)
    .execute();
}

/**
 * A recommendation that is not deleted, in the organization; `null` looks across organizations,
 * for an operator's command that names a recommendation by its id alone (`recommendations draft`).
 */
export async function findRecommendation(
  db: Db,
  orgId: number | null,
  id: string,
): Promise<Selectable<RecommendationsTable> | undefined> {
  let query = db
    .selectFrom('recommendations')
    .selectAll()
    .where('id', '=', id)
    .where('deleted_at', 'is', null);
  if (orgId !== null) query = query.where('org_id', '=', orgId);
  return query.executeTakeFirst();
}

/** Moves a recommendation from one of `from` to a new state; false when it was not in one of them. */
export async function transitionRecommendation(
  db: Db,
  orgId: number,
  id: string,
  from: readonly string[],
  values: Updateable<RecommendationsTable>,
): Promise<boolean> {
  const result = await db
    .updateTable('recommendations')
    .set(values)
    .where('org_id', '=', orgId)
    .where('id', '=', id)
    .where('status', 'in', from)
    .where('deleted_at', 'is', null)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) === 1;
}

export async function insertOutcome(db: Db, row: Insertable<RecommendationOutcomesTable>): Promise<void> {
  await db.insertInto('recommendation_outcomes').values(row).execute();
}

export interface PendingOutcome {
  id: string;
  orgId: number;
  recommendationId: string;
  brandId: number;
  recType: string;
  subjectKind: string;
  subject: string;
  evidence: string;
  implementedAt: string;
  windowDays: number;
  baselineValue: number;
  baselineSampleSize: number;
  timezone: string;
}

/** Generated recommendations' outcomes not measured yet, of one organization or (operator-wide) of all. */
export async function pendingOutcomes(db: Db, orgId: number | null): Promise<PendingOutcome[]> {
  let query = db
    .selectFrom('recommendation_outcomes as o')
    .innerJoin('recommendations as r', 'r.id', 'o.recommendation_id')
    .innerJoin('organizations as g', 'g.id', 'o.org_id')
    .select([
      'o.id',
      'o.org_id',
      'o.recommendation_id',
      'r.brand_id',
      'r.rec_type',
      'r.subject_kind',
      'r.subject',
      'r.evidence',
      'o.baseline_at',
      'o.measurement_window_days',
      'o.baseline_value',
      'o.baseline_sample_size',
      'g.timezone',
    ])
    .whereRef('r.org_id', '=', 'o.org_id')
    .where('o.is_measured', '=', 0)
    // Outcomes written by hand (no finding behind them) are not the measurer's to overwrite.
    .where('r.finding_key', '<>', '')
    .where('r.deleted_at', 'is', null)
    .orderBy('o.baseline_at')
    .orderBy('o.id');
  if (orgId !== null) query = query.where('o.org_id', '=', orgId);
  const rows = await query.execute();
  return rows.map((r) => ({
    id: r.id,
    orgId: r.org_id,
    recommendationId: r.recommendation_id,
    brandId: r.brand_id,
    recType: r.rec_type,
    subjectKind: r.subject_kind,
    subject: r.subject,
    evidence: r.evidence,
    implementedAt: new Date(r.baseline_at).toISOString(),
    windowDays: r.measurement_window_days,
    baselineValue: r.baseline_value,
    baselineSampleSize: r.baseline_sample_size,
    timezone: r.timezone,
  }));
}

/** Records an outcome's current value once; false when another measurer got there first. */
export async function recordMeasurement(
  db: Db,
  orgId: number,
  id: string,
  values: Pick<
    Updateable<RecommendationOutcomesTable>,
    'current_value' | 'current_sample_size' | 'measured_at' | 'attribution_confidence' | 'notes'
  >,
): Promise<boolean> {
  const result = await db
    .updateTable('recommendation_outcomes')
    .set({ ...values, is_measured: 1 })
    .where('org_id', '=', orgId)
    .where('id', '=', id)
    .where('is_measured', '=', 0)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) === 1;
}

/**
 * Other recommendations of the brand on the same subject that were started or implemented in
 * [from, to): work that may have moved the same metric.
 */
export async function overlappingRecommendations(
  db: Db,
  orgId: number,
  rec: { id: string; brandId: number; subjectKind: string; subject: string },
  from: string,
  to: string,
): Promise<string[]> {
  const inWindow = (column: 'started_at' | 'implemented_at') =>
    sql<boolean>`(${sql.ref(column)} >= ${from} and ${sql.ref(column)} < ${to})`;
  const rows = await db
    .selectFrom('recommendations')
    .select('id')
    .where('org_id', '=', orgId)
    .where('brand_id', '=', rec.brandId)
    .where('subject_kind', '=', rec.subjectKind)
    .where('subject', '=', rec.subject)
    .where('id', '<>', rec.id)
    .where('deleted_at', 'is', null)
    .where((eb) => eb.or([inWindow('started_at'), inWindow('implemented_at')]))
    .orderBy('id')
    .execute();
  return rows.map((r) => r.id);
}

/** Soft-deletes a recommendation: the API leaves it out, and its finding is free to come back. */
export async function deleteRecommendation(db: Db, orgId: number, id: string, at: string): Promise<void> {
  await db
    .updateTable('recommendations')
    .set({ deleted_at: at, updated_at: at })
    .where('org_id', '=', orgId)
    .where('id', '=', id)
    .where('deleted_at', 'is', null)
    .execute();
}
