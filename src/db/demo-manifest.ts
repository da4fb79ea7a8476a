// The demo manifest's lookups (src/demo/manifest.ts): where the named fixtures are, read back from
// the data by fixed rules rather than stored, so a database seeded once gives the same manifest
// however often it is asked for.
import { sql } from 'kysely';
import type { Db } from './connect.ts';
import { visibleRun } from './predicates.ts';
import { latestReportArtifact } from './reports.ts';

export interface DemoManifest {
  orgs: Record<string, { brandIds: number[] }>;
  demoBrandId: number;
  unpublishedRunId: number;
  legacyRunId: number;
  inFlightRunId: number;
  bigRunId: number;
  archivedBrandId: number;
  archivedCategoryId: number;
  reports: {
    completePdfId: number;
    completeHtmlId: number;
    pendingId: number;
    failedId: number;
    /** What GET /api/brands/{demo}/reports/latest/?type=in_depth_report answers (complete). */
    latestInDepthId: number;
  };
  recommendations: { supersededId: string; deletedId: string };
  responses: { withTextId: number; withoutTextId: number; withHtmlId: number };
}

function required<T>(value: T | undefined, what: string): T {
  if (value === undefined) throw new Error(`the demo data is incomplete: no ${what} found`);
  return value;
}

/**
 * The manifest of the demo in this database: `demoOrg` holds the public demo brand, `orgSlugs` are
 * the demo's organizations. Undefined when the demo was never seeded.
 */
