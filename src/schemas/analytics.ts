import { Type } from 'typebox';
import { SUPPRESSED_REASONS } from '../domain/deltas.ts';
import { NO_INTERVAL_REASONS, SIGNIFICANCES } from '../domain/uncertainty.ts';
import { RANGES } from '../domain/windows.ts';
import { IdParam, Nullable, NullableTimestamp, Timestamp } from './common.ts';

// Analytics, score history, category deltas and the prompt change feed (api.md "Analytics
// response", "Score history", "Category deltas", "Prompt changes"). Numbers are rounded at the
// edge: scores 1 decimal, rates and shares 4, ranks 2.

const QueryText = (description: string) => Type.Optional(Type.String({ maxLength: 64, description }));

const WindowParameters = {
  range: Type.Optional(
    Type.Enum([...RANGES], {
      description:
        '7d, 30d (default), 90d, all or custom. 7d/30d/90d end now; all starts at the first observation.',
    }),
  ),
  start: QueryText(
    'YYYY-MM-DD, first day of a custom range (00:00 in the organization’s timezone); only with range=custom.',
  ),
  end: QueryText(
    'YYYY-MM-DD, last day of a custom range (until 24:00); only with range=custom; not after today.',
  ),
};
const Since = QueryText(
  'all, a date (YYYY-MM-DD, midnight in the organization’s timezone) or an ISO 8601 date-time: the window starts there and ends now. Default: the last 30 days. Not combinable with range/start/end.',
);

export const BrandParams = IdParam('brand_id');
export const CategoryParams = IdParam('category_id');
export const PromptParams = IdParam('prompt_id');

export const AnalyticsQuery = Type.Object(WindowParameters);
export const HistoryQuery = Type.Object({
  since: Since,
  limit: Type.Optional(
    Type.Integer({
      minimum: 1,
      description:
        'Most points to return (default 30, values above 1000 count as 1000); ignored for the whole history.',
    }),
  ),
  ...WindowParameters,
});
export const DeltasQuery = Type.Object({ since: Since, ...WindowParameters });

const SuppressedReason = Nullable(
  Type.Enum([...SUPPRESSED_REASONS], { description: 'Why the delta is null; null when it is a number.' }),
);
const Significance = Nullable(
  Type.Enum([...SIGNIFICANCES], {
    description:
      'moved when the 95 % interval of the change excludes 0, else within_noise; null when the delta is suppressed.',
  }),
);
const Interval = (of: string) =>
  Nullable(
    Type.Object(
      { low: Type.Number(), high: Type.Number() },
      {
        description: `The 95 % interval of ${of} over prompts (docs/methodology.md "Uncertainty"), in its unit and decimals, low rounded down and high up; null when there is none.`,
      },
    ),
  );
const IntervalReason = Nullable(
  Type.Enum([...NO_INTERVAL_REASONS], { description: 'Why the interval is null; null when it is given.' }),
);
const Rate = Type.Number({ description: '0–1, 4 decimals.' });
const Share = Nullable(
  Type.Number({ description: '0–1, 4 decimals; null when nothing was mentioned or cited.' }),
);

const WindowBlock = Type.Object({
  range: Type.String({ description: '7d, 30d, 90d, all or custom.' }),
  start: Timestamp,
  end: Timestamp,
  asOf: Timestamp,
  timezone: Type.String({
    description: 'The organization’s IANA timezone: custom dates and inclusive dates use it.',
  }),
  selection: Type.Object({
    kind: Type.String({ description: 'rolling (7d/30d/90d), all or custom.' }),
    preset: Nullable(Type.String()),
    startDate: Nullable(Type.String({ description: 'First calendar day in the window, inclusive.' })),
    endDate: Nullable(Type.String({ description: 'Last calendar day in the window, inclusive.' })),
  }),
  previous: Nullable(
    Type.Object(
      { start: Timestamp, end: Timestamp },
      { description: 'The comparison window; null for all.' },
    ),
  ),
  bounds: Type.Object({ earliestObservationAt: NullableTimestamp }),
});

const Ratio = (description: string) =>
  Type.Object(
    {
      value: Nullable(Type.Number()),
      previousValue: Nullable(Type.Number()),
      delta: Nullable(Type.Number()),
      suppressedReason: SuppressedReason,
      numerator: Type.Number({ description: 'Σ over usable observations (see docs/methodology.md).' }),
      denominator: Type.Number(),
      interval: Interval('value'),
      intervalReason: IntervalReason,
      significance: Significance,
    },
    { description },
  );

const SentimentCounts = {
  positive: Type.Integer(),
  neutral: Type.Integer(),
  negative: Type.Integer(),
};

const Metrics = Type.Object({
  scope: Type.String(),
  label: Type.String(),
  sampleCount: Type.Integer({ description: 'Σ sampleCount of the usable observations.' }),
  mentionRate: Ratio('Σ weight of mentions / Σ weight.'),
  avgRank: Ratio('Σ weight·rank / Σ weight over ranked mentions.'),
  sentiment: Type.Object({
    ...SentimentCounts,
    previous: Nullable(Type.Object(SentimentCounts)),
  }),
});

