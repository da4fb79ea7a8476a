import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { recentlyUsed } from '../src/domain/recently-used.js';

// The bounded map behind the SQLite statement cache and the statement shapes (src/domain/recently-used.js).

describe('a map bounded by last use', () => {
  it('makes a value once per key held, and drops the key used longest ago past its size', () => {
    const made: string[] = [];
    const get = recentlyUsed<string>(2);
    const ask = (key: string) =>
      get(key, () => {
        made.push(key);
        return `value of ${key}`;
      });
    assert.equal(ask('a'), 'value of a');
    assert.equal(ask('b'), 'value of b');
    // Asking for a again makes it the most recently used: b is now the one to drop.
    assert.equal(ask('a'), 'value of a');
    assert.equal(ask('c'), 'value of c');
    assert.equal(ask('a'), 'value of a');
    assert.equal(ask('b'), 'value of b');
    // Made: a, b, c, then b again (dropped when c came); a was held throughout until b's return
    // dropped c, the least recently used of {a, c}.
    assert.deepEqual(made, ['a', 'b', 'c', 'b']);
    assert.equal(ask('c'), 'value of c');
    assert.deepEqual(made, ['a', 'b', 'c', 'b', 'c']);
  });
});
