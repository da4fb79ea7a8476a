import { type ExpressionBuilder, sql } from 'kysely';
import type { Db } from './connect.ts';
import { eligibleFlag, visibleRun } from './predicates.ts';
import { type PromptCounts, promptCounts, recentEligibleScores } from './prompts.ts';
import type { ScopedPromptRunScore } from './scores.ts';
import type { Database } from './types.ts';

/** The public demo brand: its category list answers without a key (contract, Authentication 8). */
export const DEMO_BRAND_ID = 9;

export type BrandSort = 'last-run' | 'name' | 'recent';

export interface BrandFilters {
  includeArchived: boolean;
  monitoring?: 'on' | 'off';
  q?: string;
}

export interface InFlightRun {
  runId: number;
  categoryId: number;
  completedPrompts: number;
  totalPrompts: number;
  startedAt: string | null;
}

export interface BrandRecord extends PromptCounts {
  id: number;
  orgId: number;
  orgName: string;
  name: string;
  website: string;
  status: string;
  mergedInto: { id: number; name: string } | null;
  mergedAt: string | null;
  executiveSummary: string;
  executiveSummaryUpdatedAt: string | null;
  nextMonitoredRunAt: string | null;
  updatedAt: string;
  categoryCount: number;
  recCount: number;
  lastMonitoredRunAt: string | null;
  inFlightRun: InFlightRun | null;
  /** The latest two scores of each eligible prompt. */
  recentScores: ScopedPromptRunScore[];
}

/** The few columns a sub-resource route needs to scope itself to a brand. */
export interface BrandRef {
  id: number;
  orgId: number;
  name: string;
  website: string;
}

const BRAND_REF_COLUMNS = ['id', 'org_id as orgId', 'name', 'website'] as const;

export async function findBrandRef(db: Db, orgId: number, brandId: number): Promise<BrandRef | undefined> {
  return db
    .selectFrom('brands')
    .select(BRAND_REF_COLUMNS)
    .where('org_id', '=', orgId)
    .where('id', '=', brandId)
    .executeTakeFirst();
}

/**
 * The public demo brand, looked up without an organization: the one read the contract allows
 * anonymously. Anything that is not the flagged demo brand is not found.
 */
export async function findPublicDemoBrand(db: Db, brandId: number): Promise<BrandRef | undefined> {
  if (brandId !== DEMO_BRAND_ID) return undefined;
  return db
    .selectFrom('brands')
    .select(BRAND_REF_COLUMNS)
    .where('id', '=', brandId)
    .where('is_demo', '=', 1)
    .executeTakeFirst();
}

