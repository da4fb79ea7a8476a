import type { Insertable } from 'kysely';
import type { Database } from './types.ts';

// The analytics aggregate kinds (docs/performance.md): one table pair each (per run, per block of
// days), the columns a kind groups by and the columns it sums. Writers and readers share them.

/**
 * Every aggregate kind: the columns it groups by (besides COMMON_KEYS) and the columns it sums.
 * `coverage` has per-prompt rows only; the others also have, for the current methodology, one row
 * per key summing all prompts of the category (prompt_id ALL_PROMPTS), which is what readers sum.
 */
export const AGGREGATE_KINDS = {
  coverage: { keys: ['outcome', 'has_mention_data'], sums: ['answers', 'weight'] },
  observations: {
    keys: ['model', 'model_label', 'surface', 'outcome', 'has_mention_data'],
    sums: [
      'answers',
      'weight',
      'mentioned_weight',
      'ranked_weight',
      'rank_weighted',
      'value_weighted',
      'positive_weight',
      'neutral_weight',
      'negative_weight',
    ],
  },
  mentions: {
    keys: ['competitor_id'],
    sums: ['mentions', 'ranked_weight', 'rank_weighted', 'value_weighted'],
  },
  mention_domains: { keys: ['competitor_id', 'domain'], sums: ['citations'] },
  citations: { keys: ['domain', 'url'], sums: ['citations'] },
} as const;
export type AggregateKind = keyof typeof AGGREGATE_KINDS;
export const COMMON_KEYS = ['org_id', 'brand_id', 'category_id', 'prompt_id', 'methodology'] as const;
export const KINDS = Object.keys(AGGREGATE_KINDS) as AggregateKind[];
/** prompt_id of a category-total row (prompt ids start at 1). */
export const ALL_PROMPTS = 0;

/** The run-grain rows of every kind, as inserted. */
export type RunRows = { [K in AggregateKind]: Insertable<Database[`agg_run_${K}`]>[] };
