import type { Config } from '../../src/config.ts';
import type { Db } from '../../src/db/connect.ts';
import { type DemoManifest, findDemoManifest } from '../../src/demo/seed.ts';
import { SCOPES, type Scope } from '../../src/domain/scopes.ts';
import { createTestContext, type TestContext, type TestContextOptions } from './context.ts';
import { mintKey } from './fixtures.ts';
import { PINNED_DEMO_NOW } from './templates.ts';

// A test context on a copy of the demo data (seeded once per pass by the runner: templates.ts),
// the acme objects the endpoint table needs, and a key for every demo organization.

export const DEMO_ORGS = ['acme', 'globex', 'initech', 'umbrella', 'hooli'] as const;
export type DemoOrg = (typeof DEMO_ORGS)[number];

/** Acme objects that answer 200 on every endpoint, read from the manifest and the seeded rows. */
export interface DemoFixtures {
  /** The public demo brand (acme). */
  brandId: number;
  /** Another active acme brand that is not the demo brand. */
  plainBrandId: number;
  /** A non-archived category of the demo brand that has visible runs. */
  categoryId: number;
  /** A monitored prompt of that category with at least two scored runs. */
  promptId: number;
  /** The category's latest visible completed run. */
  runId: number;
  /** A response with answer text. */
  responseId: number;
  /** A complete artifact with a PDF: its brand and type serve the brand-scoped report endpoints. */
  report: { id: number; brandId: number; type: string };
}

export interface DemoContext {
  ctx: TestContext;
  manifest: DemoManifest;
  fixtures: DemoFixtures;
  orgIds: Record<DemoOrg, number>;
  /** Every brand of each organization, from the manifest. */
  brandIds: Record<DemoOrg, number[]>;
  /** An all-scopes key per organization. */
  keys: Record<DemoOrg, string>;
  /** Mints another key (e.g. with fewer scopes or revoked) for a demo organization. */
  mint(org: DemoOrg, options?: Parameters<typeof mintKey>[2]): Promise<string>;
}

/** Visible = completed, and legacy or published (decisions.md, Scoring). */
async function latestVisibleRun(db: Db, acme: number, categoryId: number): Promise<number | undefined> {
  const row = await db
    .selectFrom('runs')
    .select('id')
    .where('org_id', '=', acme)
    .where('category_id', '=', categoryId)
    .where('status', '=', 'completed')
    .where((eb) => eb.or([eb('is_legacy', '=', 1), eb('published_at', 'is not', null)]))
    .orderBy('finished_at', 'desc')
    .orderBy('id', 'desc')
    .executeTakeFirst();
  return row?.id;
}

async function resolveFixtures(db: Db, manifest: DemoManifest, acme: number): Promise<DemoFixtures> {
  const brandId = manifest.demoBrandId;
  const plain = await db
    .selectFrom('brands')
    .select('id')
    .where('org_id', '=', acme)
    .where('status', '=', 'active')
    .where('id', '!=', brandId)
    .orderBy('id')
    .executeTakeFirstOrThrow();

  const categories = await db
    .selectFrom('categories')
    .select('id')
    .where('org_id', '=', acme)
    .where('brand_id', '=', brandId)
    .where('is_archived', '=', 0)
    .orderBy('id')
    .execute();
  let categoryId: number | undefined;
  let runId: number | undefined;
  for (const candidate of categories) {
    runId = await latestVisibleRun(db, acme, candidate.id);
    if (runId !== undefined) {
      categoryId = candidate.id;
      break;
    }
  }
  if (categoryId === undefined || runId === undefined) {
    throw new Error('the demo brand has no live category with visible runs');
  }

  const prompt = await db
    .selectFrom('run_prompt_scores as s')
    .innerJoin('prompts as p', 'p.id', 's.prompt_id')
    .select('s.prompt_id')
    .where('s.org_id', '=', acme)
    .where('s.category_id', '=', categoryId)
    .where('p.is_monitored', '=', 1)
    .where('p.is_archived', '=', 0)
    .groupBy('s.prompt_id')
    .having((eb) => eb.fn.countAll(), '>=', 2)
    .orderBy('s.prompt_id')
    .executeTakeFirstOrThrow();

  const reportId = manifest.reports.completePdfId;
  const artifact = await db
    .selectFrom('report_artifacts')
    .select(['brand_id', 'report_type'])
    .where('org_id', '=', acme)
    .where('id', '=', reportId)
    .executeTakeFirstOrThrow();

  return {
    brandId,
    plainBrandId: plain.id,
    categoryId,
    promptId: prompt.prompt_id,
    runId,
    responseId: manifest.responses.withTextId,
    report: { id: reportId, brandId: artifact.brand_id, type: artifact.report_type },
  };
}

export async function createDemoContext(
  overrides: Partial<Config> = {},
  options: TestContextOptions = {},
): Promise<DemoContext> {
  // The demo template was seeded on a pinned day; the app's clock starts on that morning and runs
  // (key-cache lifetimes and the like still pass), unless the test stops it.
  const offset = PINNED_DEMO_NOW.getTime() - Date.now();
  const ctx = await createTestContext(overrides, {
    clock: () => new Date(Date.now() + offset),
    ...options,
    template: 'demo',
  });
  // A failed look-up must not leave the app and its database handles open: the file would hang.
  try {
    const manifest = await findDemoManifest(ctx.dbs.primary);
    if (!manifest) throw new Error('the demo database has no manifest');
    const rows = await ctx.dbs.primary.selectFrom('organizations').select(['id', 'slug']).execute();
    const orgIds = Object.fromEntries(rows.map((row) => [row.slug, row.id])) as Record<DemoOrg, number>;
    const brandIds = {} as Record<DemoOrg, number[]>;
    for (const org of DEMO_ORGS) {
      const brands = manifest.orgs[org]?.brandIds;
      if (orgIds[org] === undefined || !brands) throw new Error(`the demo has no organization ${org}`);
      brandIds[org] = brands;
    }

    const mint = (org: DemoOrg, keyOptions?: Parameters<typeof mintKey>[2]) =>
      mintKey(ctx.dbs.primary, orgIds[org], { pepper: ctx.config.keyPepper, ...keyOptions });
    const keys = {} as Record<DemoOrg, string>;
    for (const org of DEMO_ORGS) keys[org] = await mint(org);

    const fixtures = await resolveFixtures(ctx.dbs.primary, manifest, orgIds.acme);
    return { ctx, manifest, fixtures, orgIds, brandIds, keys, mint };
  } catch (error) {
    await ctx.close();
    throw error;
  }
}

/** The scopes of a key that lacks exactly `scope`. */
export const allScopesBut = (scope: Scope): Scope[] => SCOPES.filter((s) => s !== scope);
