import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  blockSpan,
  blocksContaining,
  childrenOf,
  cover,
  DAY_MS,
  daysOf,
  generationDaysTouched,
  lastDayCut,
} from '../src/domain/blocks.ts';

describe('analytics block layout', () => {
  it('covers a window with aligned blocks and reads its ends per run', () => {
    // 2026-01-01 is UTC day 20454 and 2026-04-01 day 20544. The first whole 4-day block starts on
    // day 20456 (3 January, divisible by 4); the last ends on day 20544. Greedy from the left:
    // 4 days at 20456, 4 at 20460, 16 at 20464 (20464 = 16 × 1279), 64 at 20480 (= 64 × 320).
    assert.deepEqual(cover(Date.parse('2026-01-01T12:00:00Z'), Date.parse('2026-04-01T06:00:00Z')), {
      blocks: [4_020_456, 4_020_460, 16_020_464, 64_020_480],
      edges: [
        { start: '2026-01-01T12:00:00.000Z', end: '2026-01-03T00:00:00.000Z' },
        { start: '2026-04-01T00:00:00.000Z', end: '2026-04-01T06:00:00.000Z' },
      ],
    });
  });

  it('names the generation days a time range touches, its last instant included', () => {
    // 2026-01-01 12:00 is in day 20454 (stored as a one-day block, 1 000 000 + day); the range
    // ends just as day 20460 begins, so its last instant is in day 20459.
    assert.deepEqual(generationDaysTouched(Date.parse('2026-01-01T12:00:00Z'), 20_460 * DAY_MS), {
      first: 1_020_454,
      last: 1_020_459,
    });
    // One instant past it: day 20460 too.
    assert.deepEqual(generationDaysTouched(20_459 * DAY_MS, 20_460 * DAY_MS + 1), {
      first: 1_020_459,
      last: 1_020_460,
    });
    assert.equal(generationDaysTouched(10, 10), null);
  });

  it('cuts a range at the start of the day holding its end, when that is inside it', () => {
    // Day 20461 12:00: the cut is day 20461's first instant.
    const end = 20_461.5 * DAY_MS;
    assert.equal(lastDayCut(20_400 * DAY_MS, end), 20_461 * DAY_MS);
    assert.equal(lastDayCut(Number.NEGATIVE_INFINITY, end), 20_461 * DAY_MS);
    // A range starting inside that day, or ending as it begins (nothing after the cut): none.
    assert.equal(lastDayCut(20_461 * DAY_MS, end), null);
    assert.equal(lastDayCut(20_400 * DAY_MS, 20_461 * DAY_MS), null);
  });

  it('reads a short window entirely per run', () => {
    assert.deepEqual(cover(Date.parse('2026-01-01T12:00:00Z'), Date.parse('2026-01-04T12:00:00Z')), {
      blocks: [],
      edges: [{ start: '2026-01-01T12:00:00.000Z', end: '2026-01-04T12:00:00.000Z' }],
    });
    assert.deepEqual(cover(10, 10), { blocks: [], edges: [] });
  });

  it('tiles every window exactly, with a bounded number of blocks', () => {
    let seed = 7;
    const random = () => {
      seed = (seed * 48271) % 2147483647;
      return seed / 2147483647;
    };
    const origin = Date.parse('2023-01-01T00:00:00Z');
    for (let i = 0; i < 500; i++) {
      const start = origin + Math.floor(random() * 1200 * DAY_MS);
      const end = start + Math.floor(random() * 1100 * DAY_MS);
      const { blocks, edges } = cover(start, end);
      const pieces = [
        ...edges.map((e) => [Date.parse(e.start), Date.parse(e.end)]),
        ...blocks.map((b) => {
          const { span, firstDay } = blockSpan(b);
          assert.equal(firstDay % span, 0, 'blocks are aligned to their span');
          return [firstDay * DAY_MS, (firstDay + span) * DAY_MS];
        }),
      ].sort((a, b) => (a[0] as number) - (b[0] as number));
      let at = start;
      for (const [from, to] of pieces) {
        assert.equal(from, at, 'no gap and no overlap');
        at = to as number;
      }
      if (pieces.length > 0) assert.equal(at, end);
      // At most 3 blocks per span at each end, and each run-read end is shorter than 4 days.
      assert.ok(blocks.length <= 4 * 6 + 4, `${blocks.length} blocks`);
      for (const e of edges)
        assert.ok(Date.parse(e.end) - Date.parse(e.start) < 4 * DAY_MS || blocks.length === 0);
    }
  });

  it('nests blocks: each parent is exactly its four children', () => {
    // Day 20461 lies in the 4-day block from 20460, the 16-day from 20448, the 64-day from 20416
    // and the 256-day from 20224 (= 256 × 79).
    assert.deepEqual(blocksContaining(20461), [4_020_460, 16_020_448, 64_020_416, 256_020_224]);
    assert.deepEqual(childrenOf(64_020_480), [16_020_480, 16_020_496, 16_020_512, 16_020_528]);
    assert.deepEqual(childrenOf(4_020_460), []);
    assert.deepEqual(daysOf(4_020_460), [20460, 20461, 20462, 20463]);
    const parent = 256_020_224;
    const days = childrenOf(parent).flatMap(childrenOf).flatMap(childrenOf).flatMap(daysOf);
    assert.equal(days.length, 256);
    assert.deepEqual(
      days,
      Array.from({ length: 256 }, (_, i) => 20224 + i),
    );
  });
});
