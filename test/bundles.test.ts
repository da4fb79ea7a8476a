import assert from 'node:assert/strict';
import { execFileSync, spawn, spawnSync } from 'node:child_process';
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { setTimeout as delay } from 'node:timers/promises';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { BUNDLED, packageBundle } from '../bin/bundles.js';

// `sightline` loads Kysely and TypeBox from a bundle it builds once (bin/bundles.js). The bundle
// must be the packages themselves: the same exports of every entry point, the same SQL, the same
// schemas and verdicts.

const modules = fileURLToPath(new URL('../node_modules/', import.meta.url));
const scratch = mkdtempSync(join(tmpdir(), 'sl-bundles-'));
after(() => rmSync(scratch, { recursive: true, force: true }));

type KyselyModule = typeof import('kysely');
type TypeBoxModule = typeof import('typebox');
type TypeBoxSchemaModule = typeof import('typebox/schema');

/** A package's own module for an entry point (by file, so no hook sends it to a bundle). */
const original = (file: string) => import(pathToFileURL(join(modules, file)).href);

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

/** A schema built with one copy of TypeBox, and its verdict on values worked out by hand. */
function verdicts(t: TypeBoxModule, schema: TypeBoxSchemaModule) {
  const brand = t.Type.Object({
    id: t.Type.Integer({ minimum: 1 }),
    name: t.Type.String({ maxLength: 3 }),
    tags: t.Type.Optional(t.Type.Array(t.Type.String())),
  });
  const check = schema.Compile(brand);
  return {
    schema: JSON.parse(JSON.stringify(brand)),
    checks: [
      { id: 1, name: 'abc' },
      { id: 0, name: 'abc' },
      { id: 1, name: 'abcd' },
      { id: 1, name: 'a', tags: ['x'] },
      { id: 1.5, name: 'a' },
      { id: 1, name: 'a', tags: [2] },
    ].map((value) => check.Check(value)),
  };
}

/** This process's child processes named esbuild that are still running (not exited). */
function esbuildChildren(): string[] {
  return readdirSync('/proc')
    .filter((pid) => /^\d+$/.test(pid))
    .flatMap((pid) => {
      try {
        const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
        const name = stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')'));
        const [state, parent] = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
        return Number(parent) === process.pid && state !== 'Z' && name.includes('esbuild') ? [pid] : [];
      } catch {
        return []; // gone meanwhile
      }
    });
}

