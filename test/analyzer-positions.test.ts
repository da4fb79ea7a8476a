import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { createAnalyzer } from '../src/domain/analyzer/index.ts';
import {
  firstStartingWithin,
  lastBefore,
  reachOf,
  startingWithin,
} from '../src/domain/analyzer/positions.ts';

// The analyzer's lookups by position (domain/analyzer/positions.ts), each against what a scan
// of every span gives, and long answers that used to cost seconds read as short ones are.

const spans = (...pairs: [number, number][]) => pairs.map(([start, end]) => ({ start, end }));

describe('lookups by position', () => {
  const sorted = spans([0, 4], [5, 9], [5, 7], [12, 20], [30, 31]);

  it('finds the spans that start inside a range, and the first of them', () => {
    assert.deepEqual(startingWithin(sorted, { start: 5, end: 13 }), spans([5, 9], [5, 7], [12, 20]));
    assert.deepEqual(startingWithin(sorted, { start: 1, end: 5 }), []);
    assert.deepEqual(startingWithin(sorted, { start: 31, end: 40 }), []);
    assert.deepEqual(firstStartingWithin(sorted, { start: 1, end: 13 }), { start: 5, end: 9 });
    assert.equal(firstStartingWithin(sorted, { start: 13, end: 30 }), undefined);
  });

  it('tells how far the spans starting at or before a position reach, nested or not, few or many', () => {
    // Nested and out of order: [2, 50) holds the others.
    const few = spans([10, 12], [2, 50], [20, 25]);
    const reach = reachOf(few);
    assert.equal(reach(1), Number.NEGATIVE_INFINITY);
    assert.equal(reach(2), 50);
    assert.equal(reach(30), 50);
    // Twenty spans [10k, 10k + 5): more than are read one by one.
    const many = reachOf(Array.from({ length: 20 }, (_, k) => ({ start: 10 * k, end: 10 * k + 5 })));
    assert.equal(many(-1), Number.NEGATIVE_INFINITY);
    assert.equal(many(0), 5);
    assert.equal(many(47), 45, 'the span starting at 40 ends at 45, before 47');
    assert.equal(many(190), 195);
    assert.equal(reachOf([])(3), Number.NEGATIVE_INFINITY);
  });

  it('finds where a character last occurs before a position', () => {
    const before = lastBefore('a|b||c', '|');
    assert.deepEqual(
      [0, 1, 2, 3, 4, 5, 6].map((position) => before(position)),
      [-1, -1, 1, 1, 3, 4, 4],
    );
    assert.equal(lastBefore('abc', '\n')(3), -1);
  });
});

describe('long answers', () => {
  const analyzer = createAnalyzer({
    brand: { name: 'Monday' },
    competitors: [{ name: 'Globex' }, { name: 'Linear' }],
  });

  it('reads a table of 10,000 rows led by the brand as a short table is read', () => {
    const row = '| Monday | Globex |\n';
    const short = analyzer.analyze({ text: row.repeat(3) });
    const long = analyzer.analyze({ text: row.repeat(10_000) });
    assert.deepEqual(long, short);
    assert.equal(long.mentioned, true);
    assert.equal(long.rank, 1);
  });

  it('takes 200,000 backticks without a line break as text, and a long fence as a fence', () => {
    // No line break after the run: no fence, so the name after it on the line is prose.
    const unfenced = analyzer.analyze({ text: `${'`'.repeat(200_000)} Globex is great.` });
    assert.deepEqual(
      unfenced.competitors.map((c) => c.name),
      ['Globex'],
    );
    // A fence of ten backticks closes only at ten: Globex is code, Linear after it prose.
    const ten = '`'.repeat(10);
    const fenced = analyzer.analyze({ text: `${ten}\nGlobex\n${'`'.repeat(3)}\n${ten}\nLinear is great.` });
    assert.deepEqual(
      fenced.competitors.map((c) => c.name),
      ['Linear'],
    );
  });
});
