import assert from 'node:assert/strict';
import { after, before, it } from 'node:test';
import { sql } from 'kysely';
import { connectDatabases, type Databases } from '../src/db/connect.ts';
import { assertFails, configFor, runCli, type Sandbox, sandbox } from './support/cli.ts';

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
  assert.match(migrated.stdout, /^Applied migrations: 0001_initial, .*0007_response_composite_keys\.\n$/);
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
