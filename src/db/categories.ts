import type { BrandRef } from './brands.ts';
import type { Db } from './connect.ts';
import { lastVisibleRunAt } from './predicates.ts';
import { categoryPromptCounts, type PromptCounts, recentEligibleScores } from './prompts.ts';
import type { ScopedPromptRunScore } from './scores.ts';
import { executeShaped } from './shaped.ts';

export interface CategoryFilters {
  includeArchived: boolean;
}

export interface CategoryRecord extends PromptCounts {
  id: number;
  brandId: number;
  name: string;
  description: string;
  isArchived: boolean;
  createdAt: string;
  lastRunAt: string | null;
  /** The latest two scores of each eligible prompt. */
  recentScores: ScopedPromptRunScore[];
}

/** The few columns a sub-resource route needs to scope itself to a category. */
export interface CategoryRef {
  id: number;
  brandId: number;
  name: string;
  isArchived: boolean;
}

function categoryRef(row: { id: number; brand_id: number; name: string; is_archived: number }): CategoryRef {
  return { id: row.id, brandId: row.brand_id, name: row.name, isArchived: row.is_archived === 1 };
}

export async function findCategoryRef(
  db: Db,
  orgId: number,
  categoryId: number,
): Promise<CategoryRef | undefined> {
  const row = await db
    .selectFrom('categories')
    .select(['id', 'brand_id', 'name', 'is_archived'])
    .where('org_id', '=', orgId)
    .where('id', '=', categoryId)
    .executeTakeFirst();
  return row && categoryRef(row);
}

/** A category and its brand in one statement (the category routes' scope). */
export async function findCategoryWithBrand(
  db: Db,
  orgId: number,
  categoryId: number,
): Promise<{ category: CategoryRef; brand: BrandRef } | undefined> {
  const input = { orgId, categoryId };
  const { rows } = await executeShaped(
    db,
    'findCategoryWithBrand',
    input,
    ({ orgId, categoryId }) =>
      db
        .selectFrom('categories as c')
        .innerJoin('brands as b', (join) =>
          join.onRef('b.org_id', '=', 'c.org_id').onRef('b.id', '=', 'c.brand_id'),
        )
        .select(['c.id', 'c.brand_id', 'c.name', 'c.is_archived', 'b.name as brand_name', 'b.website'])
        .where('c.org_id', '=', orgId)
        .where('c.id', '=', categoryId),
    { lookup: true },
  );
  const row = rows[0];
  return (
    row && {
      category: categoryRef(row),
      brand: { id: row.brand_id, orgId, name: row.brand_name, website: row.website },
    }
  );
}

function categoriesOf(db: Db, orgId: number, brandId: number, filters: CategoryFilters) {
  let query = db
    .selectFrom('categories as c')
    .where('c.org_id', '=', orgId)
    .where('c.brand_id', '=', brandId);
  if (!filters.includeArchived) query = query.where('c.is_archived', '=', 0);
  return query;
}

export async function countCategories(
  db: Db,
  orgId: number,
  brandId: number,
  filters: CategoryFilters,
): Promise<number> {
  const row = await categoriesOf(db, orgId, brandId, filters)
    .select((eb) => eb.fn.countAll().as('n'))
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

/** One page of a brand's categories by name, then grouped queries for the page's aggregates. */
export async function listCategories(
  db: Db,
  orgId: number,
  brandId: number,
  filters: CategoryFilters,
  page: { offset: number; pageSize: number },
): Promise<CategoryRecord[]> {
  const rows = await categoriesOf(db, orgId, brandId, filters)
    .select(lastVisibleRunAt(orgId, 'c.id').as('last_run_at'))
    .select(['c.id', 'c.brand_id', 'c.name', 'c.description', 'c.is_archived', 'c.created_at'])
    .orderBy((eb) => eb.fn('lower', ['c.name']))
    .orderBy('c.id')
    .limit(page.pageSize)
    .offset(page.offset)
    .execute();
  if (rows.length === 0) return [];

  const ids = rows.map((r) => r.id);
  const [prompts, scores] = await Promise.all([
    categoryPromptCounts(db, orgId, ids),
    recentEligibleScores(db, orgId, { brandId, categoryIds: ids }),
  ]);
  return rows.map((row) => ({
    id: row.id,
    brandId: row.brand_id,
    name: row.name,
    description: row.description,
    isArchived: row.is_archived === 1,
    createdAt: row.created_at,
    lastRunAt: row.last_run_at ?? null,
    promptCount: prompts.get(row.id)?.promptCount ?? 0,
    monitoredPromptCount: prompts.get(row.id)?.monitoredPromptCount ?? 0,
    recentScores: scores.get(row.id) ?? [],
  }));
}
