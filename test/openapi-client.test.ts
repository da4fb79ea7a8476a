import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import openapiTS, { astToString } from 'openapi-typescript';
import { createTestContext, type TestContext } from './support/context.ts';

// The OpenAPI document is something a client is generated from: it passes Redocly's recommended
// rules, and openapi-typescript turns it into types that compile and name every resource.

const bin = (name: string) => join(import.meta.dirname, '..', 'node_modules', '.bin', name);

let ctx: TestContext;
let dir: string;
let document: Record<string, unknown>;
before(async () => {
  ctx = await createTestContext();
  document = (await ctx.app.inject({ url: '/api/openapi.json' })).json();
  dir = mkdtempSync(join(tmpdir(), 'sightline-client-'));
});
after(async () => {
  rmSync(dir, { recursive: true, force: true });
  await ctx?.close();
});

describe('the OpenAPI document as a client generator sees it', () => {
  it('passes redocly lint with the recommended rules', () => {
    const file = join(dir, 'openapi.json');
    writeFileSync(file, JSON.stringify(document));
    // Run by this Node (the project's 24), not whichever `node` is first on PATH: redocly warns
    // about old ones, and a warning fails the lint below.
    const lint = spawnSync(
      process.execPath,
      [bin('redocly'), 'lint', file, '--config', 'redocly.yaml', '--format', 'stylish'],
      { encoding: 'utf8' },
    );
    assert.equal(lint.status, 0, `${lint.stdout}\n${lint.stderr}`);
    assert.doesNotMatch(lint.stdout + lint.stderr, /warning/i);
  });

  it('names every operation and its body schemas', () => {
    const paths = document.paths as Record<string, Record<string, { operationId?: string }>>;
    const ids = Object.values(paths).flatMap((ops) => Object.values(ops).map((op) => op.operationId));
    assert.ok(
      ids.every((id) => typeof id === 'string' && /^[a-z][A-Za-z]+$/.test(id)),
      ids.join(' '),
    );
    assert.equal(new Set(ids).size, ids.length, 'operation ids are unique');
    assert.ok(ids.includes('getBrand') && ids.includes('listBrandRuns'));
    const schemas = Object.keys((document.components as { schemas: object }).schemas);
    for (const name of [
      'Brand',
      'BrandList',
      'RunDetail',
      'Analytics',
      'ReportArtifact',
      'Detail',
      'FieldErrors',
    ]) {
      assert.ok(schemas.includes(name), `components.schemas.${name}`);
    }
    assert.deepEqual(
      schemas.filter((name) => /^def-\d+$/.test(name)),
      [],
    );
  });

  it('generates a TypeScript client that type-checks and names the resources', async () => {
    const types = astToString(await openapiTS(document as never));
    assert.match(types, /\bBrand: \{/);
    writeFileSync(join(dir, 'api.ts'), types);
    // A caller of the generated types: these lines compile only if the names and shapes are there.
    writeFileSync(
      join(dir, 'use.ts'),
      [
        "import type { components, operations, paths } from './api.ts';",
        "type Brand = components['schemas']['Brand'];",
        "type Run = paths['/api/runs/{run_id}/']['get']['responses'][200]['content']['application/json'];",
        "const brand: Pick<Brand, 'id' | 'name'> = { id: '1', name: 'Acme' };",
        "const run: Pick<Run, 'responsesNext'> = { responsesNext: null };",
        "type Page = NonNullable<operations['listBrandRuns']['parameters']['query']>['page'];",
        'const page: Page = 2;',
        "type Refused = components['schemas']['Detail']['detail'];",
        "const refused: Refused = 'Not found.';",
        'export { brand, page, refused, run };',
      ].join('\n'),
    );
    const tsc = spawnSync(
      bin('tsc'),
      [
        '--noEmit',
        '--strict',
        '--allowImportingTsExtensions',
        '--module',
        'nodenext',
        '--target',
        'es2022',
        join(dir, 'use.ts'),
      ],
      { encoding: 'utf8' },
    );
    assert.equal(tsc.status, 0, tsc.stdout + tsc.stderr);
  });
});
