import type { Db } from './connect.ts';

// Lookups behind the analytics routes' 404s and a report's subject: each answers only within
// the caller's organization.

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
export async function liveCategories(
  db: Db,
  orgId: number,
  brandId: number,
): Promise<{ id: number; name: string }[]> {
  return db
    .selectFrom('categories')
    .select(['id', 'name'])
    .where('org_id', '=', orgId)
    .where('brand_id', '=', brandId)
    .where('is_archived', '=', 0)
    .orderBy('id')
    .execute();
}

export async function liveCategoryIds(db: Db, orgId: number, brandId: number): Promise<number[]> {
  return (await liveCategories(db, orgId, brandId)).map((c) => c.id);
}
