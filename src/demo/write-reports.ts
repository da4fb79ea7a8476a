// Writes the demo's report artifacts (with their rendered bytes).
import { insertRows } from '../db/bulk-insert.ts';
import type { Db } from '../db/connect.ts';
import { generateReport } from '../reports/generate.ts';
import type { Prng } from './prng.ts';
import { REPORTS } from './reports.ts';
import type { CatalogIds } from './write-catalog.ts';

const MINUTE_MS = 60_000;
const iso = (ms: number) => new Date(ms).toISOString();

function brandOf(ids: CatalogIds, name: string) {
  const brand = ids.brands.find((b) => b.spec.name === name);
  if (!brand) throw new Error(`demo refers to unknown brand ${name}`);
  return brand;
}

function categoryIdOf(brand: ReturnType<typeof brandOf>, index: number | null): number | null {
  if (index === null) return null;
  const category = brand.categories[index];
  if (!category) throw new Error(`demo brand ${brand.spec.name} has no category ${index}`);
  return category.id;
}

export async function writeReports(db: Db, ids: CatalogIds, anchor: number, prng: Prng): Promise<void> {
  for (const spec of REPORTS) {
    const brand = brandOf(ids, spec.brand);
    const createdAt = anchor - spec.createdMinutesAgo * MINUTE_MS;
    const userId = spec.generatedBy === null ? null : (ids.users.get(spec.generatedBy) ?? null);
    if (spec.status === 'complete') {
      // Complete reports are real ones: the report generator renders the brand's figures as of
      // the report's creation, exactly as `sightline reports generate` would have then.
      await generateReport(
        db,
        {
          orgId: brand.orgId,
          brandId: brand.id,
          categoryId: categoryIdOf(brand, spec.category),
          reportType: spec.reportType,
          format: spec.format,
          userId,
          branded: spec.isBranded,
        },
        { now: new Date(createdAt), clock: () => new Date(createdAt + spec.tookMinutes * MINUTE_MS) },
      );
      continue;
    }
    await insertRows(db, 'report_artifacts', [
      {
        org_id: brand.orgId,
        brand_id: brand.id,
        category_id: categoryIdOf(brand, spec.category),
        report_type: spec.reportType,
        status: spec.status,
        format: spec.format,
        created_at: iso(createdAt),
        completed_at: null,
        error_message: spec.errorMessage ?? '',
        agent_name: spec.agent.name,
        agent_version: spec.agent.version,
        cost_usd: spec.costUsd,
        kg_generation_job: spec.reportType === 'in_depth_report' ? `kg-${prng.uuid()}` : '',
        evidence_refs_count: 0,
        is_branded: spec.isBranded ? 1 : 0,
        aborted_reason: spec.abortedReason ?? '',
        generated_by_user_id: userId,
      },
    ]);
  }
}
