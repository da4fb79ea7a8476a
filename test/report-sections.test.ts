import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { Analytics, ReportData, ScopeFigures } from '../src/reports/data.ts';
import {
  competitorTable,
  describeChange,
  headlineKpis,
  recommendationBlocks,
  recommendationCard,
  shareOfVoiceBars,
  whatChanged,
} from '../src/reports/sections.ts';
import type { Recommendation } from '../src/serializers/recommendations.ts';

// The share-of-voice table and bars of a report list the names mentioned most, and always the
// report's own brand, at its own place.

/** A brand or competitor of the share of voice, by its place in a category of four names. */
function entry(name: string, share: number, own = false) {
  return {
    name,
    share,
    shareDelta: null,
    shareDeltaSignificance: null,
    isUserBrand: own,
    mentions: Math.round(share * 80),
    averageRank: 2,
    score: 50,
  };
}

// The brand fourth of four: 50 %, 25 %, 12.5 %, then the brand's 12.5 % (fewer mentions ranks it after).
const analytics = {
  shareOfVoice: {
    visible: [
      entry('Rival A', 0.5),
      entry('Rival B', 0.25),
      entry('Rival C', 0.125),
      entry('Acme', 0.125, true),
    ],
  },
} as unknown as Analytics;

/** A table's rows as the texts of their first `columns` cells. */
function texts(block: ReturnType<typeof competitorTable>, columns: number): string[][] {
  if (block.kind !== 'table') return assert.fail('a table');
  return block.rows.map((row) => row.slice(0, columns).map((cell) => (cell as { text: string }).text));
}

describe('report sections: share of voice', () => {
  it('lists the brand at its own place in place of the last of the top names when it ranks lower', () => {
    assert.deepEqual(texts(competitorTable(analytics, 3), 3), [
      ['1', 'Rival A', '50.00%'],
      ['2', 'Rival B', '25.00%'],
      ['4', 'Acme (you)', '12.50%'],
    ]);
    const bars = shareOfVoiceBars(analytics, 3);
    if (bars.kind !== 'bars') return assert.fail('bars');
    // Each bar as a fraction of the largest share: 0.5 / 0.5, 0.25 / 0.5, 0.125 / 0.5.
    assert.deepEqual(
      bars.bars.map((b) => [b.label, b.fraction, b.highlight]),
      [
        ['Rival A', 1, false],
        ['Rival B', 0.5, false],
        ['Acme', 0.25, true],
      ],
    );
  });

  it('changes nothing when the brand is among the top names', () => {
    assert.deepEqual(texts(competitorTable(analytics, 4), 2), [
      ['1', 'Rival A'],
      ['2', 'Rival B'],
      ['3', 'Rival C'],
      ['4', 'Acme (you)'],
    ]);
  });
});

describe('report sections: a window without a scored run', () => {
  // The API carries the score forward from the last run before the window (delta 0, within noise).
  const data = {
    brand: { name: 'Acme' },
    scope: {
      analytics: {
        window: { range: '30d', start: '2026-02-01T12:00:00.000Z', end: '2026-03-03T12:00:00.000Z' },
        metrics: {
          mentionRate: { value: null, delta: null, suppressedReason: 'no_data', significance: null },
          avgRank: { value: null, delta: null, suppressedReason: 'no_data', significance: null },
          sampleCount: 0,
        },
        coverage: { usableSampleCount: 0 },
        shareOfVoice: { visible: [] },
        sources: { items: [] },
        platforms: { apiPlatforms: [] },
      },
      scoreHistory: {
        points: [],
        windowedDelta: {
          delta: 0,
          latestScore: 17.5,
          boundaryScore: 17.5,
          spanLabel: '30d',
          significance: 'within_noise',
          suppressedReason: null,
        },
      },
    },
    // Its latest run ended in September, long before the window: a change then, not in it.
    promptChanges: [
      {
        promptText: 'Free live chat software for websites',
        latestRunAt: '2025-09-28T10:00:00.000Z',
        changes: [{ kind: 'model_mention', model: 'chatgpt', direction: 'stopped' }],
      },
    ],
  } as unknown as ReportData;

  it('says there was none, not that the score held steady', () => {
    assert.deepEqual(whatChanged(data, 5), [
      'No scored run over the last 30 days: the visibility score is still 17.5, from the last run before.',
    ]);
    const [score] = headlineKpis(data.scope);
    assert.deepEqual(
      { value: score?.value, change: score?.change, note: score?.note },
      { value: '17.5', change: null, note: 'no scored run in this window: the score of the last run before' },
    );
  });

  it('names an engine without answers in the window by its label, not its id', () => {
    const change = describeChange(data, {
      kind: 'model_mention',
      model: 'chatgpt',
      direction: 'stopped',
    } as never);
    assert.equal(change.text, 'ChatGPT stopped mentioning Acme');
  });
});

