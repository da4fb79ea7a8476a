import assert from 'node:assert/strict';
import { after, before, it } from 'node:test';
import { sql } from 'kysely';
import { Migrator } from 'kysely/migration';
import { insertRows } from '../src/db/bulk-insert.ts';
import { connectDatabases, type Databases } from '../src/db/connect.ts';
import { MIGRATIONS, migrateToLatest } from '../src/db/migrate.ts';
import { assertFails, configFor, runCli, type Sandbox, sandbox } from './support/cli.ts';
import { BrandFixture, insertOrg } from './support/fixtures.ts';

// `sightline migrate` applies what is pending all or nothing, on SQLite as on PostgreSQL: a
// migration that fails halfway (here on a table that is in the way, as a full disk or a killed
// process would stop it elsewhere) leaves none of its tables behind and none recorded, and the
// next `migrate` applies everything once the obstacle is gone. Runs started together apply it once.

let box: Sandbox;
let dbs: Databases;

before(async () => {
  box = await sandbox();
  dbs = connectDatabases(configFor(box));
});

after(async () => {
  await dbs.close();
  await box.close();
});

/** The tables of the database, the migrator's own aside. */
async function tables(): Promise<string[]> {
  const all = await dbs.primary.introspection.getTables();
  return all.map((table) => table.name).filter((name) => !name.startsWith('kysely_'));
}

it('leaves nothing of a migration that fails halfway, then applies every migration once', async () => {
  // The first migration creates this table near its end, after two dozen others.
  await sql`create table recommendation_outcomes (x integer)`.execute(dbs.primary);

  assertFails(box.cli('migrate'), 1, /recommendation_outcomes.*already exists/);
  assert.deepEqual(await tables(), ['recommendation_outcomes']);
  const applied = await sql<{ n: number }>`select count(*) as n from kysely_migration`.execute(dbs.primary);
  assert.equal(Number(applied.rows[0]?.n), 0);

  await sql`drop table recommendation_outcomes`.execute(dbs.primary);
  const migrated = box.cli('migrate');
  assert.equal(migrated.status, 0, migrated.stderr);
  assert.match(migrated.stdout, /^Applied migrations: 0001_initial, .*0010_artifact_draft_claims\.\n$/);
  assert.ok((await tables()).includes('organizations'));
  assert.equal(box.cli('migrate').stdout, 'The database schema is up to date.\n');
});

it('applies the migrations once when three runs start together', async () => {
  const fresh = await sandbox();
  try {
    const runs = await Promise.all(
      [1, 2, 3].map(() => runCli(fresh.services.overrides.databaseUrl, 'migrate')),
    );
    for (const run of runs) assert.equal(run.status, 0, run.stderr);
    const outputs = runs.map((run) => run.stdout).sort();
    assert.match(outputs[0] as string, /^Applied migrations: 0001_initial, /);
    assert.deepEqual(outputs.slice(1), [
      'The database schema is up to date.\n',
      'The database schema is up to date.\n',
    ]);
  } finally {
    await fresh.close();
  }
});

it("keeps every mention and citation, their ids and the next id, when SQLite's tables are rebuilt for their keys (0008)", async () => {
  const fresh = await sandbox();
  const own = connectDatabases(configFor(fresh));
  try {
    const db = own.primary;
    const migrator = new Migrator({ db, provider: { getMigrations: async () => MIGRATIONS } });
    assert.equal((await migrator.migrateTo('0007_response_composite_keys')).error, undefined);
    const org = await insertOrg(db, 'rebuilt');
    const brand = await BrandFixture.insert(db, org);
    const category = await brand.category();
    const competitor = await brand.competitor(category, 'Rival');
    const prompt = await brand.prompt(category);
    const run = await brand.run({
      category,
      answers: [
        {
          prompt,
          mentions: [
            { competitor: null, rank: 1, isBrand: true, name: 'Brand' },
            { competitor, rank: 2, name: 'Rival' },
            { competitor: null, rank: null, name: 'Someone' },
          ],
          citations: ['https://a.example/1', 'https://b.example/2'],
        },
      ],
    });
    // The newest of each deleted: its id must stay unused after the rebuild.
    await db.deleteFrom('response_mentions').where('id', '=', 3).execute();
    await db.deleteFrom('response_citations').where('id', '=', 2).execute();
    const rows = async () => ({
      mentions: await db.selectFrom('response_mentions').selectAll().orderBy('id').execute(),
      citations: await db.selectFrom('response_citations').selectAll().orderBy('id').execute(),
    });
    const before = await rows();
    assert.deepEqual(
      before.mentions.map((m) => [m.id, m.name]),
      [
        [1, 'Brand'],
        [2, 'Rival'],
      ],
    );

    assert.deepEqual(await migrateToLatest(db), [
      '0008_sqlite_response_composite_keys',
      '0009_weighted_sums_bigint',
      '0010_artifact_draft_claims',
    ]);
    assert.deepEqual(await rows(), before);
    const response = before.mentions[0]?.response_id as number;
    await insertRows(db, 'response_mentions', [
      {
        org_id: org,
        run_id: run,
        response_id: response,
        competitor_id: null,
        is_brand: 0,
        name: 'New',
        rank: null,
      },
    ]);
    await insertRows(db, 'response_citations', [
      {
        org_id: org,
        run_id: run,
        response_id: response,
        url: 'https://c.example/',
        domain: 'c.example',
        position: 2,
      },
    ]);
    const after = await rows();
    assert.deepEqual(
      after.mentions.map((m) => m.id),
      [1, 2, 4],
    );
    assert.deepEqual(
      after.citations.map((c) => c.id),
      [1, 3],
    );
  } finally {
    await own.close();
    await fresh.close();
  }
});
