// @ts-check
// JavaScript: the reader process loads it (open.js says why).

import { recentlyUsed } from '../../domain/recently-used.js';

/**
 * A prepared statement, whether it returns rows, and the names of its columns.
 * @typedef {{ statement: import('node:sqlite').StatementSync; reader: boolean; columns: string[] }} Prepared
 */

// The API asks the same few hundred statements over and over; preparing one (parsing and planning
// the SQL) costs more than running most of them, so each connection keeps its recent statements
// by SQL text. Values are bound per call, so the text alone identifies a statement; the bound
// keeps statements whose text varies (IN lists of many lengths) from piling up.
const DEFAULT_SIZE = 500;

/**
 * @param {import('node:sqlite').DatabaseSync} db
 * @param {{ size?: number; returnArrays?: boolean }} [options] `returnArrays`: rows as arrays in
 *   column order instead of objects (the reader process sends them so, see reader-child.js)
 * @returns {(sql: string) => Prepared}
 */
export function statementCache(db, { size = DEFAULT_SIZE, returnArrays = false } = {}) {
  /** @type {(sql: string, make: () => Prepared) => Prepared} */
  const cached = recentlyUsed(size);
  return (sql) =>
    cached(sql, () => {
      const statement = db.prepare(sql);
      const columns = statement.columns().map((column) => column.name);
      if (returnArrays) statement.setReturnArrays(true);
      return { statement, reader: columns.length > 0, columns };
    });
}
