import { sql } from 'kysely';
import type { Db } from './connect.ts';

// The recommendations the dashboard shows for a brand: everything except superseded and
// soft-deleted rows, with each one's generated artifacts and measured outcomes.

export interface RecommendationArtifact {
  id: string;
  artifactType: string;
  title: string;
  body: string;
  targetUrl: string;
  status: string;
  generatedByModel: string;
  generationPromptVersion: string;
  publishedAt: string | null;
  createdAt: string;
  updatedAt: string;
}

export interface RecommendationOutcome {
  id: string;
  metricName: string;
  metricSubject: string;
  baselineValue: number;
  currentValue: number;
  baselineAt: string;
  measuredAt: string;
  measurementWindowDays: number;
  attributionConfidence: string;
  isMeasured: boolean;
  notes: string;
}

export interface Recommendation {
  id: string;
  recType: string;
  title: string;
  status: string;
  priority: string;
  score: number;
  why: string;
  suggestedAction: string;
  expectedImpact: string;
  measurementPlan: string;
  scoreBreakdown: { impact: number; effort: number; confidence: number };
  startedAt: string | null;
  implementedAt: string | null;
  dismissedAt: string | null;
  supersededAt: string | null;
  dismissedReason: string;
  createdAt: string;
  updatedAt: string;
  artifacts: RecommendationArtifact[];
  outcomes: RecommendationOutcome[];
}

function listed(db: Db, orgId: number, brandId: number) {
  return db
    .selectFrom('recommendations')
    .where('org_id', '=', orgId)
    .where('brand_id', '=', brandId)
    .where('status', '<>', 'superseded')
    .where('superseded_at', 'is', null)
    .where('deleted_at', 'is', null);
}

// Priorities outside the three buckets (none are expected) sort after low rather than vanish.
const priorityBucket = sql<number>`case priority when 'high' then 0 when 'medium' then 1 when 'low' then 2 else 3 end`;

function groupByRecommendation<R extends { recommendation_id: string }, T>(
  rows: readonly R[],
  map: (row: R) => T,
): Map<string, T[]> {
  const groups = new Map<string, T[]>();
  for (const row of rows) {
    const list = groups.get(row.recommendation_id) ?? [];
    list.push(map(row));
    groups.set(row.recommendation_id, list);
  }
  return groups;
}

async function artifactsOf(db: Db, orgId: number, ids: string[]) {
  const rows = await db
    .selectFrom('recommendation_artifacts')
    .selectAll()
    .where('org_id', '=', orgId)
    .where('recommendation_id', 'in', ids)
    .orderBy('created_at')
    .orderBy('id')
    .execute();
  return groupByRecommendation(
    rows,
    (row): RecommendationArtifact => ({
      id: row.id,
      artifactType: row.artifact_type,
      title: row.title,
      body: row.body,
      targetUrl: row.target_url,
      status: row.status,
      generatedByModel: row.generated_by_model,
      generationPromptVersion: row.generation_prompt_version,
      publishedAt: row.published_at,
      createdAt: row.created_at,
      updatedAt: row.updated_at,
    }),
  );
}

async function outcomesOf(db: Db, orgId: number, ids: string[]) {
  const rows = await db
    .selectFrom('recommendation_outcomes')
    .selectAll()
    .where('org_id', '=', orgId)
    .where('recommendation_id', 'in', ids)
    .orderBy('measured_at')
    .orderBy('id')
    .execute();
  return groupByRecommendation(
    rows,
    (row): RecommendationOutcome => ({
      id: row.id,
      metricName: row.metric_name,
      metricSubject: row.metric_subject,
      baselineValue: row.baseline_value,
      currentValue: row.current_value,
      baselineAt: row.baseline_at,
      measuredAt: row.measured_at,
      measurementWindowDays: row.measurement_window_days,
      attributionConfidence: row.attribution_confidence,
      isMeasured: row.is_measured === 1,
      notes: row.notes,
    }),
  );
}

/**
 * One page of a brand's listed recommendations: priority bucket (high, medium, low), then score
 * descending, then newest first, then id so that equal rows keep a stable order across pages.
 * Three queries per page whatever its size: the page, its artifacts, its outcomes.
 */
export async function listRecommendations(
  db: Db,
  orgId: number,
  brandId: number,
  page: { offset: number; pageSize: number },
): Promise<{ count: number; recommendations: Recommendation[] }> {
  const total = await listed(db, orgId, brandId)
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .executeTakeFirstOrThrow();
  const count = Number(total.n);
  // Past the end there is nothing to read, and an absurd page number never reaches the database.
  if (page.offset >= count) return { count, recommendations: [] };
  const rows = await listed(db, orgId, brandId)
    .selectAll()
    .orderBy(priorityBucket)
    .orderBy('score', 'desc')
    .orderBy('created_at', 'desc')
    .orderBy('id')
    .limit(page.pageSize)
    .offset(page.offset)
    .execute();
  const ids = rows.map((row) => row.id);
  const [artifacts, outcomes] = await Promise.all([artifactsOf(db, orgId, ids), outcomesOf(db, orgId, ids)]);
  const recommendations = rows.map((row) => ({
    id: row.id,
    recType: row.rec_type,
    title: row.title,
    status: row.status,
    priority: row.priority,
    score: row.score,
    why: row.why,
    suggestedAction: row.suggested_action,
    expectedImpact: row.expected_impact,
    measurementPlan: row.measurement_plan,
    scoreBreakdown: { impact: row.impact, effort: row.effort, confidence: row.confidence },
    startedAt: row.started_at,
    implementedAt: row.implemented_at,
    dismissedAt: row.dismissed_at,
    supersededAt: row.superseded_at,
    dismissedReason: row.dismissed_reason,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
    artifacts: artifacts.get(row.id) ?? [],
    outcomes: outcomes.get(row.id) ?? [],
  }));
  return { count, recommendations };
}
