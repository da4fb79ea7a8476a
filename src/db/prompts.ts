import type { PromptRunScore } from '../domain/scoring.ts';
import type { Db } from './connect.ts';
import { eligibleFlag } from './predicates.ts';
import { recentEligibleScoreRows, recentScoresOfPrompts, type ScopedPromptRunScore } from './scores.ts';

export interface PromptCounts {
  /** Non-archived prompts (for a brand: only those in non-archived categories). */
  promptCount: number;
  /** Eligible prompts: monitored, not archived, in a non-archived category. */
  monitoredPromptCount: number;
}

/**
 * Prompt counts of several categories in one grouped query. A category shows its prompts even
 * when it is archived (a brand's counts, brands.ts, leave archived categories out).
 */
export async function categoryPromptCounts(
  db: Db,
  orgId: number,
  categoryIds: readonly number[],
): Promise<Map<number, PromptCounts>> {
  if (categoryIds.length === 0) return new Map();
  const rows = await db
    .selectFrom('prompts as p')
    .innerJoin('categories as c', 'c.id', 'p.category_id')
    .select((eb) => [
      'p.category_id as id',
      eb.fn.countAll().as('prompts'),
      eb.fn.sum<number | string>(eligibleFlag).as('monitored'),
    ])
    .where('p.org_id', '=', orgId)
    .where('c.org_id', '=', orgId)
    .where('p.category_id', 'in', categoryIds)
    .where('p.is_archived', '=', 0)
    .groupBy('p.category_id')
    .execute();
  return new Map(
    rows.map((r) => [r.id, { promptCount: Number(r.prompts), monitoredPromptCount: Number(r.monitored) }]),
  );
}

/**
 * The latest two visible scores of each eligible prompt of several brands, or of several
 * categories of one brand, keyed by brand or category: all that a current and previous score read.
 */
export async function recentEligibleScores(
  db: Db,
  orgId: number,
  scope: { brandIds: readonly number[] } | { brandId: number; categoryIds: readonly number[] },
): Promise<Map<number, ScopedPromptRunScore[]>> {
  const byCategory = 'categoryIds' in scope;
  const rows = await recentEligibleScoreRows(
    db,
    orgId,
    byCategory ? { brandIds: [scope.brandId], categoryIds: scope.categoryIds } : scope,
  );
  const groups = new Map<number, ScopedPromptRunScore[]>();
  for (const row of rows) {
    const key = byCategory ? row.categoryId : row.brandId;
    const group = groups.get(key);
    if (group) group.push(row);
    else groups.set(key, [row]);
  }
  return groups;
}

export interface PromptFilters {
  includeArchived: boolean;
}

export interface PromptRecord {
  id: number;
  categoryId: number;
  brandId: number;
  text: string;
  isMonitored: boolean;
  isArchived: boolean;
  createdAt: string;
  /** The prompt's latest two scored visible runs. */
  recentScores: PromptRunScore[];
}

function promptsOf(db: Db, orgId: number, categoryId: number, filters: PromptFilters) {
  let query = db
    .selectFrom('prompts as p')
    .where('p.org_id', '=', orgId)
    .where('p.category_id', '=', categoryId);
  if (!filters.includeArchived) query = query.where('p.is_archived', '=', 0);
  return query;
}

export async function countPrompts(
  db: Db,
  orgId: number,
  categoryId: number,
  filters: PromptFilters,
): Promise<number> {
  const row = await promptsOf(db, orgId, categoryId, filters)
    .select((eb) => eb.fn.countAll().as('n'))
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

/**
 * One page of a category's prompts, oldest first. A prompt's scores are its own scored visible
 * runs whatever its eligibility, so an unmonitored or archived prompt still shows its history.
 */
export async function listPrompts(
  db: Db,
  orgId: number,
  category: { id: number; brandId: number },
  filters: PromptFilters,
  page: { offset: number; pageSize: number },
): Promise<PromptRecord[]> {
  const rows = await promptsOf(db, orgId, category.id, filters)
    .select([
      'p.id',
      'p.category_id',
      'p.brand_id',
      'p.text',
      'p.is_monitored',
      'p.is_archived',
      'p.created_at',
    ])
    .orderBy('p.id')
    .limit(page.pageSize)
    .offset(page.offset)
    .execute();
  if (rows.length === 0) return [];

  // A prompt's latest score and its predecessor: all its record shows.
  const scores = await recentScoresOfPrompts(
    db,
    orgId,
    category.brandId,
    rows.map((r) => r.id),
  );
  return rows.map((row) => ({
    id: row.id,
    categoryId: row.category_id,
    brandId: row.brand_id,
    text: row.text,
    isMonitored: row.is_monitored === 1,
    isArchived: row.is_archived === 1,
    createdAt: row.created_at,
    recentScores: scores.filter((s) => s.promptId === row.id),
  }));
}
