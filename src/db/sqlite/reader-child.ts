// A read-only SQLite connection in its own process. The API's reads run here so that a statement
// over its time cap can be stopped for real: the parent kills this process, which no in-process
// SQLite binding for Node can do to a statement already inside the engine.
import { openSqlite, runStatement } from './open.ts';
import { statementCache } from './statement-cache.ts';

interface Request {
  id: number;
  sql: string;
  params: unknown[];
}

const path = process.argv[2];
if (!path) throw new Error('reader-child needs the database path');
const prepare = statementCache(openSqlite(path, { queryOnly: true }));
process.send?.({ ready: true });

process.on('message', (message: Request) => {
  try {
    const { rows, changes } = runStatement(prepare, message.sql, message.params);
    process.send?.({ id: message.id, rows, changes });
  } catch (error) {
    const err = error as Error & { code?: string; errcode?: number };
    process.send?.({ id: message.id, error: { message: err.message, code: err.code, errcode: err.errcode } });
  }
});
process.on('disconnect', () => process.exit(0));
