import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { after, before, it } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { sql } from 'kysely';
import { MAIN, runCli } from './support/cli.ts';
import { createTestContext, type TestContext } from './support/context.ts';
import { seedImportCatalog } from './support/fixtures.ts';

// `sightline runs import` killed with SIGKILL while it writes, then run again: the killed process's
// one transaction never committed, so it left nothing (no run, no answer), and the next import
// writes every answer once; a third adds nothing.

const RUNS = 300;
const PER_RUN = 20;
const ANSWERS = RUNS * PER_RUN;

let ctx: TestContext;
let dir: string;
let file: string;

before(async () => {
  ctx = await createTestContext();
  await seedImportCatalog(ctx.dbs.primary);
  dir = mkdtempSync(join(tmpdir(), 'sl-import-kill-'));
  file = join(dir, 'answers.ndjson');
  // Large enough that the write takes a while on any machine: 300 runs of 20 answers (two prompts,
  // ten captures each), every answer naming competitors and citing a source.
  const lines: string[] = [];
  for (let run = 0; run < RUNS; run++) {
    for (let i = 0; i < PER_RUN; i++) {
      lines.push(
        JSON.stringify({
          organization: 'acme',
          run: `crm/kill-${run}`,
          prompt: i % 2 === 0 ? 'best-crm' : 'cheap-crm',
          model: 'chatgpt',
          capturedAt: new Date(Date.UTC(2026, 0, 1) + run * 3_600_000 + i * 1000).toISOString(),
          answerText: `1. **Globex** – the enterprise pick.\n2. **Acmeflow** – fast.\n3. Initech, answer ${i}.`,
          citations: [`https://www.g2.com/crm/${run}-${i}`],
        }),
      );
    }
  }
  writeFileSync(file, `${lines.join('\n')}\n`);
});
after(async () => {
  rmSync(dir, { recursive: true, force: true });
  await ctx.close();
});

/** Whether another connection holds a write transaction open (the import's second pass). */
async function writing(): Promise<boolean> {
  const url = ctx.config.databaseUrl;
  if (url.startsWith('sqlite:')) {
    // The import takes SQLite's write lock when its transaction begins (`begin immediate`).
    const probe = new DatabaseSync(url.slice('sqlite:'.length), { timeout: 0 });
    try {
      probe.exec('begin immediate');
      probe.exec('rollback');
      return false;
    } catch {
      return true;
    } finally {
      probe.close();
    }
  }
  // A transaction open for longer than any single statement of the check takes.
  const { rows } = await sql<{ n: number }>`select count(*)::int as n from pg_stat_activity
    where datname = current_database() and pid <> pg_backend_pid()
      and xact_start < now() - interval '150 milliseconds'`.execute(ctx.dbs.primary);
  return (rows[0]?.n ?? 0) > 0;
}

const stored = async () => {
  const count = async (table: 'runs' | 'responses' | 'response_citations') =>
    Number(
      (
        await ctx.dbs.primary
          .selectFrom(table)
          .select((eb) => eb.fn.countAll().as('n'))
          .executeTakeFirstOrThrow()
      ).n,
    );
  return {
    runs: await count('runs'),
    responses: await count('responses'),
    citations: await count('response_citations'),
  };
};

it('a killed import leaves nothing, and importing again writes every answer once', async () => {
  const child = spawn(process.execPath, [MAIN, 'runs', 'import', file, '--publish'], {
    env: { PATH: process.env.PATH ?? '', DATABASE_URL: ctx.config.databaseUrl, LOG_LEVEL: 'silent' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout?.on('data', (chunk) => {
    output += chunk;
  });
  child.stderr?.on('data', (chunk) => {
    output += chunk;
  });
  const exited = once(child, 'exit');
  const deadline = Date.now() + 120_000;
  while (!(await writing())) {
    assert.equal(child.exitCode, null, `the import ended before it was seen writing: ${output}`);
    assert.ok(Date.now() < deadline, 'the import was never seen writing');
    await sleep(10);
  }
  // Some batches in (one every ~60 ms on the fastest machines seen): what a transaction per batch
  // would already have committed. Short enough that the import, ~0.5 s of writing there, is still
  // at it.
  await sleep(200);
  assert.ok(await writing(), 'the import was no longer writing 200 ms later');
  child.kill('SIGKILL');
  const [code, signal] = await exited;
  assert.deepEqual([code, signal], [null, 'SIGKILL'], output);
  assert.equal(output, '');

  // Nothing of it stays: not a run, not an answer.
  assert.deepEqual(await stored(), { runs: 0, responses: 0, citations: 0 });

  const again = await runCli(ctx.config.databaseUrl, 'runs', 'import', file, '--publish');
  assert.equal(again.status, 0, again.stderr);
  assert.match(
    again.stdout,
    /^imported 6,000 answers into 300 runs; 0 already present; 300 of 300 run\(s\) visible/,
  );
  // One citation per answer.
  assert.deepEqual(await stored(), { runs: RUNS, responses: ANSWERS, citations: ANSWERS });

  const third = await runCli(ctx.config.databaseUrl, 'runs', 'import', file, '--publish');
  assert.equal(third.status, 0, third.stderr);
  assert.match(third.stdout, /^imported 0 answers into 300 runs; 6,000 already present/);
  assert.deepEqual(await stored(), { runs: RUNS, responses: ANSWERS, citations: ANSWERS });
});

it('interrupted while it copies stdin, removes the copy and imports nothing', async () => {
  // The copy is made in the temporary folder TMPDIR names: this one, watched.
  const tmp = mkdtempSync(join(tmpdir(), 'sl-import-stdin-'));
  try {
    const child = spawn(process.execPath, [MAIN, 'runs', 'import', '-'], {
      env: {
        PATH: process.env.PATH ?? '',
        DATABASE_URL: ctx.config.databaseUrl,
        TMPDIR: tmp,
        // Node keeps its compile cache in TMPDIR too.
        NODE_DISABLE_COMPILE_CACHE: '1',
      },
      stdio: ['pipe', 'ignore', 'pipe'],
    });
    const exited = once(child, 'exit');
    child.stdin.on('error', () => {});
    // Half a file, and stdin left open: the copy is still being made.
    child.stdin.write(readFileSync(file).subarray(0, 200_000));
    for (let i = 0; i < 500 && readdirSync(tmp).length === 0; i++) await sleep(20);
    assert.equal(readdirSync(tmp).length, 1, 'the copy of stdin was begun');
    child.kill('SIGINT');
    const [code] = await exited;
    assert.equal(code, 130);
    assert.deepEqual(readdirSync(tmp), []);
    const runs = await ctx.dbs.primary
      .selectFrom('runs')
      .select('id')
      .where('external_id', 'like', 'crm/kill-%')
      .execute();
    assert.ok(runs.length === 0 || runs.length === RUNS, 'nothing, or the earlier tests’ runs alone');
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
});
