import { Type } from 'typebox';
import { IdParam, NullableTimestamp, PageQuery, Paginated, Timestamp } from './common.ts';

export const RecommendationArtifact = Type.Object(
  {
    id: Type.String(),
    artifactType: Type.String(),
    title: Type.String(),
    body: Type.String({ description: 'The full generated content.' }),
    targetUrl: Type.String(),
    status: Type.String({ description: 'draft, ready or published.' }),
    generatedByModel: Type.String(),
    generationPromptVersion: Type.String(),
    publishedAt: NullableTimestamp,
    createdAt: Timestamp,
    updatedAt: Timestamp,
  },
  { $id: 'RecommendationArtifact' },
);

export const RecommendationOutcome = Type.Object(
  {
    id: Type.String(),
    metricName: Type.String(),
    metricSubject: Type.String({ description: 'May be empty.' }),
    baselineValue: Type.Number(),
    currentValue: Type.Number(),
    baselineAt: Timestamp,
    measuredAt: Timestamp,
    measurementWindowDays: Type.Integer(),
    attributionConfidence: Type.String(),
    isMeasured: Type.Boolean(),
    notes: Type.String(),
  },
  { $id: 'RecommendationOutcome' },
);

export const Recommendation = Type.Object(
  {
    id: Type.String({ description: 'UUID-style identifier.' }),
    recType: Type.String(),
    title: Type.String(),
    status: Type.String({
      description: 'open, in_progress, implemented or dismissed (superseded rows are not listed).',
    }),
    priority: Type.String({ description: 'high, medium or low.' }),
    score: Type.Number(),
    why: Type.String({ description: 'The rationale.' }),
    suggestedAction: Type.String(),
    expectedImpact: Type.String(),
    measurementPlan: Type.String(),
    scoreBreakdown: Type.Object({ impact: Type.Number(), effort: Type.Number(), confidence: Type.Number() }),
    startedAt: NullableTimestamp,
    implementedAt: Type.Union([Timestamp, Type.Null()], { description: 'The shipped date.' }),
    dismissedAt: NullableTimestamp,
    supersededAt: NullableTimestamp,
    dismissedReason: Type.String({ description: 'Empty when none.' }),
    createdAt: Timestamp,
    updatedAt: Timestamp,
    artifacts: Type.Array(RecommendationArtifact),
    outcomes: Type.Array(RecommendationOutcome),
  },
  { $id: 'Recommendation' },
);

export const RecommendationList = Paginated('RecommendationList', Recommendation);
export const RecommendationParams = IdParam('brand_id');
export const RecommendationQuery = Type.Object({ ...PageQuery });
