// The demo generator's writes (src/demo): rows it has shaped itself, with the timestamps and the
// fields (is_demo, merges, executive summaries) no operator command sets, written as given.
import type { Insertable } from 'kysely';
import type { Db } from './connect.ts';
import type { Database } from './types.ts';

type WithId = 'organizations' | 'users' | 'brands' | 'categories' | 'prompts';

/** Inserts one row and answers its new id. */
export async function insertReturningId<T extends WithId>(
  db: Db,
  table: T,
  row: Insertable<Database[T]>,
): Promise<number> {
  // Kysely cannot follow a table name that is a type parameter; `row` was checked against it above.
  const inserted = await db
    .insertInto(table as WithId)
    .values(row as never)
    .returning('id')
    .executeTakeFirstOrThrow();
  return inserted.id;
}

export function setBrandMergedInto(db: Db, orgId: number, brandId: number, targetId: number) {
  return db
    .updateTable('brands')
    .set({ merged_into_brand_id: targetId })
    .where('org_id', '=', orgId)
    .where('id', '=', brandId)
    .execute();
}

/** Why this database cannot take the demo (it has brands, or one of its organizations), if so. */
export async function demoSeedConflict(db: Db, orgSlugs: readonly string[]): Promise<string | undefined> {
  const taken = await db.selectFrom('organizations').select('slug').where('slug', 'in', orgSlugs).execute();
  if (taken.length > 0) return `organization "${taken[0]?.slug}" already exists`;
  const brand = await db.selectFrom('brands').select('id').limit(1).executeTakeFirst();
  return brand ? 'it already has brands' : undefined;
}
