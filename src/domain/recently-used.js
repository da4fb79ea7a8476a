// @ts-check
// JavaScript: the SQLite reader process loads it through statement-cache.js (open.js says why).

/**
 * A map of at most `size` entries, the one used longest ago dropped first: `make` gives the value
 * of a key not held (or no longer held). For what is costly to make and asked for again and
 * again by a key whose variety has no bound of its own (a statement's text, a statement's shape).
 * @template V
 * @param {number} size
 * @returns {(key: string, make: () => V) => V}
 */
export function recentlyUsed(size) {
  /** @type {Map<string, V>} */
  const entries = new Map();
  return (key, make) => {
    let value = entries.get(key);
    if (value !== undefined) {
      // Most recently used last, so the first entry is the one to drop.
      entries.delete(key);
    } else {
      value = make();
      if (entries.size >= size) entries.delete(/** @type {string} */ (entries.keys().next().value));
    }
    entries.set(key, value);
    return value;
  };
}
