// `npm test`: the whole suite twice. First on the embedded database (SQLite, in-memory rate
// limits), then on PostgreSQL and Redis, the production setup. Without those services the
// second pass is skipped with a loud notice, except under CI (CI=true), where it is mandatory.
//
//   TEST_DATABASE_URL  admin URL of the PostgreSQL server (default postgres://postgres@127.0.0.1:5432/test);
//                      every test file creates, and drops, a database of its own on it
//   TEST_REDIS_URL     Redis for the shared rate limit (default redis://127.0.0.1:6379)
//   TEST_CONCURRENCY   test files run side by side in a pass (default 3; see docs/notes/testing.md)
//   npm test -- test/a.test.ts ...   runs only those files, in both passes
//
// Each pass first prepares the template databases (test/support/templates.ts: the schema, and the
// schema with the demo data) once; every test file's database is then a copy of one of them. The
// production pass's are prepared while the embedded pass runs (docs/notes/testing.md).
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { once } from 'node:events';
import { closeSync, globSync, mkdtempSync, openSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { Redis } from 'ioredis';
import pg from 'pg';

const databaseUrl = process.env.TEST_DATABASE_URL || 'postgres://postgres@127.0.0.1:5432/test';
const redisUrl = process.env.TEST_REDIS_URL || 'redis://127.0.0.1:6379';
const ci = process.env.CI === 'true';
const concurrency = Number(process.env.TEST_CONCURRENCY || 3);
// These need PostgreSQL or Redis themselves; the embedded pass leaves them to the second one.
// SQLite's own query plans: the production pass has another planner, which this file does not read.
// SQLite's reader processes, which PostgreSQL does not have.
// `sightline start` is the embedded default (README); its parts on PostgreSQL (migrate, keys, the
// demo seed, the served app) are tested there on their own. The demo's determinism is the
// generator's (on PostgreSQL, parity.test compares the demo seeded there with SQLite's). The
// OpenAPI document is built from the routes' schemas and the SDK's package is files: generating a
// client from the one and installing and type-checking the other (~30 s of tsc and npm) do not
// depend on the database that serves the requests (the SDK's calls on PostgreSQL are sdk.test's).
// The examples run as examples/README.md runs them, against the embedded demo service.
// The rest touch neither a database nor Redis (pure computation, or engines behind fake vendor
// servers): the production pass would repeat them word for word.
const EMBEDDED_ONLY = new Set([
  'test/read-plans.test.ts',
  'test/bidi.test.ts',
  'test/report-sections.test.ts',
  'test/reader-pool.test.ts',
  'test/sqlite-write-lock.test.ts',
  'test/cli-start.test.ts',
  'test/demo-determinism.test.ts',
  'test/openapi-client.test.ts',
  'test/sdk-package.test.ts',
  'test/examples.test.ts',
  'test/analytics-blocks.test.ts',
  'test/analyzer.test.ts',
  'test/analyzer-positions.test.ts',
  'test/budget.test.ts',
  'test/cli-engines.test.ts',
  'test/deltas.test.ts',
  'test/docs-commands.test.ts',
  'test/docs-paths.test.ts',
  'test/engines.test.ts',
  'test/entities.test.ts',
  'test/lockfile.test.ts',
  'test/prompt-changes.test.ts',
  'test/prompt-csv.test.ts',
  'test/pdf-text.test.ts',
  'test/ndjson.test.ts',
  'test/quote.test.ts',
  'test/schedule.test.ts',
  'test/score-history.test.ts',
  'test/uncertainty.test.ts',
  'test/windows.test.ts',
]);
const SERVICE_ONLY = new Set([
  'test/parity.test.ts',
  'test/postgres.test.ts',
  'test/postgres-connection-loss.test.ts',
  'test/redis-rate-limit.test.ts',
  'test/monitoring-workers.test.ts',
]);

// The longest files (they seed the demo or drive the CLI themselves) start first, so that no
// pass ends waiting on one of them alone.
const LONGEST_FIRST = [
  'test/demo.test.ts',
  'test/demo-determinism.test.ts',
  'test/cli.test.ts',
  'test/cli-start.test.ts',
  'test/operator.test.ts',
  'test/parity.test.ts',
  'test/reports-generate-lifecycle.test.ts',
];
const rank = (file) => (LONGEST_FIRST.includes(file) ? LONGEST_FIRST.indexOf(file) : LONGEST_FIRST.length);

const requested = process.argv.slice(2);
const files = (requested.length > 0 ? requested : globSync('test/**/*.test.ts'))
  .sort()
  .sort((a, b) => rank(a) - rank(b));

// Every test file is a process that loads the app's TypeScript; Node's compile cache lets the
// second and later ones skip compiling it (as the CLI does for itself, bin/sightline.js).
const envOf = (env) => ({ NODE_COMPILE_CACHE: join(tmpdir(), 'node-compile-cache'), ...process.env, ...env });

/**
 * Prepares a pass's template databases in a process of its own, without waiting for it: the
 * outcome, how long it took, and its output (kept in a file meanwhile: a pipe would not be read
 * while a pass runs, and a full one would stop it).
 */
function prepareTemplates(env) {
  const started = Date.now();
  const log = join(mkdtempSync(join(tmpdir(), 'sightline-make-templates-')), 'output.log');
  const out = openSync(log, 'w');
  const child = spawn(process.execPath, ['test/support/make-templates.ts'], {
    env: envOf(env),
    stdio: ['ignore', out, out],
  });
  closeSync(out);
  return new Promise((resolve) => {
    let settled = false;
    const done = (ok) => {
      if (settled) return;
      settled = true;
      const output = readFileSync(log);
      rmSync(dirname(log), { recursive: true, force: true });
      resolve({ ok, seconds: ((Date.now() - started) / 1000).toFixed(1), output });
    };
    child.on('error', () => done(false));
    child.on('exit', (code) => done(code === 0));
  });
}

/** Runs a pass once its templates (a `prepareTemplates` promise; none without files) are ready. */
async function runSuite(label, suiteFiles, env, templatesReady) {
  if (suiteFiles.length === 0) return { label, status: 'PASSED', note: 'no test files for this pass' };
  process.stdout.write(`\n=== ${label}: ${suiteFiles.length} test files ===\n`);
  const started = Date.now();
  const seconds = () => ((Date.now() - started) / 1000).toFixed(1);
  const templates = await templatesReady;
  if (!templates.ok) {
    process.stderr.write(templates.output);
    return {
      label,
      status: 'FAILED',
      note: `could not prepare the template databases (${templates.seconds} s)`,
    };
  }
  // Not spawnSync: the other pass's templates, prepared meanwhile, must be seen ending on time.
  const run = spawn(
    process.execPath,
    [
      // The test files load Kysely and TypeBox as `sightline` does (bin/bundles.js).
      `--import=${new URL('../bin/use-bundles.js', import.meta.url)}`,
      '--test',
      `--test-concurrency=${concurrency}`,
      '--test-reporter=spec',
      '--test-reporter-destination=stdout',
      '--test-reporter=./scripts/slowest-files.mjs',
      '--test-reporter-destination=stdout',
      ...suiteFiles,
    ],
    { stdio: 'inherit', env: envOf(env) },
  );
  const [code] = await once(run, 'exit');
  return {
    label,
    status: code === 0 ? 'PASSED' : 'FAILED',
    note: `${seconds()} s; its templates took ${templates.seconds} s`,
  };
}

/** Why PostgreSQL or Redis cannot be used, or undefined when both answer. */
async function unreachable() {
  const reasons = [];
  const client = new pg.Client({ connectionString: databaseUrl, connectionTimeoutMillis: 3000 });
  try {
    await client.connect();
    await client.query('select 1');
  } catch (error) {
    reasons.push(`PostgreSQL at ${redact(databaseUrl)}: ${error.message || error.code}`);
  } finally {
    await client.end().catch(() => {});
  }
  const redis = new Redis(redisUrl, {
    lazyConnect: true,
    connectTimeout: 3000,
    maxRetriesPerRequest: 0,
    retryStrategy: () => null,
  });
  // The rejection only says the connection closed; the 'error' event says why.
  let cause;
  redis.on('error', (error) => {
    cause ??= error;
  });
  try {
    await redis.connect();
    await redis.ping();
  } catch (error) {
    reasons.push(`Redis at ${redact(redisUrl)}: ${(cause ?? error).message || error.code}`);
  } finally {
    redis.disconnect();
  }
  return reasons.length > 0 ? reasons.join('; ') : undefined;
}

function redact(url) {
  return url.replace(/\/\/([^:@/]*):[^@/]*@/, '//$1:***@');
}

/** Drops the pass's templates and what a crashed test file may have left behind in this run. */
async function dropLeftovers(prefix) {
  const client = new pg.Client({ connectionString: databaseUrl });
  try {
    await client.connect();
    const { rows } = await client.query('select datname from pg_database where datname like $1', [
      `${prefix}\\_%`,
    ]);
    for (const { datname } of rows) await client.query(`drop database if exists "${datname}" with (force)`);
  } catch (error) {
    process.stderr.write(`could not clean up test databases ${prefix}_*: ${error.message}\n`);
  } finally {
    await client.end().catch(() => {});
  }
}

const results = [];
const embeddedFiles = files.filter((f) => !SERVICE_ONLY.has(f));
const productionFiles = files.filter((f) => !EMBEDDED_ONLY.has(f));
// A pass with no files to run (`npm test -- <files of one pass>`) prepares nothing: a seed nobody
// waits for would still be running when the runner drops the pass's databases.
const templatesFor = (suiteFiles, env) => (suiteFiles.length > 0 ? prepareTemplates(env) : undefined);
const productionLabel = 'production pass (PostgreSQL + Redis)';
const reason = await unreachable();
const prefix = `sl_test_${randomBytes(4).toString('hex')}`;
const productionEnv = {
  TEST_DATABASE_URL: databaseUrl,
  TEST_REDIS_URL: redisUrl,
  TEST_DATABASE_PREFIX: prefix,
  TEST_TEMPLATES: `${prefix}_tpl`,
};
// The production pass's templates are prepared while the embedded pass runs: seeding the demo on
// PostgreSQL is ~45 s, most of it the database server's own work in one transaction, which leaves
// cores the embedded pass's test files use meanwhile.
const productionTemplates = reason ? undefined : templatesFor(productionFiles, productionEnv);

// Kept until the end: the production pass's parity.test copies its SQLite side from them.
const sqliteTemplates = mkdtempSync(join(tmpdir(), 'sightline-templates-'));
process.on('exit', () => rmSync(sqliteTemplates, { recursive: true, force: true }));
const embeddedEnv = { TEST_DATABASE_URL: '', TEST_REDIS_URL: '', TEST_TEMPLATES: sqliteTemplates };
results.push(
  await runSuite(
    'embedded pass (SQLite, in-memory rate limit)',
    embeddedFiles,
    embeddedEnv,
    templatesFor(embeddedFiles, embeddedEnv),
  ),
);

if (reason) {
  const banner = '!'.repeat(100);
  if (ci) {
    process.stderr.write(
      `\n${banner}\nCI=true and the ${productionLabel} cannot run: ${reason}\n${banner}\n`,
    );
    results.push({
      label: productionLabel,
      status: 'FAILED',
      note: `services unreachable under CI: ${reason}`,
    });
  } else {
    process.stderr.write(
      `\n${banner}\nSKIPPED: the ${productionLabel} did NOT run: ${reason}\n` +
        'Start PostgreSQL and Redis (or set TEST_DATABASE_URL / TEST_REDIS_URL) to run it; under CI=true it is mandatory.\n' +
        `${banner}\n`,
    );
    results.push({ label: productionLabel, status: 'SKIPPED', note: reason });
  }
} else {
  results.push(
    await runSuite(
      productionLabel,
      productionFiles,
      { ...productionEnv, TEST_SQLITE_TEMPLATES: sqliteTemplates },
      productionTemplates,
    ),
  );
  await dropLeftovers(prefix);
}

process.stdout.write('\n');
for (const r of results) process.stdout.write(`${r.status.padEnd(7)} ${r.label} (${r.note})\n`);
process.exit(results.some((r) => r.status === 'FAILED') ? 1 : 0);