const ShareItem = Type.Object({
  id: Type.String(),
  categoryId: Nullable(Type.String()),
  name: Type.String(),
  mentions: Type.Integer(),
  averageRank: Nullable(Type.Number()),
  score: Nullable(Type.Number()),
  isUserBrand: Type.Boolean(),
  sourceBreakdown: Type.Array(Type.Object({ domain: Type.String(), count: Type.Integer() })),
  share: Share,
  previousShare: Share,
  shareDelta: Nullable(Type.Number()),
  shareDeltaSuppressedReason: SuppressedReason,
  shareDeltaSignificance: Significance,
  interval: Interval('share'),
  intervalReason: IntervalReason,
});

const ShareOfVoice = Type.Object({
  scope: Type.String(),
  label: Type.String(),
  visible: Type.Array(ShareItem, { description: 'The brand and the 10 most mentioned competitors.' }),
  hidden: Type.Array(ShareItem, { description: 'The other competitors mentioned in the window.' }),
});

const Sources = Type.Object({
  totalDomains: Type.Integer(),
  totalCitations: Type.Integer(),
  items: Type.Array(
    Type.Object({
      domain: Type.String(),
      count: Type.Integer(),
      share: Rate,
      previousShare: Share,
      shareDelta: Nullable(Type.Number()),
      shareDeltaSuppressedReason: SuppressedReason,
      shareDeltaSignificance: Significance,
      urlCount: Type.Integer(),
      interval: Interval('share'),
      intervalReason: IntervalReason,
    }),
  ),
});

const PlatformFigures = {
  score: Type.Number(),
  mentionRate: Rate,
  mentionRateInterval: Interval('mentionRate'),
  mentionRateIntervalReason: IntervalReason,
  totalAnswers: Type.Integer({ description: 'Usable answers (response rows).' }),
  totalSamples: Type.Integer({ description: 'Σ sampleCount of the usable answers.' }),
};

const Platforms = Type.Object({
  scope: Type.String(),
  label: Type.String(),
  apiPlatforms: Type.Array(
    Type.Object({ model: Type.String(), modelLabel: Type.String(), ...PlatformFigures }),
  ),
  surfacePlatforms: Type.Array(
    Type.Object({ surface: Type.String(), surfaceLabel: Type.String(), ...PlatformFigures }),
  ),
});

const Coverage = Type.Object({
  observationMethodology: Type.String(),
  comparableFrom: NullableTimestamp,
  usableSampleCount: Type.Integer(),
  legacyFallbackCount: Type.Integer(),
  excludedMethodologyCount: Type.Integer(),
  excludedErrorCount: Type.Integer(),
  excludedEmptyCount: Type.Integer(),
  excludedNoResultCount: Type.Integer(),
  unreconstructableLegacyAnswerCount: Type.Integer(),
  sampleWeightTotal: Type.Integer(),
  promptCoverageCount: Type.Integer(),
});

export const Analytics = Type.Object(
  {
    window: WindowBlock,
    metrics: Metrics,
    shareOfVoice: ShareOfVoice,
    sources: Sources,
    platforms: Platforms,
    coverage: Coverage,
  },
  { $id: 'Analytics' },
);

export const WindowedDelta = Type.Object(
  {
    latestScore: Type.Number(),
    boundaryScore: Nullable(Type.Number()),
    delta: Nullable(Type.Number()),
    asOfRunId: Nullable(Type.Integer()),
    spanLabel: Type.String(),
    suppressedReason: SuppressedReason,
    latestScoreInterval: Interval('latestScore'),
    // A mean of prompt scores has no rank to agree on: never no_spread (docs/api.md).
    latestScoreIntervalReason: Nullable(
      Type.Enum(
        NO_INTERVAL_REASONS.filter((r) => r !== 'no_spread'),
        { description: 'Why latestScoreInterval is null; null when it is given.' },
      ),
    ),
    significance: Significance,
  },
  { $id: 'WindowedDelta' },
);

export const ScoreHistory = Type.Object(
  {
    points: Type.Array(Type.Object({ date: Timestamp, score: Type.Number(), runId: Type.Integer() })),
    windowedDelta: WindowedDelta,
  },
  { $id: 'ScoreHistory' },
);

export const CategoryDeltas = Type.Object(
  {
    deltas: Type.Record(Type.String(), WindowedDelta, { description: 'Keyed by category id.' }),
  },
  { $id: 'CategoryDeltas' },
);

export const PromptChanges = Type.Object(
  {
    hasBaseline: Type.Boolean(),
    comparedToRunId: Nullable(Type.Integer()),
    baselineIncomplete: Type.Boolean(),
    changes: Type.Array(
      Type.Union([
        Type.Object({
          kind: Type.Literal('model_mention'),
          model: Type.String(),
          direction: Type.Enum(['started', 'stopped']),
        }),
        Type.Object({
          kind: Type.Literal('rank'),
          from: Type.Integer(),
          to: Type.Integer(),
          direction: Type.Enum(['improved', 'declined']),
        }),
        Type.Object({
          kind: Type.Literal('competitor'),
          name: Type.String(),
          direction: Type.Enum(['appeared', 'disappeared']),
        }),
        Type.Object({ kind: Type.Literal('sentiment'), from: Type.String(), to: Type.String() }),
      ]),
    ),
  },
  { $id: 'PromptChanges' },
);
