import assert from 'node:assert/strict';
import { DatabaseSync } from 'node:sqlite';
import { after, before, it } from 'node:test';
import { sql } from 'kysely';
import { buildApp } from '../src/app.ts';
import type { App } from '../src/http/types.ts';
import { bearer, createTestContext, type TestContext } from './support/context.ts';
import { insertOrg, mintKey } from './support/fixtures.ts';

// On SQLite another process's long write (an import holds the write lock for as long as it runs)
// must not stall the service: node:sqlite waits for a lock synchronously, so a wait would hold up
// every request. The service's own writes (keys' last use) do not wait; one that finds the lock
// taken is written later.

let ctx: TestContext;
let app: App;
let key: string;

before(async () => {
  ctx = await createTestContext();
  key = await mintKey(ctx.dbs.primary, await insertOrg(ctx.dbs.primary, 'acme'));
  // Its own connections, as `sightline serve` has.
  app = await buildApp(ctx.config, { logger: false });
  await app.ready();
});
after(() => ctx.close());

const lastUsed = async () =>
  (await ctx.dbs.primary.selectFrom('api_keys').select('last_used_at').executeTakeFirstOrThrow())
    .last_used_at;

it("does not wait for another process's write lock, and writes a key's first use once it is free", async () => {
  const busy = await sql<{ timeout: number }>`pragma busy_timeout`.execute(app.dbs.primary);
  assert.equal(busy.rows[0]?.timeout, 0, "the service's connection does not wait for the lock");

  const writer = new DatabaseSync(ctx.config.databaseUrl.slice('sqlite:'.length));
  writer.exec('begin immediate');
  try {
    const res = await app.inject({ url: '/api/brands/', headers: bearer(key) });
    assert.equal(res.statusCode, 200);
    assert.equal(await lastUsed(), null, 'the first use could not be written while the lock was held');
  } finally {
    writer.exec('rollback');
    writer.close();
  }
  // Kept, and written with the others (here by the service's close).
  await app.close();
  assert.notEqual(await lastUsed(), null);
});