describe("the samples a report's headline counts", () => {
  /** The headline's last figure, for a window whose usable answers stand for `samples` asks. */
  const samplesKpi = (samples: number, answers: number) => {
    const metric = { value: 0.5, delta: null, suppressedReason: 'no_prior', significance: null };
    const kpis = headlineKpis({
      analytics: {
        window: { range: '30d' },
        metrics: { mentionRate: metric, avgRank: metric, sampleCount: samples },
        coverage: { usableSampleCount: answers },
      },
      scoreHistory: { points: [], windowedDelta: { latestScore: 50, suppressedReason: 'no_prior' } },
    } as unknown as ScopeFigures);
    const last = kpis.at(-1);
    return { label: last?.label, value: last?.value, note: last?.note };
  };

  it('are the asks behind the usable answers, said so when an answer stands for several', () => {
    // Four usable answers, one of them a merged row standing for 4 asks: 3 + 4 = 7 samples.
    assert.deepEqual(samplesKpi(7, 4), {
      label: 'Samples analysed',
      value: '7',
      note: "the asks behind the window's 4 usable answers (an answer can stand for several)",
    });
    assert.deepEqual(samplesKpi(4, 4), {
      label: 'Samples analysed',
      value: '4',
      note: 'one per usable answer in the window',
    });
  });
});

describe('a recommendation card with its evidence', () => {
  it('gives each outcome its windows and samples, so a 0 without samples reads as none', () => {
    const notes =
      'Baseline over range=custom&start=2026-01-30&end=2026-02-28 (40 samples), current over ' +
      'range=custom&start=2026-03-02&end=2026-03-31 (0 samples: no value, the 0 recorded stands for none); ' +
      'no other recommendation on this subject was started or implemented in between.';
    const card = recommendationCard(
      {
        title: 'Rank higher on ChatGPT',
        priority: 'high',
        status: 'implemented',
        why: 'why',
        suggestedAction: 'act',
        expectedImpact: 'impact',
        measurementPlan: 'plan',
        score: 70,
        scoreBreakdown: { impact: 0.8, effort: 0.5, confidence: 0.7 },
        artifacts: [],
        outcomes: [
          {
            metricName: 'engine_average_rank',
            metricSubject: 'platform:chatgpt',
            baselineValue: 3.2,
            currentValue: 0,
            measurementWindowDays: 30,
            attributionConfidence: 'low',
            isMeasured: true,
            notes,
          },
        ],
      } as unknown as Recommendation,
      true,
    );
    assert.ok(card.kind === 'card');
    assert.deepEqual(
      card.card.lines.filter((l) => l.label === 'Outcome' || l.label === 'Measured'),
      [
        {
          label: 'Outcome',
          text: 'engine_average_rank (platform:chatgpt): 3.2 → 0 over 30 days, low confidence',
        },
        {
          label: 'Measured',
          text:
            'Baseline over 30 Jan 2026 – 28 Feb 2026 (40 samples), current over 2 Mar 2026 – 31 Mar 2026 ' +
            '(0 samples: no value, the 0 recorded stands for none); no other recommendation on this ' +
            'subject was started or implemented in between.',
        },
      ],
    );
  });

  it('counts the other recommendations on the subject rather than print their ids', () => {
    const notes =
      'Baseline over range=custom&start=2026-01-30&end=2026-02-28 (40 samples), current over ' +
      'range=custom&start=2026-03-02&end=2026-03-31 (38 samples); also started or implemented on this ' +
      'subject in between: 5d4c3b2a-0000-4000-8000-000000000001, 5d4c3b2a-0000-4000-8000-000000000002.';
    const card = recommendationCard(
      {
        title: 'Rank higher on ChatGPT',
        priority: 'high',
        status: 'implemented',
        scoreBreakdown: { impact: 0.8, effort: 0.5, confidence: 0.7 },
        artifacts: [],
        outcomes: [{ metricName: 'mention_rate', metricSubject: null, isMeasured: true, notes }],
      } as unknown as Recommendation,
      true,
    );
    assert.ok(card.kind === 'card');
    assert.equal(
      card.card.lines.find((l) => l.label === 'Measured')?.text,
      'Baseline over 30 Jan 2026 – 28 Feb 2026 (40 samples), current over 2 Mar 2026 – 31 Mar 2026 ' +
        '(38 samples); also started or implemented on this subject in between: 2 other recommendations.',
    );
  });
});

describe('the recommendations of a report over a past window', () => {
  /** A report's data with no recommendations, over `window`, made on 20 March 2026 in Berlin. */
  const over = (window: object) =>
    ({
      organization: { name: 'Acme', timezone: 'Europe/Berlin' },
      scope: { analytics: { window: { ...window, asOf: '2026-03-20T09:00:00.000Z' } } },
      recommendations: [],
    }) as unknown as ReportData;
  const paragraphs = (blocks: ReturnType<typeof recommendationBlocks>) =>
    blocks.map((block) => (block.kind === 'paragraph' ? block.text : block.kind));

  it('says they are the ones open when the report was made, not in the window', () => {
    // 2 to 10 March in Berlin: the window ends at midnight starting 11 March, 23:00 UTC on the 10th.
    const past = over({
      range: 'custom',
      start: '2026-03-01T23:00:00.000Z',
      end: '2026-03-10T23:00:00.000Z',
    });
    assert.deepEqual(paragraphs(recommendationBlocks(past, 3, false)), [
      'As they stood on 20 Mar 2026, when this report was made; this window closed on 10 Mar 2026.',
      'No open recommendations right now.',
    ]);
  });

  it('says nothing more over a window that ends when the report is made', () => {
    const rolling = over({
      range: '30d',
      start: '2026-02-18T09:00:00.000Z',
      end: '2026-03-20T09:00:00.000Z',
    });
    assert.deepEqual(paragraphs(recommendationBlocks(rolling, 3, false)), [
      'No open recommendations right now.',
    ]);
  });
});