/** LIKE pattern matching `text` anywhere, with the user's own wildcards taken literally. */
function containsPattern(text: string): string {
  return `%${text.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
}

function filteredBrands(db: Db, orgId: number, filters: BrandFilters) {
  let query = db.selectFrom('brands as b').where('b.org_id', '=', orgId);
  if (!filters.includeArchived) query = query.where('b.status', '!=', 'archived');
  if (filters.q !== undefined && filters.q !== '') {
    const pattern = containsPattern(filters.q);
    // lower() on both sides and an explicit ESCAPE: the same result on SQLite and PostgreSQL.
    query = query.where(
      sql<boolean>`(lower(b.name) like lower(${pattern}) escape '\\' or lower(b.website) like lower(${pattern}) escape '\\')`,
    );
  }
  if (filters.monitoring) {
    const hasEligiblePrompt = (eb: ExpressionBuilder<Database & { b: Database['brands'] }, 'b'>) =>
      eb.exists(
        eb
          .selectFrom('prompts as p')
          .innerJoin('categories as c', 'c.id', 'p.category_id')
          .select(sql`1`.as('one'))
          .whereRef('p.brand_id', '=', 'b.id')
          .where('p.org_id', '=', orgId)
          .where(eligibleFlag, '=', 1),
      );
    query =
      filters.monitoring === 'on'
        ? query.where(hasEligiblePrompt)
        : query.where((eb) => eb.not(hasEligiblePrompt(eb)));
  }
  return query;
}

export async function countBrands(db: Db, orgId: number, filters: BrandFilters): Promise<number> {
  const row = await filteredBrands(db, orgId, filters)
    .select((eb) => eb.fn.countAll().as('n'))
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

/**
 * When a brand's (alias b) latest visible run finished: a backward seek on the runs_brand index
 * that stops at the first visible run, however many runs the brand has had.
 */
function lastVisibleRunAt(eb: ExpressionBuilder<Database & { b: Database['brands'] }, 'b'>, orgId: number) {
  return eb
    .selectFrom('runs as r')
    .select('r.finished_at')
    .where('r.org_id', '=', orgId)
    .whereRef('r.brand_id', '=', 'b.id')
    .where('r.finished_at', 'is not', null)
    .where(visibleRun)
    .orderBy('r.finished_at', 'desc')
    .limit(1);
}

function brandRows(db: Db, orgId: number, filters: BrandFilters) {
  return filteredBrands(db, orgId, filters)
    .innerJoin('organizations as o', 'o.id', 'b.org_id')
    .leftJoin('brands as m', (join) =>
      join.onRef('m.id', '=', 'b.merged_into_brand_id').on('m.org_id', '=', orgId),
    )
    .select((eb) => [
      'b.id',
      'b.org_id',
      'o.name as org_name',
      'b.name',
      'b.website',
      'b.status',
      'm.id as merged_id',
      'm.name as merged_name',
      'b.merged_at',
      'b.executive_summary',
      'b.executive_summary_updated_at',
      'b.next_monitored_run_at',
      'b.updated_at',
      'b.created_at',
      lastVisibleRunAt(eb, orgId).as('last_run_at'),
    ]);
}

/** One page of brands, then a fixed number of grouped queries for the page's aggregates. */
export async function listBrands(
  db: Db,
  orgId: number,
  filters: BrandFilters,
  sort: BrandSort,
  page: { offset: number; pageSize: number },
): Promise<BrandRecord[]> {
  // Wrapped, so that both databases can sort on the computed last run.
  let query = db.selectFrom(brandRows(db, orgId, filters).as('b')).selectAll();
  if (sort === 'last-run') {
    query = query
      .orderBy(sql`case when b.last_run_at is null then 1 else 0 end`)
      .orderBy('b.last_run_at', 'desc')
      .orderBy('b.id');
  } else if (sort === 'name') {
    query = query.orderBy((eb) => eb.fn('lower', ['b.name'])).orderBy('b.id');
  } else {
    query = query.orderBy('b.created_at', 'desc').orderBy('b.id', 'desc');
  }
  const rows = await query.limit(page.pageSize).offset(page.offset).execute();
  return withAggregates(db, orgId, rows);
}

export async function findBrand(db: Db, orgId: number, brandId: number): Promise<BrandRecord | undefined> {
  const rows = await brandRows(db, orgId, { includeArchived: true }).where('b.id', '=', brandId).execute();
  const [brand] = await withAggregates(db, orgId, rows);
  return brand;
}

type BrandRow = Awaited<ReturnType<ReturnType<typeof brandRows>['execute']>>[number];

async function withAggregates(db: Db, orgId: number, rows: BrandRow[]): Promise<BrandRecord[]> {
  if (rows.length === 0) return [];
  const ids = rows.map((r) => r.id);
  const [categories, prompts, recommendations, inFlight, scores] = await Promise.all([
    categoryCounts(db, orgId, ids),
    promptCounts(db, orgId, 'brand', ids),
    openRecommendationCounts(db, orgId, ids),
    newestInFlightRuns(db, orgId, ids),
    recentEligibleScores(db, orgId, { brandIds: ids }),
  ]);
  return rows.map((row) => ({
    id: row.id,
    orgId: row.org_id,
    orgName: row.org_name,
    name: row.name,
    website: row.website,
    status: row.status,
    mergedInto:
      row.merged_id !== null && row.merged_name !== null
        ? { id: row.merged_id, name: row.merged_name }
        : null,
    mergedAt: row.merged_at,
    executiveSummary: row.executive_summary,
    executiveSummaryUpdatedAt: row.executive_summary_updated_at,
    nextMonitoredRunAt: row.next_monitored_run_at,
    updatedAt: row.updated_at,
    lastMonitoredRunAt: row.last_run_at ?? null,
    categoryCount: categories.get(row.id) ?? 0,
    promptCount: prompts.get(row.id)?.promptCount ?? 0,
    monitoredPromptCount: prompts.get(row.id)?.monitoredPromptCount ?? 0,
    recCount: recommendations.get(row.id) ?? 0,
    inFlightRun: inFlight.get(row.id) ?? null,
    recentScores: scores.get(row.id) ?? [],
  }));
}

async function categoryCounts(db: Db, orgId: number, brandIds: number[]): Promise<Map<number, number>> {
  const rows = await db
    .selectFrom('categories')
    .select((eb) => ['brand_id', eb.fn.countAll().as('n')])
    .where('org_id', '=', orgId)
    .where('brand_id', 'in', brandIds)
    .where('is_archived', '=', 0)
    .groupBy('brand_id')
    .execute();
  return new Map(rows.map((r) => [r.brand_id, Number(r.n)]));
}

/** Recommendations the recommendations endpoint lists: neither superseded nor soft-deleted. */
async function openRecommendationCounts(
  db: Db,
  orgId: number,
  brandIds: number[],
): Promise<Map<number, number>> {
  const rows = await db
    .selectFrom('recommendations')
    .select((eb) => ['brand_id', eb.fn.countAll().as('n')])
    .where('org_id', '=', orgId)
    .where('brand_id', 'in', brandIds)
    .where('status', '!=', 'superseded')
    .where('superseded_at', 'is', null)
    .where('deleted_at', 'is', null)
    .groupBy('brand_id')
    .execute();
  return new Map(rows.map((r) => [r.brand_id, Number(r.n)]));
}

async function newestInFlightRuns(
  db: Db,
  orgId: number,
  brandIds: number[],
): Promise<Map<number, InFlightRun>> {
  const rows = await db
    .selectFrom('runs')
    .select(['id', 'brand_id', 'category_id', 'completed_prompts', 'total_prompts', 'started_at'])
    .where('org_id', '=', orgId)
    .where('brand_id', 'in', brandIds)
    .where('status', 'in', ['queued', 'running'])
    .orderBy('created_at', 'desc')
    .orderBy('id', 'desc')
    .execute();
  const newest = new Map<number, InFlightRun>();
  for (const r of rows) {
    if (newest.has(r.brand_id)) continue;
    newest.set(r.brand_id, {
      runId: r.id,
      categoryId: r.category_id,
      completedPrompts: r.completed_prompts,
      totalPrompts: r.total_prompts,
      startedAt: r.started_at,
    });
  }
  return newest;
}
