import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';

// What a process loads to reach its database: on the embedded one, no PostgreSQL driver (~35
// modules, ~10 ms of every command's start: docs/performance.md, "The command's start").

const root = fileURLToPath(new URL('..', import.meta.url));
const scratch = mkdtempSync(join(tmpdir(), 'sl-start-up-'));
after(() => rmSync(scratch, { recursive: true, force: true }));

/** Whether connecting to `url` (no statement sent) loaded node-postgres, in a process of its own. */
function loadsPostgresDriver(url: string): boolean {
  const script = `
    import { createRequire } from 'node:module';
    const { connectDatabases } = await import('./src/db/connect.ts');
    const dbs = connectDatabases({ databaseUrl: ${JSON.stringify(url)}, databasePoolSize: 1,
      databasePreparedStatements: 0, queryTimeoutMs: 1000 });
    const loaded = Object.keys(createRequire(import.meta.url).cache).some((file) => file.includes('/node_modules/pg/'));
    await dbs.close();
    console.log(JSON.stringify(loaded));`;
  const out = execFileSync(process.execPath, ['--input-type=module', '-e', script], {
    cwd: root,
    encoding: 'utf8',
  });
  return JSON.parse(out.trim().split('\n').at(-1) as string);
}

describe('start-up', () => {
  it('connecting to the embedded database loads no PostgreSQL driver; a PostgreSQL URL does', () => {
    assert.equal(loadsPostgresDriver(`sqlite:${join(scratch, 'start-up.db')}`), false);
    // Connecting sends nothing: no server needs to answer for the driver to be loaded.
    assert.equal(loadsPostgresDriver('postgres://postgres@127.0.0.1:1/none'), true);
  });
});