describe('Kysely and TypeBox bundled for the start (bin/bundles.js)', () => {
  it('builds a bundle with every entry point and export of each package', async () => {
    const root = join(scratch, 'one');
    const files = await packageBundle(root);
    assert.ok(files, 'the bundle was built');
    assert.deepEqual(
      [...new Set([...files.keys()].map((specifier) => specifier.split('/')[0]))].sort(),
      [...BUNDLED].sort(),
    );
    assert.ok(files.has('kysely/migration') && files.has('typebox/schema'));
    for (const [specifier, url] of files) {
      assert.ok(fileURLToPath(url).startsWith(root), specifier);
      const [name, ...rest] = specifier.split('/');
      const exports = JSON.parse(readFileSync(join(modules, name as string, 'package.json'), 'utf8')).exports;
      const target = exports[rest.length === 0 ? '.' : `./${rest.join('/')}`];
      const file = typeof target === 'string' ? target : (target.import ?? target.default);
      const own = await original(join(name as string, file));
      assert.deepEqual(Object.keys(await import(url)).sort(), Object.keys(own).sort(), specifier);
    }
  });

  it('Kysely from the bundle compiles the same SQL', async () => {
    const files = await packageBundle(join(scratch, 'one'));
    const bundled: KyselyModule = await import(files?.get('kysely') as string);
    const own: KyselyModule = await original('kysely/dist/index.js');
    assert.deepEqual(compiled(bundled), compiled(own));
    assert.deepEqual(compiled(bundled), {
      sql: 'select "id", "name" from "brands" where "org_id" = ? and ("name" like ? or "id" in (?, ?)) order by "name" limit ?',
      parameters: [7, 'A%', 1, 2, 25],
    });
  });

  it('TypeBox from the bundle builds the same schemas and gives the same verdicts', async () => {
    const files = await packageBundle(join(scratch, 'one'));
    const bundled = verdicts(
      await import(files?.get('typebox') as string),
      await import(files?.get('typebox/schema') as string),
    );
    const own = verdicts(
      await original('typebox/build/index.mjs'),
      await original('typebox/build/schema/index.mjs'),
    );
    assert.deepEqual(bundled, own);
    assert.deepEqual(bundled.checks, [true, false, false, true, false, false]);
    assert.equal(bundled.schema.properties.id.minimum, 1);
  });

  it('leaves no build process running once it is built', async () => {
    assert.ok(await packageBundle(join(scratch, 'no-leftovers')));
    // esbuild builds in a process of its own; a service that happened to build the bundle at its
    // start would otherwise keep it for its whole life. It is told to stop when the build ends and
    // takes a moment to go: a second at most, or it was left running.
    let running = esbuildChildren();
    for (let i = 0; i < 20 && running.length > 0; i++) {
      await delay(50);
      running = esbuildChildren();
    }
    assert.deepEqual(running, []);
  });

  it('is built once: a later start finds it and changes nothing', async () => {
    const root = join(scratch, 'again');
    const first = await packageBundle(root);
    assert.ok(first);
    const file = fileURLToPath(first.get('kysely') as string);
    const builtAt = statSync(file).mtimeMs;
    const second = await packageBundle(root);
    assert.deepEqual(second, first);
    assert.equal(statSync(file).mtimeMs, builtAt);
  });

  it('processes starting together each get a whole bundle, and nothing is left half-built', async () => {
    const root = join(scratch, 'together');
    const all = await Promise.all([packageBundle(root), packageBundle(root), packageBundle(root)]);
    for (const files of all) assert.deepEqual(files, all[0]);
    assert.deepEqual(
      readdirSync(root).filter((name) => name.startsWith('.building')),
      [],
    );
    for (const url of (all[0] as Map<string, string>).values())
      assert.ok(existsSync(fileURLToPath(url)), url);
  });

  it("a build removes what killed processes' builds left, and leaves running ones' alone", async () => {
    const root = join(scratch, 'abandoned');
    const ended = spawnSync(process.execPath, ['-e', '0']).pid as number;
    const running = spawn(process.execPath, ['-e', 'setTimeout(() => {}, 60_000)']);
    after(() => running.kill());
    const left = [`.building-${ended}-1`, `.building-${ended}-2`];
    const underWay = `.building-${running.pid}-1`;
    for (const name of [...left, underWay]) {
      mkdirSync(join(root, name, 'kysely'), { recursive: true });
      writeFileSync(join(root, name, 'kysely', 'index.js'), '');
    }
    assert.ok(await packageBundle(root));
    const names = readdirSync(root);
    for (const name of left) assert.ok(!names.includes(name), name);
    assert.ok(names.includes(underWay));
  });

  it('a bundle damaged by hand is not used (the packages load as they are) and nothing throws', async () => {
    const root = join(scratch, 'damaged');
    const files = await packageBundle(root);
    assert.ok(files);
    rmSync(fileURLToPath(files.get('kysely') as string));
    assert.equal(await packageBundle(root), undefined);
  });

  it('where no bundle can be kept, answers nothing and throws nothing (Kysely then loads as it is)', async () => {
    const file = join(scratch, 'a-file');
    writeFileSync(file, '');
    assert.equal(await packageBundle(join(file, 'cache')), undefined);
  });

  it('`sightline` and the test runner resolve Kysely and TypeBox to the bundle', () => {
    const resolved = execFileSync(
      process.execPath,
      [
        '--import=./bin/use-bundles.js',
        '--input-type=module',
        '-e',
        "console.log(['kysely', 'kysely/migration', 'typebox', 'typebox/schema'].map((s) => import.meta.resolve(s)).join(' '))",
      ],
      { cwd: fileURLToPath(new URL('..', import.meta.url)), encoding: 'utf8' },
    )
      .trim()
      .split(' ');
    assert.equal(resolved.length, 4);
    for (const url of resolved)
      assert.match(
        url,
        /\/node_modules\/\.cache\/sightline\/kysely-[^/]+_typebox-[^/]+\/(kysely|typebox)\/[a-z/]+\.js$/,
      );
  });
});
