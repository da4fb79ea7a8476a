import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { kyselyBundle } from '../bin/kysely-bundle.js';

// `sightline` loads Kysely from a bundle it builds once (bin/kysely-bundle.js). The bundle must be
// Kysely itself: the same exports and the same SQL, whichever entry point a module imports.

const installed = fileURLToPath(new URL('../node_modules/kysely/', import.meta.url));
const scratch = mkdtempSync(join(tmpdir(), 'sl-kysely-bundle-'));
after(() => rmSync(scratch, { recursive: true, force: true }));

type KyselyModule = typeof import('kysely');

/** Kysely's own module for an entry (by file, so no hook sends it to a bundle). */
const original = (file: string) => import(pathToFileURL(join(installed, 'dist', file)).href);

function compiled(k: KyselyModule): { sql: string; parameters: readonly unknown[] } {
  const db = new k.Kysely<{ brands: { id: number; name: string; org_id: number } }>({
    dialect: {
      createAdapter: () => new k.SqliteAdapter(),
      createDriver: () => new k.DummyDriver(),
      createIntrospector: (db) => new k.SqliteIntrospector(db),
      createQueryCompiler: () => new k.SqliteQueryCompiler(),
    },
  });
  const { sql, parameters } = db
    .selectFrom('brands')
    .select(['id', 'name'])
    .where('org_id', '=', 7)
    .where((eb) => eb.or([eb('name', 'like', 'A%'), eb('id', 'in', [1, 2])]))
    .orderBy('name')
    .limit(25)
    .compile();
  return { sql, parameters };
}

describe('Kysely bundled for the start (bin/kysely-bundle.js)', () => {
  it('builds a bundle with every export of Kysely and of kysely/migration, and the same SQL', async () => {
    const root = join(scratch, 'one');
    const files = await kyselyBundle(root);
    assert.ok(files, 'the bundle was built');
    const main = files.get('kysely');
    const migration = files.get('kysely/migration');
    assert.ok(main && migration);
    assert.ok(fileURLToPath(main).startsWith(root));

    const bundled: KyselyModule = await import(main);
    const own: KyselyModule = await original('index.js');
    assert.deepEqual(Object.keys(bundled).sort(), Object.keys(own).sort());
    assert.ok(Object.keys(own).length > 100);
    assert.deepEqual(compiled(bundled), compiled(own));
    assert.deepEqual(compiled(bundled), {
      sql: 'select "id", "name" from "brands" where "org_id" = ? and ("name" like ? or "id" in (?, ?)) order by "name" limit ?',
      parameters: [7, 'A%', 1, 2, 25],
    });

    const bundledMigration = await import(migration);
    const ownMigration = await original('migration/index.js');
    assert.deepEqual(Object.keys(bundledMigration).sort(), Object.keys(ownMigration).sort());
    assert.ok('Migrator' in bundledMigration);
  });

  it('is built once: a later start finds it and changes nothing', async () => {
    const root = join(scratch, 'again');
    const first = await kyselyBundle(root);
    assert.ok(first);
    const file = fileURLToPath(first.get('kysely') as string);
    const builtAt = statSync(file).mtimeMs;
    const second = await kyselyBundle(root);
    assert.deepEqual(second, first);
    assert.equal(statSync(file).mtimeMs, builtAt);
  });

  it('processes starting together each get a whole bundle, and nothing is left half-built', async () => {
    const root = join(scratch, 'together');
    const all = await Promise.all([kyselyBundle(root), kyselyBundle(root), kyselyBundle(root)]);
    for (const files of all) assert.deepEqual(files, all[0]);
    assert.deepEqual(
      readdirSync(root).filter((name) => name.startsWith('.building')),
      [],
    );
    for (const url of (all[0] as Map<string, string>).values())
      assert.ok(existsSync(fileURLToPath(url)), url);
  });

  it('where no bundle can be kept, answers nothing and throws nothing (Kysely then loads as it is)', async () => {
    const file = join(scratch, 'a-file');
    writeFileSync(file, '');
    assert.equal(await kyselyBundle(join(file, 'cache')), undefined);
  });

  it('`sightline` and the test runner resolve `kysely` to the bundle', () => {
    const resolved = execFileSync(
      process.execPath,
      [
        '--import=./bin/use-kysely-bundle.js',
        '--input-type=module',
        '-e',
        "console.log(import.meta.resolve('kysely'), import.meta.resolve('kysely/migration'))",
      ],
      { cwd: fileURLToPath(new URL('..', import.meta.url)), encoding: 'utf8' },
    )
      .trim()
      .split(' ');
    for (const url of resolved)
      assert.match(url, /\/node_modules\/\.cache\/sightline\/kysely-[^/]+\/[a-z/]+\.js$/);
  });
});
