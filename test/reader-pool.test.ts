import assert from 'node:assert/strict';
import { after, before, it } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { bearer, createTestContext, type TestContext } from './support/context.ts';
import { insertOrg, mintKey } from './support/fixtures.ts';
import { isAlive, readerPids } from './support/readers.ts';

// The SQLite reader processes die in other ways than by the cap (test/query-cap.test.ts): killed
// from outside, or out of memory. A request after that must be served by a fresh reader, not fail
// on the dead one. scripts/test.mjs runs this file in the embedded pass only: PostgreSQL has no
// reader processes (its lost connections: test/postgres-connection-loss.test.ts).

let ctx: TestContext;
let key: string;

before(async () => {
  if (process.env.TEST_DATABASE_URL) {
    throw new Error('reader-pool.test.ts tests SQLite reader processes: run it without TEST_DATABASE_URL');
  }
  ctx = await createTestContext({ databasePoolSize: 2 });
  key = await mintKey(ctx.dbs.primary, await insertOrg(ctx.dbs.primary, 'acme'));
});
after(() => ctx?.close());

const brands = () => ctx.app.inject({ url: '/api/brands/', headers: bearer(key) });

it('serves the next request when the idle reader processes have died', async () => {
  // Two requests at once start both readers; both are idle once they are answered.
  const warm = await Promise.all([brands(), brands()]);
  assert.deepEqual(
    warm.map((res) => res.statusCode),
    [200, 200],
  );
  const idle = readerPids();
  assert.equal(idle.length, 2, 'two idle reader processes');
  for (const pid of idle) process.kill(pid, 'SIGKILL');
  for (let i = 0; i < 50 && idle.some(isAlive); i++) await sleep(20);
  assert.equal(idle.some(isAlive), false, 'both readers are gone');
  // A commit, so that the answers below are read again rather than served from the response cache.
  await insertOrg(ctx.dbs.primary, 'globex');

  const [first, second] = await Promise.all([brands(), brands()]);
  assert.equal(first.statusCode, 200, first.body);
  assert.equal(second.statusCode, 200, second.body);
  assert.deepEqual(first.json().results, []);
  const fresh = readerPids();
  assert.ok(fresh.length > 0, 'fresh readers answered');
  assert.ok(
    fresh.every((pid) => !idle.includes(pid)),
    'none of the dead ones',
  );
});
