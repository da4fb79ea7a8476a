import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { ObservationGroup } from '../src/domain/analytics.ts';
import { digestRun, promptChanges, type RunDigest } from '../src/domain/prompt-changes.ts';

function digest(runId: number, values: Partial<Omit<RunDigest, 'runId'>>): RunDigest {
  return {
    runId,
    models: new Map(),
    rankWeighted: 0,
    rankWeight: 0,
    sentiments: { positive: 0, neutral: 0, negative: 0 },
    competitors: new Set(),
    ...values,
  };
}

describe('prompt change feed', () => {
  it('has no baseline without a predecessor run', () => {
    assert.deepEqual(promptChanges(digest(5, {}), null), {
      hasBaseline: false,
      comparedToRunId: null,
      baselineIncomplete: false,
      changes: [],
    });
    assert.deepEqual(promptChanges(null, null).hasBaseline, false);
  });

  it('lists model flips, rank, competitors and sentiment in that order', () => {
    const previous = digest(3, {
      // chatgpt: 1 of 4 samples mention (0.25 < 0.5); gemini: 3 of 4 (0.75); claude: 2 of 4 (0.5).
      models: new Map([
        ['chatgpt', { weight: 4, mentionedWeight: 1 }],
        ['gemini', { weight: 4, mentionedWeight: 3 }],
        ['claude', { weight: 4, mentionedWeight: 2 }],
      ]),
      // Σw·r / Σw = (2·3 + 1·4) / 3 = 10/3 = 3.33 → rank 3.
      rankWeighted: 10,
      rankWeight: 3,
      sentiments: { positive: 1, neutral: 4, negative: 0 },
      competitors: new Set(['Initech', 'Globex']),
    });
    const latest = digest(4, {
      // chatgpt 2 of 3 (0.67, starts); gemini 1 of 4 (stops); claude 3 of 6 (0.5, unchanged).
      models: new Map([
        ['chatgpt', { weight: 3, mentionedWeight: 2 }],
        ['gemini', { weight: 4, mentionedWeight: 1 }],
        ['claude', { weight: 6, mentionedWeight: 3 }],
      ]),
      // (1·1 + 2·2) / 3 = 5/3 = 1.67 → rank 2.
      rankWeighted: 5,
      rankWeight: 3,
      sentiments: { positive: 5, neutral: 2, negative: 0 },
      competitors: new Set(['Globex', 'Hooli', 'Acme Rival']),
    });
    assert.deepEqual(promptChanges(latest, previous), {
      hasBaseline: true,
      comparedToRunId: 3,
      baselineIncomplete: false,
      changes: [
        { kind: 'model_mention', model: 'chatgpt', direction: 'started' },
        { kind: 'model_mention', model: 'gemini', direction: 'stopped' },
        { kind: 'rank', from: 3, to: 2, direction: 'improved' },
        { kind: 'competitor', name: 'Acme Rival', direction: 'appeared' },
        { kind: 'competitor', name: 'Hooli', direction: 'appeared' },
        { kind: 'competitor', name: 'Initech', direction: 'disappeared' },
        { kind: 'sentiment', from: 'neutral', to: 'positive' },
      ],
    });
  });

  it('flags an incomplete baseline when the predecessor lacks a model of the latest run', () => {
    const previous = digest(1, { models: new Map([['chatgpt', { weight: 1, mentionedWeight: 1 }]]) });
    const latest = digest(2, {
      models: new Map([
        ['chatgpt', { weight: 1, mentionedWeight: 1 }],
        ['perplexity', { weight: 2, mentionedWeight: 2 }],
      ]),
    });
    const changes = promptChanges(latest, previous);
    assert.equal(changes.baselineIncomplete, true);
    assert.deepEqual(changes.changes, []);
  });

  it('reads a tie between sentiments as neutral, and a rank that rounds the same as unchanged', () => {
    // Previous: 2 positive vs 2 negative → neutral. Latest: 3 negative → negative.
    // Ranks: 2.4 → 2 and 1.5 → 2 (half away from zero): no rank entry.
    const previous = digest(1, {
      sentiments: { positive: 2, neutral: 0, negative: 2 },
      rankWeighted: 12,
      rankWeight: 5,
    });
    const latest = digest(2, {
      sentiments: { positive: 0, neutral: 1, negative: 3 },
      rankWeighted: 3,
      rankWeight: 2,
    });
    assert.deepEqual(promptChanges(latest, previous).changes, [
      { kind: 'sentiment', from: 'neutral', to: 'negative' },
    ]);
  });

  it('digests a run from its usable observations only', () => {
    const group = (values: Partial<ObservationGroup>): ObservationGroup & { promptId: number } => ({
      promptId: 1,
      model: 'chatgpt',
      modelLabel: 'ChatGPT',
      surface: 'api',
      methodology: 'sample_v1',
      outcome: 'ok',
      hasMentionData: true,
      answers: 1,
      weight: 1,
      mentionedWeight: 0,
      rankedWeight: 0,
      rankWeighted: 0,
      valueWeighted: 0,
      positiveWeight: 0,
      neutralWeight: 0,
      negativeWeight: 0,
      ...values,
    });
    const run = digestRun(
      9,
      [
        group({ weight: 3, mentionedWeight: 3, rankedWeight: 3, rankWeighted: 6, positiveWeight: 3 }),
        // A failed capture and a legacy answer beside current ones count for nothing.
        group({ model: 'gemini', outcome: 'error', weight: 2 }),
        group({ methodology: 'legacy', weight: 5, mentionedWeight: 5, negativeWeight: 5 }),
      ],
      [
        { name: 'Globex', methodology: 'sample_v1' },
        { name: 'Legacy Co', methodology: 'legacy' },
      ],
    );
    assert.deepEqual([...run.models], [['chatgpt', { weight: 3, mentionedWeight: 3 }]]);
    assert.deepEqual([run.rankWeighted, run.rankWeight], [6, 3]);
    assert.deepEqual(run.sentiments, { positive: 3, neutral: 0, negative: 0 });
    assert.deepEqual([...run.competitors], ['Globex']);
  });
});
