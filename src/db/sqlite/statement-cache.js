// @ts-check
// JavaScript: the reader process loads it (open.js says why).

/**
 * A prepared statement, and whether it returns rows.
 * @typedef {{ statement: import('node:sqlite').StatementSync; reader: boolean }} Prepared
 */

// The API asks the same few hundred statements over and over; preparing one (parsing and planning
// the SQL) costs more than running most of them, so each connection keeps its recent statements
// by SQL text. Values are bound per call, so the text alone identifies a statement; the bound
// keeps statements whose text varies (IN lists of many lengths) from piling up.
const DEFAULT_SIZE = 500;

/**
 * @param {import('node:sqlite').DatabaseSync} db
 * @param {number} [size]
 * @returns {(sql: string) => Prepared}
 */
export function statementCache(db, size = DEFAULT_SIZE) {
  /** @type {Map<string, Prepared>} */
  const cache = new Map();
  return (sql) => {
    const hit = cache.get(sql);
    if (hit) {
      // Most recently used last, so the first entry is the one to drop.
      cache.delete(sql);
      cache.set(sql, hit);
      return hit;
    }
    const statement = db.prepare(sql);
    const prepared = { statement, reader: statement.columns().length > 0 };
    cache.set(sql, prepared);
    if (cache.size > size) cache.delete(/** @type {string} */ (cache.keys().next().value));
    return prepared;
  };
}