export async function readDemoManifest(
  db: Db,
  demoOrg: string,
  orgSlugs: readonly string[],
): Promise<DemoManifest | undefined> {
  const acme = await db
    .selectFrom('organizations')
    .select('id')
    .where('slug', '=', demoOrg)
    .executeTakeFirst();
  if (!acme) return undefined;
  const org = acme.id;
  const demo = await db
    .selectFrom('brands')
    .select('id')
    .where('org_id', '=', org)
    .where('is_demo', '=', 1)
    .orderBy('id')
    .executeTakeFirst();
  if (!demo) return undefined;
  const brand = demo.id;

  const orgs: DemoManifest['orgs'] = {};
  for (const slug of orgSlugs) {
    const rows = await db
      .selectFrom('brands as b')
      .innerJoin('organizations as o', 'o.id', 'b.org_id')
      .select('b.id')
      .where('o.slug', '=', slug)
      .orderBy('b.id')
      .execute();
    orgs[slug] = { brandIds: rows.map((r) => r.id) };
  }

  const runs = db
    .selectFrom('runs as r')
    .select('r.id')
    .where('r.org_id', '=', org)
    .where('r.brand_id', '=', brand);
  const unpublished = await runs
    .where('r.status', '=', 'completed')
    .where('r.is_legacy', '=', 0)
    .where('r.published_at', 'is', null)
    .orderBy('r.id', 'desc')
    .executeTakeFirst();
  const legacy = await runs
    .innerJoin('categories as c', 'c.id', 'r.category_id')
    .where('r.is_legacy', '=', 1)
    .where('r.status', '=', 'completed')
    .where('c.is_archived', '=', 0)
    .orderBy('r.finished_at', 'desc')
    .orderBy('r.id', 'desc')
    .executeTakeFirst();
  const inFlight = await runs.where('r.status', '=', 'running').orderBy('r.id', 'desc').executeTakeFirst();
  const big = await db
    .selectFrom('responses')
    .select(['run_id', sql<number>`count(*)`.as('n')])
    .where('org_id', '=', org)
    .where('brand_id', '=', brand)
    .groupBy('run_id')
    .having(sql<number>`count(*)`, '>', 500)
    .orderBy('run_id')
    .executeTakeFirst();

  const archivedBrand = await db
    .selectFrom('brands')
    .select('id')
    .where('org_id', '=', org)
    .where('status', '=', 'archived')
    .orderBy('id')
    .executeTakeFirst();
  const archivedCategory = await db
    .selectFrom('categories')
    .select('id')
    .where('org_id', '=', org)
    .where('brand_id', '=', brand)
    .where('is_archived', '=', 1)
    .orderBy('id')
    .executeTakeFirst();

  const reports = db
    .selectFrom('report_artifacts as a')
    .select('a.id')
    .where('a.org_id', '=', org)
    .where('a.brand_id', '=', brand)
    .orderBy('a.id');
  const pdfIds = db
    .selectFrom('report_files')
    .select('artifact_id')
    .where('org_id', '=', org)
    .where('kind', '=', 'pdf');
  const completePdf = await reports
    .where('a.status', '=', 'complete')
    .where('a.id', 'in', pdfIds)
    .executeTakeFirst();
  const completeHtml = await reports
    .where('a.status', '=', 'complete')
    .where('a.format', '=', 'html')
    .where('a.id', 'not in', pdfIds)
    .executeTakeFirst();
  const pending = await reports.where('a.status', 'in', ['queued', 'running']).executeTakeFirst();
  const failed = await reports.where('a.status', '=', 'failed').executeTakeFirst();
  // What the latest-report endpoint answers for the README's example.
  const latestInDepth = await latestReportArtifact(db, org, brand, 'in_depth_report');

  const recs = db
    .selectFrom('recommendations')
    .select('id')
    .where('org_id', '=', org)
    .where('brand_id', '=', brand)
    .orderBy('created_at')
    .orderBy('id');
  const superseded = await recs
    .where('status', '=', 'superseded')
    .where('deleted_at', 'is', null)
    .executeTakeFirst();
  const deleted = await recs.where('deleted_at', 'is not', null).executeTakeFirst();

  // Responses of visible sample_v1 runs, so GET /api/responses/{id}/ answers 200 for both.
  const responses = db
    .selectFrom('responses as x')
    .innerJoin('runs as r', 'r.id', 'x.run_id')
    .select('x.id')
    .where('x.org_id', '=', org)
    .where('x.brand_id', '=', brand)
    .where('r.is_legacy', '=', 0)
    .where(visibleRun)
    .orderBy('x.id');
  const withText = await responses
    .where('x.outcome', '=', 'ok')
    .where('x.answer_text', 'is not', null)
    .executeTakeFirst();
  const withoutText = await responses.where('x.answer_text', 'is', null).executeTakeFirst();
  // An answer read off a web page (API answers have no HTML) that names the brand, so
  // ?includeHtml=true shows the rendered answer and the mention together.
  const withHtml = await responses
    .where('x.outcome', '=', 'ok')
    .where('x.mentioned', '=', 1)
    .where('x.answer_html', 'is not', null)
    .where('x.answer_html', '!=', '')
    .executeTakeFirst();

  return {
    orgs,
    demoBrandId: brand,
    unpublishedRunId: required(unpublished, 'unpublished run').id,
    legacyRunId: required(legacy, 'legacy run').id,
    inFlightRunId: required(inFlight, 'in-flight run').id,
    bigRunId: required(big, 'run with more than 500 responses').run_id,
    archivedBrandId: required(archivedBrand, 'archived brand').id,
    archivedCategoryId: required(archivedCategory, 'archived category').id,
    reports: {
      completePdfId: required(completePdf, 'complete PDF report').id,
      completeHtmlId: required(completeHtml, 'complete HTML-only report').id,
      pendingId: required(pending, 'pending report').id,
      failedId: required(failed, 'failed report').id,
      latestInDepthId: required(latestInDepth, 'in-depth report').id,
    },
    recommendations: {
      supersededId: required(superseded, 'superseded recommendation').id,
      deletedId: required(deleted, 'soft-deleted recommendation').id,
    },
    responses: {
      withTextId: required(withText, 'response with text').id,
      withoutTextId: required(withoutText, 'response without text').id,
      withHtmlId: required(withHtml, 'response with HTML that mentions the brand').id,
    },
  };
}
