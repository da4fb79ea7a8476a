import { DatabaseSync } from 'node:sqlite';

/**
 * SQLite's `PRAGMA data_version` on a connection of its own: the value changes whenever another
 * connection (the writer in this process, an import in another) commits, and only then. The
 * connection never writes, so every commit is another's; it reads the WAL index in shared memory,
 * so asking costs microseconds and no trip to the reader processes.
 */
export function sqliteDataVersion(path: string): { read(): string; close(): void } {
  let db: DatabaseSync | undefined;
  let statement: ReturnType<DatabaseSync['prepare']> | undefined;
  return {
    read() {
      if (!statement) {
        db = new DatabaseSync(path, { readOnly: true, timeout: 5000 });
        statement = db.prepare('PRAGMA data_version');
      }
      const row = statement.get() as { data_version: number };
      return String(row.data_version);
    },
    close() {
      db?.close();
      db = undefined;
      statement = undefined;
    },
  };
}
