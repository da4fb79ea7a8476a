import type { Db } from '../db/connect.ts';

// The rows report generation starts from. Scoped by organization, except `brandOrganization`,
// which is how an operator's `--brand ID` finds the organization to scope everything else by.

export interface ReportOrganization {
  id: number;
  name: string;
  timezone: string;
}

export interface ReportSubjectBrand {
  id: number;
  name: string;
  website: string;
}

export interface ReportSubjectCategory {
  id: number;
  brandId: number;
  name: string;
  isArchived: boolean;
}

export async function brandOrganization(db: Db, brandId: number): Promise<number | undefined> {
  const row = await db.selectFrom('brands').select('org_id').where('id', '=', brandId).executeTakeFirst();
  return row?.org_id;
}

export async function findOrganization(db: Db, orgId: number): Promise<ReportOrganization | undefined> {
  return db
    .selectFrom('organizations')
    .select(['id', 'name', 'timezone'])
    .where('id', '=', orgId)
    .executeTakeFirst();
}

export async function findSubjectBrand(
  db: Db,
  orgId: number,
  brandId: number,
): Promise<ReportSubjectBrand | undefined> {
  return db
    .selectFrom('brands')
    .select(['id', 'name', 'website'])
    .where('org_id', '=', orgId)
    .where('id', '=', brandId)
    .executeTakeFirst();
}

export async function findSubjectCategory(
  db: Db,
  orgId: number,
  categoryId: number,
): Promise<ReportSubjectCategory | undefined> {
  const row = await db
    .selectFrom('categories')
    .select(['id', 'brand_id', 'name', 'is_archived'])
    .where('org_id', '=', orgId)
    .where('id', '=', categoryId)
    .executeTakeFirst();
  return row && { id: row.id, brandId: row.brand_id, name: row.name, isArchived: row.is_archived === 1 };
}

/** The id of the organization member with this e-mail (case-insensitive), if there is one. */
export async function findMemberId(db: Db, orgId: number, email: string): Promise<number | undefined> {
  const row = await db
    .selectFrom('users as u')
    .innerJoin('memberships as m', 'm.user_id', 'u.id')
    .select('u.id')
    .where('m.org_id', '=', orgId)
    .where((eb) => eb(eb.fn('lower', ['u.email']), '=', email.toLowerCase()))
    .executeTakeFirst();
  return row?.id;
}

/** The brand's non-archived categories, oldest first (as category-deltas lists them). */
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

export interface EligiblePrompt {
  id: number;
  text: string;
  categoryName: string;
}

/** Monitored, non-archived prompts in non-archived categories of the brand (or one category). */
export async function eligiblePrompts(
  db: Db,
  orgId: number,
  brandId: number,
  categoryId: number | null,
): Promise<EligiblePrompt[]> {
  let query = db
    .selectFrom('prompts as p')
    .innerJoin('categories as c', 'c.id', 'p.category_id')
    .select(['p.id', 'p.text', 'c.name as categoryName'])
    .where('p.org_id', '=', orgId)
    .where('c.org_id', '=', orgId)
    .where('p.brand_id', '=', brandId)
    .where('p.is_monitored', '=', 1)
    .where('p.is_archived', '=', 0)
    .where('c.is_archived', '=', 0);
  if (categoryId !== null) query = query.where('p.category_id', '=', categoryId);
  return query.orderBy('c.id').orderBy('p.id').execute();
}

/** When each of these runs finished. */
export async function runFinishTimes(
  db: Db,
  orgId: number,
  runIds: readonly number[],
): Promise<Map<number, string>> {
  if (runIds.length === 0) return new Map();
  const rows = await db
    .selectFrom('runs')
    .select(['id', 'finished_at'])
    .where('org_id', '=', orgId)
    .where('id', 'in', runIds)
    .execute();
  return new Map(
    rows.flatMap((r) => (r.finished_at ? [[r.id, new Date(r.finished_at).toISOString()] as const] : [])),
  );
}
