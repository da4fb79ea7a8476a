import { Type } from 'typebox';
import { IdParam, NullableTimestamp, PageQuery, Paginated, Timestamp } from './common.ts';

export const Archived = Type.Boolean({
  description: 'true also lists archived rows; they are left out by default. Accepts true or false.',
});

export const BrandListQuery = Type.Object({
  archived: Type.Optional(Archived),
  monitoring: Type.Optional(
    Type.Enum(['on', 'off'], {
      description:
        'on: brands with at least one monitored prompt (monitored, not archived, in a live category); off: the others.',
    }),
  ),
  q: Type.Optional(
    Type.String({ maxLength: 200, description: 'Case-insensitive substring of the brand name or website.' }),
  ),
  sort: Type.Optional(
    Type.Enum(['last-run', 'name', 'recent'], {
      description:
        'last-run (default): latest visible run first, never-run brands last; name: A–Z; recent: newest brand first.',
    }),
  ),
  ...PageQuery,
});

export const BrandParams = IdParam('brand_id');

const RunInFlightProgress = Type.Object(
  {
    runId: Type.Optional(Type.String()),
    categoryId: Type.Optional(Type.String()),
    completedPrompts: Type.Optional(Type.Integer()),
    totalPrompts: Type.Optional(Type.Integer()),
    startedAt: Type.Optional(NullableTimestamp),
  },
  { description: 'The newest queued or running run; {} when none is in flight.' },
);

const MergedInto = Type.Object(
  { id: Type.Optional(Type.String()), name: Type.Optional(Type.String()) },
  { description: 'The brand this one was merged into; {} when it was not merged.' },
);

export const Brand = Type.Object(
  {
    id: Type.String(),
    name: Type.String(),
    website: Type.String(),
    averageScore: Type.Number({
      description: 'Mean of each eligible prompt’s latest score (0–100, 1 decimal).',
    }),
    previousScore: Type.Number({ description: 'The same mean over each prompt’s predecessor score.' }),
    hasScoreData: Type.Boolean({
      description: 'false when no eligible prompt has a scored run; both scores are then 0.',
    }),
    categoryCount: Type.Integer({ description: 'Non-archived categories.' }),
    promptCount: Type.Integer({ description: 'Non-archived prompts in non-archived categories.' }),
    monitoredPromptCount: Type.Integer({
      description: 'Eligible prompts: monitored, not archived, live category.',
    }),
    recCount: Type.Integer({ description: 'Recommendations the recommendations endpoint lists.' }),
    lastActivity: Timestamp,
    status: Type.String({ description: 'active, paused, archived or merged.' }),
    hasInFlightRun: Type.Boolean(),
    runInFlightProgress: RunInFlightProgress,
    monitoringRefreshInProgress: Type.Boolean(),
    mergedInto: MergedInto,
    mergedAt: NullableTimestamp,
    orgId: Type.String(),
    orgName: Type.String(),
    executiveSummary: Type.String(),
    executiveSummaryUpdatedAt: NullableTimestamp,
    lastMonitoredRunAt: NullableTimestamp,
    nextMonitoredRunAt: NullableTimestamp,
    nextRunPromptCount: Type.Integer(),
  },
  { $id: 'Brand' },
);

export const BrandList = Paginated('BrandList', Brand);
