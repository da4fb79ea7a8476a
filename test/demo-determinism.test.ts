import assert from 'node:assert/strict';
import { after, before, it } from 'node:test';
import { sql } from 'kysely';
import { type DemoManifest, findDemoManifest, seedDemo } from '../src/demo/seed.ts';
import { createTestContext, type TestContext } from './support/context.ts';
import { fingerprint } from './support/demo-rows.ts';
import { PINNED_DEMO_SEEDED_AT } from './support/templates.ts';

// The demo is a function of its seeding day: seeded again in the evening of the pinned template's
// day, it gives the same manifest and the same rows, table by table. The generator decides every
// row, whatever the database, so scripts/test.mjs runs this in the embedded pass only; on
// PostgreSQL, parity.test compares the demo seeded there with the one seeded on SQLite, endpoint
// by endpoint.

const EVENING = new Date('2026-03-15T23:50:00Z');

let morning: TestContext;
let evening: TestContext;
let pinned: DemoManifest | undefined;
let again: DemoManifest;

before(async () => {
  assert.equal(PINNED_DEMO_SEEDED_AT.toISOString().slice(0, 10), EVENING.toISOString().slice(0, 10));
  morning = await createTestContext({}, { template: 'demo' });
  evening = await createTestContext();
  pinned = await findDemoManifest(morning.dbs.primary);
  again = await seedDemo(evening.dbs.primary, { now: EVENING });
});
after(async () => {
  await morning?.close();
  await evening?.close();
});

it('is deterministic: the same day gives the same manifest and the same rows', async () => {
  assert.deepEqual(again, pinned);
  const [late, early] = await Promise.all([
    fingerprint(evening.dbs.primary),
    fingerprint(morning.dbs.primary),
  ]);
  assert.deepEqual(late, early);
});

it('stops with the database’s own error when the monitored brand’s run cannot be planned', async () => {
  const refusing = await createTestContext();
  try {
    const db = refusing.dbs.primary;
    // Brand 10 is the one Sightline monitors itself: its days are planned by the worker's steps.
    await sql`create trigger refuse_runs before insert on runs when new.brand_id = 10
      begin select raise(abort, 'disk full'); end`.execute(db);
    await assert.rejects(seedDemo(db, { now: EVENING }), { message: 'disk full' });
  } finally {
    await refusing.close();
  }
});
