import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import type { Prepared } from './statement-cache.ts';

/** Opens a SQLite file with the settings every connection of ours uses. */
export function openSqlite(path: string, options: { queryOnly?: boolean } = {}): DatabaseSync {
  if (path !== ':memory:') mkdirSync(dirname(path), { recursive: true });
  const db = new DatabaseSync(path, { timeout: 5000 });
  db.exec('PRAGMA journal_mode = WAL');
  db.exec('PRAGMA synchronous = NORMAL');
  db.exec('PRAGMA foreign_keys = ON');
  db.exec('PRAGMA cache_size = -65536');
  db.exec('PRAGMA temp_store = MEMORY');
  if (options.queryOnly) db.exec('PRAGMA query_only = 1');
  return db;
}

/** Runs one statement, returning rows for statements that produce columns. */
export function runStatement(
  prepare: (sql: string) => Prepared,
  sql: string,
  params: readonly unknown[],
): { rows: unknown[]; changes: number; lastInsertRowid: number } {
  const { statement, reader } = prepare(sql);
  const bound = params as Parameters<typeof statement.all>;
  if (reader) {
    return { rows: statement.all(...bound), changes: 0, lastInsertRowid: 0 };
  }
  const result = statement.run(...bound);
  return { rows: [], changes: Number(result.changes), lastInsertRowid: Number(result.lastInsertRowid) };
}
