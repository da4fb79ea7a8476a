import { type ExpressionBuilder, sql } from 'kysely';
import type { Db } from './connect.ts';
import { eligibleFlag, eligiblePrompt, lastVisibleRunAt } from './predicates.ts';
import { type PromptCounts, recentEligibleScores } from './prompts.ts';
import type { ScopedPromptRunScore } from './scores.ts';
import { executeShaped } from './shaped.ts';
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
  const { rows } = await executeShaped(
    db,
    'findBrandRef',
    { orgId, brandId },
    ({ orgId, brandId }) =>
      db.selectFrom('brands').select(BRAND_REF_COLUMNS).where('org_id', '=', orgId).where('id', '=', brandId),
    { lookup: true },
  );
  return rows[0];
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

type BrandScope = ExpressionBuilder<Database & { b: Database['brands'] }, 'b'>;

/**
 * Everything a brand record shows besides its scores, per brand (alias b) of the outer query:
 * each figure is an index seek or a count over the brand's own catalog, never over its runs, so a
 * page of brands costs the same however many runs they have had, and one round trip.
 */
function brandFigures(eb: BrandScope, orgId: number) {
  const eligibleCount = (onlyEligible: boolean) => {
    let query = eb
      .selectFrom('prompts as p')
      .innerJoin('categories as c', 'c.id', 'p.category_id')
      .select((e) => e.fn.countAll<number>().as('n'))
      .where('p.org_id', '=', orgId)
      .where('c.org_id', '=', orgId)
      .whereRef('p.brand_id', '=', 'b.id')
      // An archived category's prompts are no longer the brand's.
      .where('p.is_archived', '=', 0)
      .where('c.is_archived', '=', 0);
    if (onlyEligible) query = query.where(eligiblePrompt);
    return query;
  };
  return [
    lastVisibleRunAt(orgId, 'b.id').as('last_run_at'),
    eb
      .selectFrom('categories as c')
      .select((e) => e.fn.countAll<number>().as('n'))
      .where('c.org_id', '=', orgId)
      .whereRef('c.brand_id', '=', 'b.id')
      .where('c.is_archived', '=', 0)
      .as('category_count'),
    eligibleCount(false).as('prompt_count'),
    eligibleCount(true).as('monitored_prompt_count'),
    // Recommendations the recommendations endpoint lists: neither superseded nor soft-deleted.
    eb
      .selectFrom('recommendations as rec')
      .select((e) => e.fn.countAll<number>().as('n'))
      .where('rec.org_id', '=', orgId)
      .whereRef('rec.brand_id', '=', 'b.id')
      .where('rec.status', '!=', 'superseded')
      .where('rec.superseded_at', 'is', null)
      .where('rec.deleted_at', 'is', null)
      .as('rec_count'),
  ] as const;
}

function brandRows(db: Db, orgId: number, filters: BrandFilters) {
  return (
    filteredBrands(db, orgId, filters)
      .innerJoin('organizations as o', 'o.id', 'b.org_id')
      .leftJoin('brands as m', (join) =>
        join.onRef('m.id', '=', 'b.merged_into_brand_id').on('m.org_id', '=', orgId),
      )
      // The newest run in flight, found through runs_brand_status.
      .leftJoin('runs as f', (join) =>
        join.on((eb) =>
          eb(
            'f.id',
            '=',
            eb
              .selectFrom('runs as q')
              .select('q.id')
              .where('q.org_id', '=', orgId)
              .whereRef('q.brand_id', '=', 'b.id')
              .where('q.status', 'in', ['queued', 'running'])
              .orderBy('q.created_at', 'desc')
              .orderBy('q.id', 'desc')
              .limit(1),
          ),
        ),
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
        'f.id as flight_run_id',
        'f.category_id as flight_category_id',
        'f.completed_prompts as flight_completed_prompts',
        'f.total_prompts as flight_total_prompts',
        'f.started_at as flight_started_at',
        ...brandFigures(eb, orgId),
      ])
  );
}

/** One page of brands with their figures in one query, then their prompts' recent scores. */
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
  const scores = await recentEligibleScores(db, orgId, { brandIds: rows.map((r) => r.id) });
  return rows.map((row) => brandRecord(row, scores.get(row.id) ?? []));
}

/** One brand: its row and its prompts' recent scores, read side by side. */
export async function findBrand(db: Db, orgId: number, brandId: number): Promise<BrandRecord | undefined> {
  const [row, scores] = await Promise.all([
    brandRows(db, orgId, { includeArchived: true }).where('b.id', '=', brandId).executeTakeFirst(),
    recentEligibleScores(db, orgId, { brandIds: [brandId] }),
  ]);
  return row && brandRecord(row, scores.get(row.id) ?? []);
}

type BrandRow = Awaited<ReturnType<ReturnType<typeof brandRows>['execute']>>[number];

function brandRecord(row: BrandRow, recentScores: ScopedPromptRunScore[]): BrandRecord {
  return {
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
    categoryCount: Number(row.category_count ?? 0),
    promptCount: Number(row.prompt_count ?? 0),
    monitoredPromptCount: Number(row.monitored_prompt_count ?? 0),
    recCount: Number(row.rec_count ?? 0),
    inFlightRun:
      row.flight_run_id !== null && row.flight_category_id !== null
        ? {
            runId: row.flight_run_id,
            categoryId: row.flight_category_id,
            completedPrompts: row.flight_completed_prompts ?? 0,
            totalPrompts: row.flight_total_prompts ?? 0,
            startedAt: row.flight_started_at,
          }
        : null,
    recentScores,
  };
}
