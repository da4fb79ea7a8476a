// @ts-check
// A read-only SQLite connection in its own process. The API's reads run here so that a statement
// over its time cap can be stopped for real: the parent kills this process, which no in-process
// SQLite binding for Node can do to a statement already inside the engine. JavaScript, as are the
// two modules it loads, so that the process never starts Node's type stripper (open.js).
import { openSqlite, runStatement } from './open.js';
import { statementCache } from './statement-cache.js';

/** @typedef {{ id: number; sql: string; params: unknown[] }} Request */

const path = process.argv[2];
if (!path) throw new Error('reader-child needs the database path');
// Rows travel to the service as arrays with their column names once: copying a message of arrays
// costs about half of copying the same rows as objects, each repeating every key
// (docs/performance.md, "Rows from the readers as arrays").
const prepare = statementCache(openSqlite(path, { queryOnly: true }), { returnArrays: true });
process.send?.({ ready: true });

process.on('message', (/** @type {Request} */ message) => {
  try {
    const { rows, columns, changes } = runStatement(prepare, message.sql, message.params);
    process.send?.({ id: message.id, rows, columns, changes });
  } catch (error) {
    const err = /** @type {Error & { code?: string; errcode?: number }} */ (error);
    process.send?.({ id: message.id, error: { message: err.message, code: err.code, errcode: err.errcode } });
  }
});
process.on('disconnect', () => process.exit(0));
