// @ts-check
// JavaScript with checked JSDoc types, like the rest of the reader process (reader-child.js): a
// process that loads any .ts module pays for Node's type stripper, ~18 MiB per reader
// (docs/decisions.md, "The SQLite reader process is JavaScript").
import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import { DatabaseSync } from 'node:sqlite';

/**
 * Opens a SQLite file with the settings every connection of ours uses. `writeWaitMs`: how long a
 * write waits for another process's write lock (5 s by default; the wait blocks the thread).
 * @param {string} path
 * @param {{ queryOnly?: boolean; writeWaitMs?: number }} [options]
 * @returns {DatabaseSync}
 */
export function openSqlite(path, options = {}) {
  if (path !== ':memory:') mkdirSync(dirname(path), { recursive: true });
  const db = new DatabaseSync(path, { timeout: options.writeWaitMs ?? 5000 });
  db.exec('PRAGMA journal_mode = WAL');
  db.exec('PRAGMA synchronous = NORMAL');
  db.exec('PRAGMA foreign_keys = ON');
  db.exec('PRAGMA cache_size = -65536');
  db.exec('PRAGMA temp_store = MEMORY');
  if (options.queryOnly) db.exec('PRAGMA query_only = 1');
  return db;
}

/**
 * Runs one statement: the rows (as the statement returns them: objects, or arrays in the order
 * of `columns`) of a statement that produces columns, the changes of one that does not.
 * @param {(sql: string) => import('./statement-cache.js').Prepared} prepare
 * @param {string} sql
 * @param {readonly unknown[]} params
 * @returns {{ rows: unknown[]; columns: string[]; changes: number; lastInsertRowid: number }}
 */
export function runStatement(prepare, sql, params) {
  const { statement, reader, columns } = prepare(sql);
  const bound = /** @type {Parameters<typeof statement.all>} */ (params);
  if (reader) {
    return { rows: statement.all(...bound), columns, changes: 0, lastInsertRowid: 0 };
  }
  const result = statement.run(...bound);
  return {
    rows: [],
    columns,
    changes: Number(result.changes),
    lastInsertRowid: Number(result.lastInsertRowid),
  };
}
