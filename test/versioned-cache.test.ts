import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { VersionedCache } from '../src/domain/versioned-cache.ts';

// The store under the response and analytics caches: values kept for one data version, and
// durable values (whose keys name what they rest on) that outlive versions. Sizes are the
// values' lengths, so what is kept can be counted by hand.

const cache = (maxSize: number) => new VersionedCache<string>(maxSize, (value) => value.length);

function keep(store: VersionedCache<string>, version: string, key: string, value: string, durable = false) {
  const ticket = store.lookup(version, key, durable);
  assert.equal(ticket.hit, undefined, `${key} was not kept yet`);
  store.store(ticket, value);
}

describe('versioned cache', () => {
  it('drops values kept for one version at the next, and keeps durable ones', () => {
    const store = cache(800);
    keep(store, 'v1', 'a', 'aaaa');
    keep(store, 'v1', 'b', 'bb', true);
    assert.deepEqual(store.stats(), { hits: 0, misses: 2, entries: 2, size: 6 });
    assert.equal(store.lookup('v1', 'a').hit, 'aaaa');
    assert.equal(store.lookup('v2', 'a').hit, undefined);
    assert.equal(store.lookup('v2', 'b', true).hit, 'bb');
    assert.deepEqual(store.stats(), { hits: 2, misses: 3, entries: 1, size: 2 });
  });

  it('keeps a durable value computed under a version that has moved on, and not a versioned one', () => {
    const store = cache(800);
    const versioned = store.lookup('v1', 'a');
    const durable = store.lookup('v1', 'b', true);
    store.lookup('v2', 'c');
    store.store(versioned, 'aaaa');
    store.store(durable, 'bb');
    assert.equal(store.lookup('v2', 'a').hit, undefined);
    assert.equal(store.lookup('v2', 'b', true).hit, 'bb');
  });

  it('drops the least recently used values past its size, durable or not, and counts what is left', () => {
    // 800 bytes at most, 100 per value (an eighth).
    const store = cache(800);
    for (let i = 0; i < 8; i++) keep(store, 'v1', `d${i}`, 'x'.repeat(100), true);
    keep(store, 'v1', 'v', 'y'.repeat(100));
    // d0 went first; the others and v are kept: 8 values, 800 bytes.
    assert.equal(store.lookup('v1', 'd0', true).hit, undefined);
    assert.deepEqual({ entries: store.stats().entries, size: store.stats().size }, { entries: 8, size: 800 });
    // A new version drops v alone.
    assert.equal(store.lookup('v2', 'v').hit, undefined);
    assert.deepEqual({ entries: store.stats().entries, size: store.stats().size }, { entries: 7, size: 700 });
    // Versioned values push the durable ones out one by one; once none is left, a new version
    // empties the cache.
    for (let i = 0; i < 8; i++) keep(store, 'v2', `w${i}`, 'z'.repeat(100));
    assert.deepEqual({ entries: store.stats().entries, size: store.stats().size }, { entries: 8, size: 800 });
    assert.equal(store.lookup('v3', 'w7').hit, undefined);
    assert.deepEqual({ entries: store.stats().entries, size: store.stats().size }, { entries: 0, size: 0 });
  });

  it('keeps no value over an eighth of its size', () => {
    const store = cache(800);
    keep(store, 'v1', 'big', 'x'.repeat(101), true);
    assert.deepEqual(store.stats().entries, 0);
  });
});
