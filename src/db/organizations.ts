import type { Db } from './connect.ts';

export const PLANS = ['free', 'starter', 'pro', 'enterprise'] as const;
export type Plan = (typeof PLANS)[number];

export interface Organization {
  id: number;
  slug: string;
  name: string;
  plan: Plan;
  apiAccess: boolean;
  timezone: string;
  freeReportUsed: boolean;
  createdAt: string;
}

type Row = {
  id: number;
  slug: string;
  name: string;
  plan: string;
  api_access: number;
  timezone: string;
  free_report_used: number;
  created_at: string;
};

function toOrganization(row: Row): Organization {
  return {
    id: row.id,
    slug: row.slug,
    name: row.name,
    plan: row.plan as Plan,
    apiAccess: row.api_access === 1,
    timezone: row.timezone,
    freeReportUsed: row.free_report_used === 1,
    createdAt: row.created_at,
  };
}

export async function listOrganizations(db: Db): Promise<Organization[]> {
  const rows = await db.selectFrom('organizations').selectAll().orderBy('slug').execute();
  return rows.map(toOrganization);
}

export async function findOrganizationBySlug(db: Db, slug: string): Promise<Organization | undefined> {
  const row = await db.selectFrom('organizations').selectAll().where('slug', '=', slug).executeTakeFirst();
  return row ? toOrganization(row) : undefined;
}

/** The new organization; undefined when one has the slug already (checked by the insert itself). */
export async function createOrganization(
  db: Db,
  input: { slug: string; name: string; plan: Plan; apiAccess: boolean; timezone: string },
): Promise<Organization | undefined> {
  const row = await db
    .insertInto('organizations')
    .values({
      slug: input.slug,
      name: input.name,
      plan: input.plan,
      api_access: input.apiAccess ? 1 : 0,
      timezone: input.timezone,
      free_report_used: 0,
      created_at: new Date().toISOString(),
    })
    .onConflict((oc) => oc.column('slug').doNothing())
    .returningAll()
    .executeTakeFirst();
  return row && toOrganization(row);
}

export async function updateOrganization(
  db: Db,
  slug: string,
  changes: { plan?: Plan; apiAccess?: boolean; timezone?: string; freeReportUsed?: boolean },
): Promise<Organization | undefined> {
  const values: Partial<Row> = {};
  if (changes.plan !== undefined) values.plan = changes.plan;
  if (changes.apiAccess !== undefined) values.api_access = changes.apiAccess ? 1 : 0;
  if (changes.timezone !== undefined) values.timezone = changes.timezone;
  if (changes.freeReportUsed !== undefined) values.free_report_used = changes.freeReportUsed ? 1 : 0;
  if (Object.keys(values).length > 0) {
    await db.updateTable('organizations').set(values).where('slug', '=', slug).execute();
  }
  return findOrganizationBySlug(db, slug);
}
