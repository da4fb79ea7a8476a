import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  bestRank,
  compareEntities,
  domainCounts,
  type EntityObservation,
  entityStats,
} from '../src/domain/entities.ts';

type Key = 'brand' | number;
const A = 1;
const B = 2;
const C = 3;

const observation = (
  weight: number,
  mentions: [Key, number | null][],
  domains: string[],
): EntityObservation<Key> => ({ weight, mentions: new Map(mentions), domains });

// Total weight 2 + 1 + 3 + 1 = 7.
const observations = [
  observation(
    2,
    [
      ['brand', 1],
      [A, 2],
    ],
    ['x.com', 'y.com'],
  ),
  observation(
    1,
    [
      ['brand', null],
      [B, 1],
    ],
    ['x.com'],
  ),
  observation(3, [[A, 1]], ['z.com', 'z.com', 'y.com']),
  // Entity 99 is not asked for: its mention is ignored, but the weight still counts.
  observation(1, [[99, 1]], ['w.com']),
];

describe('entityStats', () => {
  const stats = entityStats<Key>(['brand', A, B, C], observations);

  it('computes the brand figures by hand', () => {
    assert.deepEqual(stats.get('brand'), {
      // mentioned in the weight-2 and weight-1 answers: 2 + 1
      mentions: 3,
      // only the weight-2 mention is ranked (rank 1): 2·1 / 2
      averageRank: 1,
      // values 1 (rank 1, w 2) and 0.5 (unranked, w 1): 100 · (2 + 0.5) / 7 = 35.714…
      score: (100 * 2.5) / 7,
      // x.com in both answers, y.com in one
      sourceBreakdown: [
        { domain: 'x.com', count: 2 },
        { domain: 'y.com', count: 1 },
      ],
    });
  });

  it('computes a competitor with weighted ranks and tied domains', () => {
    const a = stats.get(A);
    assert.ok(a);
    // weights 2 + 3
    assert.equal(a.mentions, 5);
    // (2·2 + 3·1) / 5 = 1.4
    assert.equal(a.averageRank, 1.4);
    // rank 2 → 0.85 at w 2, rank 1 → 1 at w 3: 100 · (1.7 + 3) / 7 = 67.142…
    assert.ok(Math.abs((a.score ?? 0) - 470 / 7) < 1e-9);
    // y.com 1 + 1, z.com 2 (same answer cites it twice), x.com 1; ties by domain
    assert.deepEqual(a.sourceBreakdown, [
      { domain: 'y.com', count: 2 },
      { domain: 'z.com', count: 2 },
      { domain: 'x.com', count: 1 },
    ]);
  });

  it('gives a never-mentioned entity zero mentions, no rank and a score of 0', () => {
    // B: one weight-1 mention at rank 1: 100 · 1 / 7
    assert.deepEqual(stats.get(B), {
      mentions: 1,
      averageRank: 1,
      score: 100 / 7,
      sourceBreakdown: [{ domain: 'x.com', count: 1 }],
    });
    assert.deepEqual(stats.get(C), { mentions: 0, averageRank: null, score: 0, sourceBreakdown: [] });
    assert.equal(stats.has(99), false);
  });

  it('scores null without observations', () => {
    assert.deepEqual(entityStats<Key>(['brand'], []).get('brand'), {
      mentions: 0,
      averageRank: null,
      score: null,
      sourceBreakdown: [],
    });
  });

  it('floors the value of a low rank at 0.25 and keeps only the top five domains', () => {
    const domains = ['f.com', 'e.com', 'd.com', 'c.com', 'b.com', 'a.com', 'a.com'];
    const [only] = entityStats<Key>(['brand'], [observation(4, [['brand', 10]], domains)]).values();
    // rank 10: max(0.25, 1 − 0.15·9 = −0.35) = 0.25 → 100 · 4·0.25 / 4 = 25
    assert.equal(only?.score, 25);
    assert.equal(only?.averageRank, 10);
    // a.com twice first, then the rest by domain; f.com is the sixth and is dropped
    assert.deepEqual(
      only?.sourceBreakdown.map((d) => d.domain),
      ['a.com', 'b.com', 'c.com', 'd.com', 'e.com'],
    );
  });
});

describe('domainCounts', () => {
  it('counts citations per domain, most cited first, then by domain', () => {
    assert.deepEqual(domainCounts(['b.com', 'c.com', 'b.com', 'a.com']), [
      { domain: 'b.com', count: 2 },
      { domain: 'a.com', count: 1 },
      { domain: 'c.com', count: 1 },
    ]);
    assert.deepEqual(domainCounts([]), []);
  });
});

describe('compareEntities', () => {
  it('orders by mentions, then by name ignoring case', () => {
    const sorted = [
      { mentions: 1, name: 'beta' },
      { mentions: 3, name: 'Zed' },
      { mentions: 1, name: 'Alpha' },
    ].sort(compareEntities);
    assert.deepEqual(
      sorted.map((e) => e.name),
      ['Zed', 'Alpha', 'beta'],
    );
  });
});

describe('bestRank', () => {
  it('keeps the lowest rank, null only when nothing is ranked', () => {
    assert.equal(bestRank(null, 3), 3);
    assert.equal(bestRank(2, null), 2);
    assert.equal(bestRank(4, 2), 2);
    assert.equal(bestRank(null, null), null);
  });
});
