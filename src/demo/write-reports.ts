// Writes the demo's report artifacts (with their rendered bytes) and recommendations (with their
// artifacts and outcomes).
import type { Db } from '../db/connect.ts';
import { generateReport } from '../reports/generate.ts';
import { insertRows } from './batch.ts';
import type { Prng } from './prng.ts';
import { RECOMMENDATIONS } from './recommendations.ts';
import { REPORTS } from './reports.ts';
import { DAY_MS } from './timeline.ts';
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
    await db
      .insertInto('report_artifacts')
      .values({
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
      })
      .execute();
  }
}

export async function writeRecommendations(
  db: Db,
  ids: CatalogIds,
  anchor: number,
  prng: Prng,
): Promise<void> {
  const recs = [];
  const artifacts = [];
  const outcomes = [];
  for (const spec of RECOMMENDATIONS) {
    const brand = brandOf(ids, spec.brand);
    const id = prng.uuid();
    const createdAt = anchor - spec.createdDaysAgo * DAY_MS + 14 * 3_600_000;
    const changedAt =
      spec.changedDaysAgo === undefined ? null : iso(anchor - spec.changedDaysAgo * DAY_MS + 15 * 3_600_000);
    const deletedAt =
      spec.deletedDaysAgo === undefined ? null : iso(anchor - spec.deletedDaysAgo * DAY_MS + 10 * 3_600_000);
    const moved = spec.status !== 'open';
    recs.push({
      id,
      org_id: brand.orgId,
      brand_id: brand.id,
      category_id: categoryIdOf(brand, spec.category),
      rec_type: spec.recType,
      title: spec.title,
      status: spec.status,
      priority: spec.priority,
      score: spec.score,
      why: spec.why,
      suggested_action: spec.suggestedAction,
      expected_impact: spec.expectedImpact,
      measurement_plan: spec.measurementPlan,
      impact: spec.impact,
      effort: spec.effort,
      confidence: spec.confidence,
      // Work on an implemented recommendation started a week before it shipped.
      started_at:
        spec.status === 'in_progress'
          ? changedAt
          : spec.status === 'implemented' && spec.changedDaysAgo !== undefined
            ? iso(anchor - (spec.changedDaysAgo + 7) * DAY_MS + 15 * 3_600_000)
            : null,
      implemented_at: spec.status === 'implemented' ? changedAt : null,
      dismissed_at: spec.status === 'dismissed' ? changedAt : null,
      superseded_at: spec.status === 'superseded' ? changedAt : null,
      dismissed_reason: spec.dismissedReason ?? '',
      deleted_at: deletedAt,
      created_at: iso(createdAt),
      updated_at: deletedAt ?? (moved && changedAt ? changedAt : iso(createdAt)),
    });
    for (const a of spec.artifacts ?? []) {
      const published = a.status === 'published' ? changedAt : null;
      artifacts.push({
        id: prng.uuid(),
        org_id: brand.orgId,
        recommendation_id: id,
        artifact_type: a.artifactType,
        title: a.title,
        body: a.body,
        target_url: a.targetUrl,
        status: a.status,
        generated_by_model: a.model,
        generation_prompt_version: 'rec-artifacts/v3',
        published_at: published,
        created_at: iso(createdAt + 5 * MINUTE_MS),
        updated_at: published ?? iso(createdAt + 5 * MINUTE_MS),
      });
    }
    for (const o of spec.outcomes ?? []) {
      const baselineAt = changedAt ?? iso(createdAt);
      outcomes.push({
        id: prng.uuid(),
        org_id: brand.orgId,
        recommendation_id: id,
        metric_name: o.metricName,
        metric_subject: o.metricSubject,
        baseline_value: o.baselineValue,
        current_value: o.currentValue,
        baseline_at: baselineAt,
        measured_at: iso(anchor - DAY_MS + 6 * 3_600_000),
        measurement_window_days: o.windowDays,
        attribution_confidence: o.confidence,
        is_measured: o.isMeasured ? 1 : 0,
        notes: o.notes,
      });
    }
  }
  await insertRows(db, 'recommendations', recs);
  await insertRows(db, 'recommendation_artifacts', artifacts);
  await insertRows(db, 'recommendation_outcomes', outcomes);
}
