import { classify, type ObservationGroup } from './analytics.ts';
import { isLegacy, roundTo } from './scoring.ts';

// The prompt change feed (decisions.md "Prompt change feed"): the prompt's latest scored run
// against its predecessor scored run. Deterministic: the same two runs always give the same
// entries in the same order.

export const SENTIMENTS = ['positive', 'neutral', 'negative'] as const;
export type Sentiment = (typeof SENTIMENTS)[number];

/** What one run says about one prompt, over its usable observations only. */
export interface RunDigest {
  runId: number;
  /** Per model: Σ weight and Σ weight of the observations mentioning the brand. */
  models: ReadonlyMap<string, { weight: number; mentionedWeight: number }>;
  /** Σ weight·rank and Σ weight over the ranked mentions. */
  rankWeighted: number;
  rankWeight: number;
  /** Σ weight of mentions per sentiment. */
  sentiments: Readonly<Record<Sentiment, number>>;
  /** Names of the competitors any usable answer mentions. */
  competitors: ReadonlySet<string>;
}

/**
 * What a run says about a prompt, from the run's stored aggregates for it. The usual rules pick
 * the usable observations (a run's legacy answers count only without current ones); competitors
 * count when named in a usable answer.
 */
export function digestRun(
  runId: number,
  observations: readonly (ObservationGroup & { promptId: number })[],
  competitors: readonly { name: string; methodology: string }[],
): RunDigest {
  const { usable, legacyPrompts } = classify(observations);
  const models = new Map<string, { weight: number; mentionedWeight: number }>();
  let [rankWeighted, rankWeight] = [0, 0];
  const sentiments = { positive: 0, neutral: 0, negative: 0 };
  for (const g of usable) {
    const model = models.get(g.model) ?? { weight: 0, mentionedWeight: 0 };
    model.weight += g.weight;
    model.mentionedWeight += g.mentionedWeight;
    models.set(g.model, model);
    rankWeighted += g.rankWeighted;
    rankWeight += g.rankedWeight;
    sentiments.positive += g.positiveWeight;
    sentiments.neutral += g.neutralWeight;
    sentiments.negative += g.negativeWeight;
  }
  const fallback = legacyPrompts.length > 0;
  const names = competitors.filter((c) => isLegacy(c.methodology) === fallback).map((c) => c.name);
  return { runId, models, rankWeighted, rankWeight, sentiments, competitors: new Set(names) };
}

export type Change =
  | { kind: 'model_mention'; model: string; direction: 'started' | 'stopped' }
  | { kind: 'rank'; from: number; to: number; direction: 'improved' | 'declined' }
  | { kind: 'competitor'; name: string; direction: 'appeared' | 'disappeared' }
  | { kind: 'sentiment'; from: Sentiment; to: Sentiment };

export interface PromptChanges {
  hasBaseline: boolean;
  comparedToRunId: number | null;
  baselineIncomplete: boolean;
  changes: Change[];
}

/** A model "mentions" the brand when at least half of its weight does. */
export const MENTION_THRESHOLD = 0.5;

const byText = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

function mentions(model: { weight: number; mentionedWeight: number }): boolean {
  return model.weight > 0 && model.mentionedWeight / model.weight >= MENTION_THRESHOLD;
}

/** The weighted average rank rounded to a whole rank; null without ranked mentions. */
export function wholeRank(digest: RunDigest): number | null {
  return digest.rankWeight > 0 ? roundTo(digest.rankWeighted / digest.rankWeight, 0) : null;
}

/** The most frequent sentiment among mentions; a tie is neutral; null without mentions. */
export function dominantSentiment(digest: RunDigest): Sentiment | null {
  const top = Math.max(...SENTIMENTS.map((s) => digest.sentiments[s]));
  if (top <= 0) return null;
  const leaders = SENTIMENTS.filter((s) => digest.sentiments[s] === top);
  return leaders.length === 1 ? (leaders[0] as Sentiment) : 'neutral';
}

/**
 * Entries in this order: model_mention per model present in both runs (by model), rank, competitor
 * per name (by name), sentiment. baselineIncomplete: the predecessor has no usable observation for
 * a model the latest run has.
 */
export function promptChanges(latest: RunDigest | null, previous: RunDigest | null): PromptChanges {
  if (!latest || !previous) {
    return { hasBaseline: false, comparedToRunId: null, baselineIncomplete: false, changes: [] };
  }
  const changes: Change[] = [];
  let baselineIncomplete = false;
  for (const model of [...latest.models.keys()].sort(byText)) {
    const now = latest.models.get(model);
    const before = previous.models.get(model);
    if (!now || !before || before.weight <= 0) {
      baselineIncomplete = true;
      continue;
    }
    if (mentions(now) !== mentions(before)) {
      changes.push({ kind: 'model_mention', model, direction: mentions(now) ? 'started' : 'stopped' });
    }
  }

  const [from, to] = [wholeRank(previous), wholeRank(latest)];
  if (from !== null && to !== null && from !== to) {
    changes.push({ kind: 'rank', from, to, direction: to < from ? 'improved' : 'declined' });
  }

  const names = [...new Set([...latest.competitors, ...previous.competitors])].sort(byText);
  for (const name of names) {
    const [was, is] = [previous.competitors.has(name), latest.competitors.has(name)];
    if (was !== is) changes.push({ kind: 'competitor', name, direction: is ? 'appeared' : 'disappeared' });
  }

  const [sentimentFrom, sentimentTo] = [dominantSentiment(previous), dominantSentiment(latest)];
  if (sentimentFrom !== null && sentimentTo !== null && sentimentFrom !== sentimentTo) {
    changes.push({ kind: 'sentiment', from: sentimentFrom, to: sentimentTo });
  }
  return { hasBaseline: true, comparedToRunId: previous.runId, baselineIncomplete, changes };
}
