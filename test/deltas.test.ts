import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { compare } from '../src/domain/deltas.ts';

describe('suppressed deltas', () => {
  it('is current − compared when both sides have data; 0 stays 0', () => {
    assert.deepEqual(compare(0.5, 0.25), { delta: 0.25, suppressedReason: null });
    assert.deepEqual(compare(40, 40), { delta: 0, suppressedReason: null });
    assert.deepEqual(compare(0, 0), { delta: 0, suppressedReason: null });
  });

  it('is null with no_data when the current side has nothing, whatever else applies', () => {
    assert.deepEqual(compare(null, 10, { noBoundary: true, crossEra: true }), {
      delta: null,
      suppressedReason: 'no_data',
    });
    assert.deepEqual(compare(null, null), { delta: null, suppressedReason: 'no_data' });
  });

  it('is null with no_prior when the compared side has nothing', () => {
    assert.deepEqual(compare(10, null), { delta: null, suppressedReason: 'no_prior' });
    assert.deepEqual(compare(10, 5, { noPrior: true, noBoundary: true }), {
      delta: null,
      suppressedReason: 'no_prior',
    });
  });

  it('is null with no_boundary before cross_era', () => {
    assert.deepEqual(compare(10, null, { noPrior: false, noBoundary: true, crossEra: true }), {
      delta: null,
      suppressedReason: 'no_boundary',
    });
  });

  it('is null with cross_era when the compared side rests on legacy observations', () => {
    assert.deepEqual(compare(10, 5, { crossEra: true }), { delta: null, suppressedReason: 'cross_era' });
  });
});
