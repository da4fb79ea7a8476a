import { type Static, Type } from 'typebox';
import { Nullable, NullableTimestamp, PageQuery, Paginated, Timestamp } from './common.ts';

export const RunListItem = Type.Object(
  {
    id: Type.String(),
    timestamp: Timestamp,
    score: Nullable(Type.Number({ description: 'Mean of the prompt scores of the run (0–100, 1 decimal).' })),
    status: Type.String(),
    categoryId: Type.String(),
  },
  { $id: 'RunListItem' },
);
export const RunList = Paginated('RunList', RunListItem);
export const RunListQuery = Type.Object(PageQuery);

const statusFields = {
  id: Type.String(),
  status: Type.String({ description: 'queued, running, completed, failed or cancelled.' }),
  pollUrl: Type.String({ description: 'Path of the run detail.' }),
  finishedAt: NullableTimestamp,
};
export const RunStatus = Type.Object(statusFields, { $id: 'RunStatus' });

const responseFields = {
  id: Type.String(),
  promptId: Type.String(),
  runId: Type.String(),
  model: Type.String({ description: 'Answer-engine identifier.' }),
  modelLabel: Type.String(),
  surface: Type.String({ description: 'How the answer was obtained.' }),
  mentioned: Type.Boolean(),
  sentiment: Nullable(
    Type.String({ description: 'positive, neutral or negative; null when not mentioned.' }),
  ),
  rank: Nullable(Type.Integer({ description: 'Null when not mentioned or mentioned without a rank.' })),
  sources: Type.Array(Type.String(), { description: 'Cited URLs in order.' }),
  sampleCount: Type.Integer(),
  timestamp: Timestamp,
};

export const LightResponse = Type.Object(
  {
    ...responseFields,
    hasText: Type.Boolean(),
    textLength: Type.Integer(),
  },
  { $id: 'LightResponse' },
);

export const FullResponse = Type.Object(
  {
    ...responseFields,
    answerText: Type.String(),
    answerHtml: Type.Optional(Type.String({ description: 'Only with includeHtml=true.' })),
  },
  { $id: 'FullResponse' },
);

// No $id: RunDetail holds it twice (directly and in Competitor), and one schema may not name a
// part twice.
export const DomainCount = Type.Object({ domain: Type.String(), count: Type.Integer() });

export const Competitor = Type.Object(
  {
    id: Type.String(),
    categoryId: Type.String(),
    name: Type.String(),
    mentions: Type.Integer({ description: 'Σ sampleCount of usable answers mentioning the entity.' }),
    averageRank: Nullable(
      Type.Number({ description: 'Weighted mean rank (2 decimals); null when never ranked.' }),
    ),
    score: Nullable(
      Type.Number({ description: "The entity's score over the run's usable answers (1 decimal)." }),
    ),
    isUserBrand: Type.Boolean(),
    sourceBreakdown: Type.Array(DomainCount, {
      description: 'Top 5 domains cited in answers mentioning it.',
    }),
    canonicalKey: Type.String(),
    canonicalName: Type.String(),
  },
  { $id: 'Competitor' },
);

export const RunDetail = Type.Object(
  {
    ...statusFields,
    brandId: Type.String(),
    categoryId: Type.String(),
    promptIds: Type.Array(Type.String()),
    responses: Type.Array(LightResponse),
    responsesCount: Type.Integer(),
    responsesPage: Type.Integer(),
    responsesPageSize: Type.Integer(),
    responsesNext: Nullable(Type.String({ description: 'Path of the next page; null on the last page.' })),
    competitors: Type.Array(Competitor, { description: 'Aggregated over the whole run on every page.' }),
    sources: Type.Array(DomainCount, { description: 'Aggregated over the whole run on every page.' }),
  },
  { $id: 'RunDetail' },
);

export const RunDetailQuery = Type.Object({
  page: PageQuery.page,
  page_size: Type.Optional(
    Type.Integer({
      minimum: 1,
      description: 'Responses per page; default 200, values above 500 are clamped to 500.',
    }),
  ),
});

export const ResponseQuery = Type.Object({
  includeHtml: Type.Optional(Type.Boolean({ description: 'Include answerHtml.' })),
});

export type LightResponseBody = Static<typeof LightResponse>;
export type FullResponseBody = Static<typeof FullResponse>;
export type CompetitorBody = Static<typeof Competitor>;
