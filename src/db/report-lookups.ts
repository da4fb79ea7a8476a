import type { Db } from './connect.ts';
import { eligiblePromptsOf } from './predicates.ts';

// The rows report generation starts from. Scoped by organization, except `brandOrganization`,
// which is how an operator's `--brand ID` finds the organization to scope everything else by.

export interface ReportOrganization {
  id: number;
  name: string;
  timezone: string;
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
  const categoryIds = categoryId === null ? undefined : [categoryId];
  return eligiblePromptsOf(db, orgId, { brandId, categoryIds })
    .select(['p.id', 'p.text', 'c.name as categoryName'])
    .orderBy('c.id')
    .orderBy('p.id')
    .execute();
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
