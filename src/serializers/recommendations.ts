import type { RecommendationRow } from '../db/recommendations.ts';

// Response shaping of a recommendation with its artifacts and outcomes, in the contract's names.

export function presentRecommendation(row: RecommendationRow) {
  return {
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
    artifacts: row.artifacts.map((a) => ({
      id: a.id,
      artifactType: a.artifact_type,
      title: a.title,
      body: a.body,
      targetUrl: a.target_url,
      status: a.status,
      generatedByModel: a.generated_by_model,
      generationPromptVersion: a.generation_prompt_version,
      publishedAt: a.published_at,
      createdAt: a.created_at,
      updatedAt: a.updated_at,
    })),
    outcomes: row.outcomes.map((o) => ({
      id: o.id,
      metricName: o.metric_name,
      metricSubject: o.metric_subject,
      baselineValue: o.baseline_value,
      currentValue: o.current_value,
      baselineAt: o.baseline_at,
      measuredAt: o.measured_at,
      measurementWindowDays: o.measurement_window_days,
      attributionConfidence: o.attribution_confidence,
      isMeasured: o.is_measured === 1,
      notes: o.notes,
    })),
  };
}

export type Recommendation = ReturnType<typeof presentRecommendation>;
