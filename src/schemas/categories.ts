import { Type } from 'typebox';
import { Archived } from './brands.ts';
import { IdParam, NullableTimestamp, PageQuery, Paginated, Timestamp } from './common.ts';

export const ArchivableListQuery = Type.Object({ archived: Type.Optional(Archived), ...PageQuery });

export const CategoryParams = IdParam('category_id');

export const Category = Type.Object(
  {
    id: Type.String(),
    brandId: Type.String(),
    name: Type.String(),
    description: Type.String(),
    isArchived: Type.Boolean(),
    promptCount: Type.Integer({ description: 'Non-archived prompts in the category.' }),
    monitoredPromptCount: Type.Integer({
      description: 'Eligible prompts: monitored and not archived; 0 for an archived category.',
    }),
    averageScore: Type.Number({
      description: 'Mean of each eligible prompt’s latest score (0–100, 1 decimal).',
    }),
    previousScore: Type.Number({ description: 'The same mean over each prompt’s predecessor score.' }),
    hasScoreData: Type.Boolean({
      description: 'false when no eligible prompt has a scored run; both scores are then 0.',
    }),
    lastRunAt: Type.Union([Timestamp, Type.Null()], { description: 'When the latest visible run finished.' }),
    createdAt: Timestamp,
  },
  { $id: 'Category' },
);

export const Prompt = Type.Object(
  {
    id: Type.String(),
    categoryId: Type.String(),
    brandId: Type.String(),
    text: Type.String(),
    isMonitored: Type.Boolean(),
    isArchived: Type.Boolean(),
    latestScore: Type.Number({ description: 'The prompt’s score in its latest scored visible run (0–100).' }),
    previousScore: Type.Number({
      description: 'Its score in the scored run before that; the latest when only one.',
    }),
    hasScoreData: Type.Boolean({
      description: 'false when no visible run scored the prompt; both scores are then 0.',
    }),
    lastRunId: Type.Union([Type.String(), Type.Null()], { description: 'The run latestScore comes from.' }),
    lastRunAt: NullableTimestamp,
    createdAt: Timestamp,
  },
  { $id: 'Prompt' },
);

export const CategoryList = Paginated('CategoryList', Category);
export const PromptList = Paginated('PromptList', Prompt);
