import assert from 'node:assert/strict';
import { type ChildProcess, spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { after, before, describe, it } from 'node:test';
import { connectDatabases } from '../src/db/connect.ts';
import { assertFails, configFor, KEY, MAIN, type Sandbox, sandbox } from './support/cli.ts';

// `sightline start` (what `npm start` runs: the embedded default, so this file runs in the
// embedded pass only; scripts/test.mjs) and `demo seed`, as child processes on a database of their own.

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => resolve(typeof address === 'object' && address ? address.port : 0));
    });
  });
}

/** Collects a child's stdout until `pattern` matches (or the child exits, or time runs out). */
function waitForOutput(child: ChildProcess, pattern: RegExp, timeoutMs: number): Promise<string> {
  return new Promise((resolve, reject) => {
    let out = '';
    let err = '';
    const timer = setTimeout(() => reject(new Error(`timed out; stdout: ${out}; stderr: ${err}`)), timeoutMs);
    child.stderr?.on('data', (chunk) => {
      err += chunk;
    });
    child.stdout?.on('data', (chunk) => {
      out += chunk;
      if (pattern.test(out)) {
        clearTimeout(timer);
        resolve(out);
      }
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`exited with ${code}; stdout: ${out}; stderr: ${err}`));
    });
  });
}

describe('sightline start and demo seed', () => {
  let box: Sandbox;
  before(async () => {
    box = await sandbox();
  });
  after(() => box.close());

  async function start(port: number): Promise<{ child: ChildProcess; output: string }> {
    const child = spawn(process.execPath, [MAIN, 'start'], {
      env: { ...box.env, PORT: String(port) },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    try {
      return { child, output: await waitForOutput(child, /API docs: \S+\n/, 120_000) };
    } catch (error) {
      // A start that never got to serving (still seeding, say) must not outlive the test file.
      child.kill('SIGKILL');
      throw error;
    }
  }

  async function stop(child: ChildProcess): Promise<number | null> {
    const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
    child.kill('SIGTERM');
    return exited;
  }

  it('start migrates a fresh database, seeds the demo, prints a working key and curl line, and serves', async () => {
    const port = await freePort();
    const { child, output } = await start(port);
    try {
      assert.match(output, /^Seeded the demo data\.$/m);
      const key = /^ {2}(sl_live_\S+)$/m.exec(output)?.[1] as string;
      assert.match(key, KEY);
      const url = `http://127.0.0.1:${port}/api/brands/`;
      assert.ok(output.includes(`curl -H "Authorization: Bearer ${key}" ${url}`), output);

      // The banner comes once the server listens.
      const response = await fetch(url, { headers: { authorization: `Bearer ${key}` } });
      assert.equal(response.status, 200);
      const body = (await response.json()) as { results: { id: string }[] };
      assert.ok(
        body.results.some((brand) => brand.id === '9'),
        'acme sees its demo brand',
      );
    } finally {
      assert.equal(await stop(child), 0);
    }
  });

  it('demo seed is idempotent and writes the manifest; start does not seed twice', async () => {
    const file = join(box.dir, 'out', 'manifest.json');
    const seeded = box.cli('demo', 'seed', '--manifest', file);
    assert.equal(seeded.status, 0, seeded.stderr);
    assert.match(seeded.stdout, /already there; nothing was written/);
    assert.match(seeded.stdout, /Wrote the manifest to /);
    const manifest = JSON.parse(readFileSync(file, 'utf8'));
    assert.equal(manifest.demoBrandId, 9);
    assert.deepEqual(manifest.orgs.acme.brandIds, [6, 7, 8, 9, 10]);

    const { child, output } = await start(await freePort());
    assert.equal(await stop(child), 0);
    assert.match(output, /^Demo data already present\.$/m);

    const again = join(box.dir, 'again.json');
    box.cli('demo', 'seed', '--manifest', again);
    assert.equal(readFileSync(again, 'utf8'), readFileSync(file, 'utf8'));

    const dbs = connectDatabases(configFor(box));
    try {
      const brands = await dbs.primary.selectFrom('brands').select('id').execute();
      assert.equal(brands.length, 10, 'nothing was seeded twice');
      // Each start mints one key: two starts, two keys.
      const keys = await dbs.primary.selectFrom('api_keys').select('name').execute();
      assert.deepEqual(
        keys.map((k) => k.name),
        ['npm start', 'npm start'],
      );
    } finally {
      await dbs.close();
    }
  });

  it('demo seed refuses a database that already holds other brands', async () => {
    const other = await sandbox();
    try {
      assert.equal(other.cli('migrate').status, 0);
      assert.equal(other.cli('orgs', 'create', '--slug', 'acme', '--name', 'Someone else').status, 0);
      assertFails(other.cli('demo', 'seed'), 1, /organization "acme" already exists/);
    } finally {
      await other.close();
    }
  });

  it('a write kept waiting past the busy timeout by another process says the database is busy, in one line', async () => {
    const other = await sandbox();
    try {
      assert.equal(other.cli('migrate').status, 0);
      // Another process's long write (a demo seed, a large import) holds SQLite's write lock.
      const writer = new DatabaseSync(other.services.overrides.databaseUrl.slice('sqlite:'.length));
      writer.exec('begin immediate');
      try {
        assertFails(
          other.cli('orgs', 'create', '--slug', 'acme', '--name', 'Acme'),
          1,
          /^sightline: the database is busy: another process has been writing to it for more than 5 s \(an import, a demo seed, a migration\); run this again once it has finished$/,
        );
      } finally {
        writer.exec('rollback');
        writer.close();
      }
      assert.equal(
        other.cli('orgs', 'list').stdout,
        'No organizations yet. Create one with: npx sightline orgs create --slug SLUG --name NAME\n',
      );
    } finally {
      await other.close();
    }
  });
});
