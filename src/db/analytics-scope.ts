import type { Db } from './connect.ts';

// Lookups behind the analytics routes' 404s: each answers only within the caller's organization.

export interface BrandRef {
  id: number;
  name: string;
}

export interface CategoryRef {
  id: number;
  brandId: number;
  name: string;
}

export async function findBrandRef(db: Db, orgId: number, brandId: number): Promise<BrandRef | undefined> {
  return db
    .selectFrom('brands')
    .select(['id', 'name'])
    .where('org_id', '=', orgId)
    .where('id', '=', brandId)
    .executeTakeFirst();
}

export async function findCategoryRef(
  db: Db,
  orgId: number,
  categoryId: number,
): Promise<CategoryRef | undefined> {
  return db
    .selectFrom('categories')
    .select(['id', 'brand_id as brandId', 'name'])
    .where('org_id', '=', orgId)
    .where('id', '=', categoryId)
    .executeTakeFirst();
}

export async function findPromptRef(
  db: Db,
  orgId: number,
  promptId: number,
): Promise<{ id: number } | undefined> {
  return db
    .selectFrom('prompts')
    .select('id')
    .where('org_id', '=', orgId)
    .where('id', '=', promptId)
    .executeTakeFirst();
}

/** The brand's non-archived categories, oldest first. */
export async function liveCategoryIds(db: Db, orgId: number, brandId: number): Promise<number[]> {
  const rows = await db
    .selectFrom('categories')
    .select('id')
    .where('org_id', '=', orgId)
    .where('brand_id', '=', brandId)
    .where('is_archived', '=', 0)
    .orderBy('id')
    .execute();
  return rows.map((r) => r.id);
}
