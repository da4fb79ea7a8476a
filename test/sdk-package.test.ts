import assert from 'node:assert/strict';
import { execFile, spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { promisify } from 'node:util';
import { bearer, listen } from './support/context.ts';
import { createDemoContext, type DemoContext } from './support/demo.ts';

// The SDK as a newcomer gets it: packed, installed into an empty project, type-checked there and
// run on plain Node against a real server. Embedded pass only (scripts/test.mjs): the package and
// its type check do not depend on the database; the SDK's calls on PostgreSQL are sdk.test's.

const root = join(import.meta.dirname, '..');
const bin = (name: string) => join(root, 'node_modules', '.bin', name);

let demo: DemoContext;
let baseUrl: string;
before(async () => {
  demo = await createDemoContext();
  baseUrl = await listen(demo.ctx.app);
});
after(() => demo?.ctx.close());

describe('the packed SDK', () => {
  it('installs from its tarball into an empty project, type-checks there and runs on plain Node', async (t) => {
    const dir = mkdtempSync(join(tmpdir(), 'sightline-sdk-package-'));
    t.after(() => rmSync(dir, { recursive: true, force: true }));
    const sdk = join(root, 'clients', 'typescript');
    const packed = spawnSync('npm', ['pack', '--pack-destination', dir], { cwd: sdk, encoding: 'utf8' });
    assert.equal(packed.status, 0, packed.stdout + packed.stderr);
    const tarball = readdirSync(dir).find((name) => name.endsWith('.tgz'));
    assert.ok(tarball, 'npm pack wrote a tarball');

    const project = join(dir, 'project');
    mkdirSync(project);
    writeFileSync(join(project, 'package.json'), '{"name":"newcomer","private":true,"type":"module"}\n');
    const install = spawnSync(
      'npm',
      ['install', join(dir, tarball), '--no-audit', '--no-fund', '--offline'],
      {
        cwd: project,
        encoding: 'utf8',
      },
    );
    assert.equal(install.status, 0, install.stdout + install.stderr);

    // One program, run as JavaScript on plain Node (the tarball's dist/) and type-checked as
    // TypeScript with the lines a TypeScript caller adds.
    const program = [
      "import { Sightline, SightlineNotFoundError } from '@sightline/sdk';",
      'const sl = new Sightline({ apiKey: process.env.KEY, baseUrl: process.env.URL });',
      'const brand = await sl.brands.get(Number(process.env.BRAND));',
      'const names = [];',
      "for await (const b of sl.brands.list({ sort: 'name', archived: true })) names.push(b.name);",
      'const missing = await sl.brands.get(999999999).catch((e) => e instanceof SightlineNotFoundError);',
      'console.log(JSON.stringify({ name: brand.name, brands: names.length, missing }));',
    ];
    writeFileSync(join(project, 'use.mjs'), program.join('\n'));
    writeFileSync(
      join(project, 'use.ts'),
      [
        ...program,
        "import type { Brand, RunDetail } from '@sightline/sdk';",
        "const typed: Pick<Brand, 'name' | 'averageScore'> = brand;",
        "const next: RunDetail['responsesNext'] = null;",
        // Type-checked only: `format: 'csv'` makes the answer text.
        "const csv = (): Promise<string> => sl.brands.analytics(1, { format: 'csv', block: 'sources.items' });",
        'export { typed, next, csv };',
        'declare const process: { env: Record<string, string | undefined> };',
      ].join('\n'),
    );
    // A browser-like consumer: the DOM library, no @types/node, the package's .d.ts checked too.
    const tsc = spawnSync(
      bin('tsc'),
      ['--noEmit', '--strict', '--module', 'nodenext', '--target', 'es2022', '--lib', 'es2022,dom', 'use.ts'],
      { cwd: project, encoding: 'utf8' },
    );
    assert.equal(tsc.status, 0, tsc.stdout + tsc.stderr);

    const brand = (
      await demo.ctx.app.inject({
        url: `/api/brands/${demo.fixtures.brandId}/`,
        headers: bearer(demo.keys.acme),
      })
    ).json();
    // Asynchronously: the server answering it runs in this process.
    const run = await promisify(execFile)(process.execPath, ['use.mjs'], {
      cwd: project,
      env: {
        PATH: process.env.PATH,
        KEY: demo.keys.acme,
        URL: baseUrl,
        BRAND: String(demo.fixtures.brandId),
      },
    });
    assert.deepEqual(JSON.parse(run.stdout), {
      name: brand.name,
      brands: demo.brandIds.acme.length,
      missing: true,
    });
  });
});
