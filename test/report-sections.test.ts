import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { Analytics } from '../src/reports/data.ts';
import { competitorTable, shareOfVoiceBars } from '../src/reports/sections.ts';

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
