// Writes the demo's organizations, people and brand set-up (categories, prompts, competitors).
import { insertRows } from '../db/bulk-insert.ts';
import type { Db } from '../db/connect.ts';
import { insertReturningId, setBrandMergedInto } from '../db/demo.ts';
import { BRANDS, DEMO_BRAND_ID } from './brands.ts';
import { type BrandSpec, ORGS, USERS } from './catalog.ts';
import { DAY_MS } from './timeline.ts';

/** Ids of what was written, for the rows that refer to them. */
export interface CatalogIds {
  orgs: Map<string, number>;
  users: Map<string, number>;
  brands: { spec: BrandSpec; id: number; orgId: number; categories: CategoryIds[] }[];
}

export interface CategoryIds {
  id: number;
  prompts: number[];
  /** Competitor id by canonical key. */
  competitors: Map<string, number>;
}

const iso = (ms: number) => new Date(ms).toISOString();

export async function writeCatalog(db: Db, anchor: number): Promise<CatalogIds> {
  const orgs = new Map<string, number>();
  for (const org of ORGS) {
    const id = await insertReturningId(db, 'organizations', {
      slug: org.slug,
      name: org.name,
      plan: org.plan,
      api_access: org.apiAccess ? 1 : 0,
      timezone: org.timezone,
      free_report_used: org.freeReportUsed ? 1 : 0,
      created_at: iso(anchor - 400 * DAY_MS),
    });
    orgs.set(org.slug, id);
  }
  const orgId = (slug: string) => {
    const id = orgs.get(slug);
    if (id === undefined) throw new Error(`demo refers to unknown organization ${slug}`);
    return id;
  };

  const users = new Map<string, number>();
  for (const user of USERS) {
    const id = await insertReturningId(db, 'users', {
      email: user.email,
      name: user.name,
      created_at: iso(anchor - 380 * DAY_MS),
    });
    users.set(user.email, id);
  }
  await insertRows(
    db,
    'memberships',
    USERS.flatMap((user) =>
      user.memberships.map((m) => ({
        org_id: orgId(m.org),
        user_id: users.get(user.email) as number,
        role: m.role,
        created_at: iso(anchor - 370 * DAY_MS),
      })),
    ),
  );

  const brands: CatalogIds['brands'] = [];
  for (const spec of BRANDS) {
    const created = iso(anchor - (spec.historyFromDaysAgo + 5) * DAY_MS);
    const id = await insertReturningId(db, 'brands', {
      org_id: orgId(spec.org),
      name: spec.name,
      website: spec.website,
      aliases: JSON.stringify(spec.aliases),
      status: spec.status,
      is_demo: spec.isDemo ? 1 : 0,
      merged_into_brand_id: null,
      merged_at: spec.mergedInto ? iso(anchor - (spec.historyUntilDaysAgo - 1) * DAY_MS) : null,
      executive_summary: spec.executiveSummary,
      executive_summary_updated_at: spec.executiveSummary ? iso(anchor - 2 * DAY_MS + 9 * 3_600_000) : null,
      monitoring_interval_hours: 24,
      // Monitoring starts off (the schema's default: asking engines costs money): an imported
      // brand keeps it off, so a worker on the demo database never asks a real engine for it; the
      // brand Sightline monitors itself gets its schedule from write-monitored.ts.
      next_monitored_run_at: null,
      created_at: created,
      updated_at: iso(anchor - spec.historyUntilDaysAgo * DAY_MS + 6 * 3_600_000),
    });
    if (spec.isDemo && id !== DEMO_BRAND_ID) {
      throw new Error(
        `the public demo brand got id ${id}, not ${DEMO_BRAND_ID}: seed the demo into a fresh database`,
      );
    }
    brands.push({
      spec,
      id,
      orgId: orgId(spec.org),
      categories: await writeCategories(db, spec, id, orgId(spec.org), created),
    });
  }

  // A merge points at a brand that exists only once every brand is written.
  for (const brand of brands) {
    if (!brand.spec.mergedInto) continue;
    const target = brands.find((b) => b.spec.name === brand.spec.mergedInto && b.orgId === brand.orgId);
    if (!target) throw new Error(`demo brand ${brand.spec.name} merges into an unknown brand`);
    await setBrandMergedInto(db, brand.orgId, brand.id, target.id);
  }
  return { orgs, users, brands };
}

async function writeCategories(
  db: Db,
  spec: BrandSpec,
  brandId: number,
  orgId: number,
  created: string,
): Promise<CategoryIds[]> {
  const out: CategoryIds[] = [];
  for (const category of spec.categories) {
    const categoryId = await insertReturningId(db, 'categories', {
      org_id: orgId,
      brand_id: brandId,
      name: category.name,
      description: category.description,
      is_archived: category.isArchived ? 1 : 0,
      created_at: created,
    });
    const prompts: number[] = [];
    for (const prompt of category.prompts) {
      prompts.push(
        await insertReturningId(db, 'prompts', {
          org_id: orgId,
          brand_id: brandId,
          category_id: categoryId,
          text: prompt.text,
          external_key: null,
          is_monitored: prompt.isMonitored ? 1 : 0,
          is_archived: prompt.isArchived ? 1 : 0,
          created_at: created,
        }),
      );
    }
    const competitors = await insertRows(
      db,
      'competitors',
      category.competitors.map((c) => ({
        org_id: orgId,
        brand_id: brandId,
        category_id: categoryId,
        name: c.name,
        canonical_key: c.canonicalKey,
        canonical_name: c.canonicalName,
        aliases: JSON.stringify(c.aliases),
        created_at: created,
      })),
      ['id', 'canonical_key'],
    );
    out.push({
      id: categoryId,
      prompts,
      competitors: new Map(competitors.map((c) => [c.canonical_key as string, Number(c.id)])),
    });
  }
  return out;
}
