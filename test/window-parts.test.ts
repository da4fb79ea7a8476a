import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { coverageOf, domainCitations, type PartSums, sumsOf } from '../src/domain/window-parts.ts';

// A window side read in two parts (src/domain/window-parts.ts): the parts' groups added up by key,
// worked out by hand.

const part = (over: Partial<PartSums>): PartSums => ({
  observations: [],
  mentions: [],
  urls: [],
  domains: [],
  perPrompt: { observations: [], mentions: [], citations: [] },
  ...over,
});

describe('a window side read in parts', () => {
  it('counts a URL cited in both parts once towards its domain', () => {
    const before = part({
      urls: [
        { domain: 'a.example', url: 'https://a.example/1', citations: 2 },
        { domain: 'a.example', url: 'https://a.example/2', citations: 1 },
      ],
    });
    const since = part({
      urls: [
        { domain: 'a.example', url: 'https://a.example/1', citations: 3 },
        { domain: 'b.example', url: 'https://b.example/x', citations: 1 },
      ],
    });
    // a.example: 2 + 1 + 3 = 6 citations of 2 URLs; b.example: 1 of 1.
    assert.deepEqual(sumsOf([before, since]).citations, [
      { domain: 'a.example', citations: 6, urls: 2 },
      { domain: 'b.example', citations: 1, urls: 1 },
    ]);
    assert.deepEqual(domainCitations([]), []);
  });

  it('adds up each measure of groups with the same key, and keeps the others apart', () => {
    const group = (model: string, answers: number, valueWeighted: number) => ({
      model,
      modelLabel: model,
      surface: 'api',
      methodology: 'sample_v1',
      outcome: 'ok',
      hasMentionData: true,
      answers,
      weight: answers * 2,
      mentionedWeight: answers,
      rankedWeight: 1,
      rankWeighted: 3,
      valueWeighted,
      positiveWeight: 1,
      neutralWeight: 0,
      negativeWeight: 0,
    });
    const sums = sumsOf([
      part({
        observations: [group('gpt', 2, 0.5)],
        mentions: [{ competitorId: 7, mentions: 1, rankedWeight: 1, rankWeighted: 2, valueWeighted: 0.25 }],
        perPrompt: {
          observations: [],
          mentions: [{ promptId: 1, competitorId: 7, mentions: 1, rankedWeight: 1, rankWeighted: 2 }],
          citations: [{ promptId: 1, domain: 'a.example', citations: 2 }],
        },
      }),
      part({
        observations: [group('gpt', 3, 0.25), group('claude', 1, 1)],
        mentions: [{ competitorId: 7, mentions: 2, rankedWeight: 2, rankWeighted: 5, valueWeighted: 0.5 }],
        domains: [{ competitorId: null, domain: 'a.example', citations: 4 }],
        perPrompt: {
          observations: [],
          mentions: [{ promptId: 2, competitorId: 7, mentions: 1, rankedWeight: 0, rankWeighted: 0 }],
          citations: [{ promptId: 1, domain: 'a.example', citations: 1 }],
        },
      }),
    ]);
    // gpt: answers 2 + 3, weight 4 + 6, rankedWeight 1 + 1, rankWeighted 3 + 3, value 0.5 + 0.25.
    assert.deepEqual(
      sums.observations.map((g) => [
        g.model,
        g.answers,
        g.weight,
        g.rankedWeight,
        g.rankWeighted,
        g.valueWeighted,
      ]),
      [
        ['gpt', 5, 10, 2, 6, 0.75],
        ['claude', 1, 2, 1, 3, 1],
      ],
    );
    assert.deepEqual(sums.mentions, [
      { competitorId: 7, mentions: 3, rankedWeight: 3, rankWeighted: 7, valueWeighted: 0.75 },
    ]);
    assert.deepEqual(sums.domains, [{ competitorId: null, domain: 'a.example', citations: 4 }]);
    assert.deepEqual(sums.perPrompt.mentions, [
      { promptId: 1, competitorId: 7, mentions: 1, rankedWeight: 1, rankWeighted: 2 },
      { promptId: 2, competitorId: 7, mentions: 1, rankedWeight: 0, rankWeighted: 0 },
    ]);
    assert.deepEqual(sums.perPrompt.citations, [{ promptId: 1, domain: 'a.example', citations: 3 }]);
  });

  it('adds up coverage by prompt, methodology, outcome and mention data', () => {
    const row = (promptId: number, outcome: string, answers: number) => ({
      promptId,
      methodology: 'sample_v1',
      outcome,
      hasMentionData: true,
      answers,
      weight: answers,
    });
    assert.deepEqual(
      coverageOf([
        [row(1, 'ok', 2), row(1, 'error', 1)],
        [row(1, 'ok', 3), row(2, 'ok', 1)],
      ]),
      [row(1, 'ok', 5), row(1, 'error', 1), row(2, 'ok', 1)],
    );
  });
});
