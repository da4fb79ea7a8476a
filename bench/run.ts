// `npm run bench`: the analytics benchmark. Generates a brand with about a million answers over
// three years plus three smaller tenants on the embedded database, brings the analytics
// aggregates up to date through the service's own refreshRunAggregates, then times every
// analytics endpoint and window over real HTTP (the app listening on a loopback port, asked with
// fetch, one request at a time) and prints p50/p95/p99, with the service's caches on (as it runs)
// and off (what the first request after a commit costs). Every interval the timed responses serve is checked to hold its figure (low ≤ value ≤ high, test/support/intervals.ts).
//
//   npm run bench                  generate into $BENCH_DB (default: a file under the OS temp dir)
//   npm run bench -- --reuse       time an existing $BENCH_DB again without regenerating it
//   BENCH_ITERATIONS=50 npm run bench
//   BENCH_DAYS=90 npm run bench    a smaller history for a quick try (default 1095 days)
//   npm run bench -- --only NAME   only the cases whose name contains NAME (e.g. "category analytics 90d"),
//                                  in every table: a quick before/after of one case
//   npm run bench -- --postgres    the same data copied into PostgreSQL (BENCH_POSTGRES_URL, default
//                                  postgres://postgres@127.0.0.1:5432/test, names the server; the copy is
//                                  database sightline_bench there, kept for --reuse; a superuser, as the
//                                  copy loads tables without checking references until they all are)
import { fork } from 'node:child_process';
import { existsSync, rmSync, statSync } from 'node:fs';
import { cpus, freemem, loadavg, tmpdir, totalmem, type } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { sql } from 'kysely';
import { refreshRunAggregates } from '../src/analytics/refresh.ts';
import { buildApp } from '../src/app.ts';
import { generateKey, hashSecret } from '../src/auth/keys.ts';
import { loadConfig } from '../src/config.ts';
import { connectDatabases } from '../src/db/connect.ts';
import { migrateToLatest } from '../src/db/migrate.ts';
import { openSqlite } from '../src/db/sqlite/open.js';
import { SCOPES } from '../src/domain/scopes.ts';
import { checkIntervals, emptyTally } from '../test/support/intervals.ts';
import { type GeneratedTenant, generateTenant, type TenantSpec } from './generate.ts';
import { postgresCopy } from './to-postgres.ts';

const DAY_MS = 86_400_000;
const path = process.env.BENCH_DB ?? join(tmpdir(), 'sightline-bench', 'bench.db');
const iterations = Number(process.env.BENCH_ITERATIONS ?? 30);
/** Untimed requests before a case's timed ones. */
const WARM_UPS = 3;

interface Named {
  brandId: number;
  categoryId: number;
  promptId: number;
  /** The UTC date this many days before the data's end. */
  day: (daysAgo: number) => string;
}
type UrlOf = (n: Named) => string;

const RANGES: [string, UrlOf][] = [
  ['7d', () => 'range=7d'],
  ['30d', () => 'range=30d'],
  ['90d', () => 'range=90d'],
  ['all', () => 'range=all'],
  ['custom 61 days', (n) => `range=custom&start=${n.day(400)}&end=${n.day(340)}`],
];
/** Every timed case: its name, and its URL for the generated ids. */
const CASES: [string, UrlOf][] = [
  ...RANGES.map(([range, query]): [string, UrlOf] => [
    `brand analytics ${range}`,
    (n) => `/api/brands/${n.brandId}/analytics/?${query(n)}`,
  ]),
  ...RANGES.map(([range, query]): [string, UrlOf] => [
    `category analytics ${range}`,
    (n) => `/api/categories/${n.categoryId}/analytics/?${query(n)}`,
  ]),
  // Brand figures (score, last run, counts) must not grow with the brand's 8,760 runs.
  ['brand list', () => '/api/brands/'],
  ['brand detail', (n) => `/api/brands/${n.brandId}/`],
  ['brand score-history 30d', (n) => `/api/brands/${n.brandId}/score-history/`],
  ['brand score-history 90d', (n) => `/api/brands/${n.brandId}/score-history/?range=90d`],
  ['brand score-history all', (n) => `/api/brands/${n.brandId}/score-history/?since=all`],
  ['category score-history 30d', (n) => `/api/categories/${n.categoryId}/score-history/`],
  ['category-deltas 30d', (n) => `/api/brands/${n.brandId}/category-deltas/`],
  ['prompt changes', (n) => `/api/prompts/${n.promptId}/changes/`],
];

/** The flags, or one line naming what is wrong and the usage (no stack trace). */
function parsed() {
  const fail = (message: string): never => {
    process.stderr.write(`bench: ${message}. Usage: npm run bench [-- --reuse] [--postgres] [--only NAME]\n`);
    process.exit(2);
  };
  try {
    const { values } = parseArgs({
      options: {
        reuse: { type: 'boolean', default: false },
        postgres: { type: 'boolean', default: false },
        only: { type: 'string', default: '' },
      },
    });
    if (!Number.isInteger(iterations) || iterations < 1)
      fail('BENCH_ITERATIONS must be a whole number of at least 1');
    if (!CASES.some(([label]) => label.includes(values.only)))
      fail(`no case's name contains "${values.only}"`);
    return values;
  } catch (error) {
    return fail((error as Error).message.split('\n')[0] ?? 'bad arguments');
  }
}
const args = parsed();
const REFRESH_BATCH = 150;

const MAIN: TenantSpec = {
  slug: 'bench',
  categories: 4,
  promptsPerCategory: 12,
  competitorsPerCategory: 10,
  days: Number(process.env.BENCH_DAYS ?? 1095),
  runsPerDay: 2,
  legacyDays: Math.round(Number(process.env.BENCH_DAYS ?? 1095) / 6),
};
const OTHERS: TenantSpec[] = ['globex', 'initech', 'umbrella'].map((slug) => ({
  slug,
  categories: 2,
  promptsPerCategory: 8,
  competitorsPerCategory: 6,
  days: 365,
  runsPerDay: 1,
  legacyDays: 0,
}));

const seconds = (ms: number) => `${(ms / 1000).toFixed(1)} s`;

/** The issue's p95 target for a case, in ms (docs/performance.md, "Targets"); none for the others. */
function targetMs(label: string): number | undefined {
  if (label === 'brand analytics 90d' || label === 'brand analytics all') return 20;
  if (label.startsWith('category analytics')) return 10;
  if (label === 'brand score-history all') return 50;
  return undefined;
}

/**
 * This run's p95 against the targets, one line per scenario: met, or the cases that missed. A
 * printed verdict of one run on one machine, not a test.
 */
function targetVerdicts(scenarios: readonly { what: string; p95: ReadonlyMap<string, number> }[]): string[] {
  const lines = [
    'Targets (issue "Fast where it counts"; p95 of brand analytics 90d and all ≤ 20 ms, category analytics ≤ 10, brand score history since=all ≤ 50), this run:',
  ];
  for (const { what, p95 } of scenarios) {
    const judged = [...p95].flatMap(([label, ms]) => {
      const target = targetMs(label);
      return target === undefined ? [] : [{ label, ms, met: ms <= target }];
    });
    if (judged.length === 0) continue;
    const missed = judged.filter((c) => !c.met);
    lines.push(
      missed.length === 0
        ? `  ${what}: met (${judged.length} cases)`
        : `  ${what}: not met: ${missed.map((c) => `${c.label} ${c.ms.toFixed(1)} ms`).join(', ')}`,
    );
  }
  return lines.length > 1 ? lines : [];
}

function line(text: string): void {
  process.stdout.write(`${text}\n`);
}

function progressBar(label: string) {
  let last = 0;
  return (done: number, total: number) => {
    const now = performance.now();
    if (done < total && now - last < 2000) return;
    last = now;
    line(`  ${label}: ${done}/${total} (${Math.round((100 * done) / total)}%)`);
  };
}

async function generate(end: number): Promise<GeneratedTenant[]> {
  rmSync(path, { force: true });
  rmSync(`${path}-wal`, { force: true });
  rmSync(`${path}-shm`, { force: true });
  const config = { ...loadConfig({}), databaseUrl: `sqlite:${path}`, logLevel: 'silent' as const };
  const dbs = connectDatabases(config);
  await migrateToLatest(dbs.primary);
  await dbs.close();

  const raw = openSqlite(path);
  const tenants: GeneratedTenant[] = [];
  const started = performance.now();
  for (const [i, spec] of [MAIN, ...OTHERS].entries()) {
    raw.exec('begin');
    tenants.push(generateTenant(raw, spec, end, 1000 + i, progressBar(`raw data ${spec.slug}`)));
    raw.exec('commit');
  }
  raw.close();
  const answers = tenants.reduce((sum, t) => sum + t.responses, 0);
  line(`Generated ${answers.toLocaleString('en')} answers in ${seconds(performance.now() - started)}.`);

  const aggregated = performance.now();
  const writer = connectDatabases(config);
  for (const [i, tenant] of tenants.entries()) {
    const report = progressBar(`aggregates ${[MAIN, ...OTHERS][i]?.slug}`);
    const ids = tenant.runs.map((r) => r.id);
    for (let at = 0; at < ids.length; at += REFRESH_BATCH) {
      const batch = ids.slice(at, at + REFRESH_BATCH);
      await writer.primary.transaction().execute((tx) => refreshRunAggregates(tx, tenant.orgId, batch));
      report(Math.min(at + REFRESH_BATCH, ids.length), ids.length);
    }
  }
  await writer.close();
  line(`Refreshed scores and analytics aggregates in ${seconds(performance.now() - aggregated)}.`);
  return tenants;
}

function percentile(sorted: readonly number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.ceil(p * sorted.length) - 1)] ?? Number.NaN;
}

async function main(): Promise<void> {
  line(
    `Machine: ${cpus().length} × ${cpus()[0]?.model ?? 'unknown CPU'}, ${Math.round(totalmem() / 2 ** 30)} GiB RAM, ${type()}, Node ${process.version}`,
  );
  const end = Date.parse(`${new Date().toISOString().slice(0, 10)}T00:00:00.000Z`);
  const reusing = args.reuse && existsSync(path);
  if (!reusing) await generate(end);
  line(`Database: ${path} (${(statSync(path).size / 2 ** 30).toFixed(2)} GiB)`);
  let databaseUrl = `sqlite:${path}`;
  if (args.postgres) {
    const copied = performance.now();
    const admin = process.env.BENCH_POSTGRES_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
    databaseUrl = await postgresCopy(path, admin, 'sightline_bench', reusing, line);
    line(
      `PostgreSQL copy ${new URL(databaseUrl).pathname.slice(1)} ready in ${seconds(performance.now() - copied)}.`,
    );
  }

  const config = { ...loadConfig({}), databaseUrl, logLevel: 'silent' as const };
  const dbs = connectDatabases(config);
  // A database kept from an earlier run may predate the latest migrations.
  await migrateToLatest(dbs.primary);
  const org = await dbs.primary
    .selectFrom('organizations')
    .select('id')
    .where('slug', '=', MAIN.slug)
    .executeTakeFirstOrThrow();
  const brand = await dbs.primary
    .selectFrom('brands')
    .select('id')
    .where('org_id', '=', org.id)
    .executeTakeFirstOrThrow();
  const category = await dbs.primary
    .selectFrom('categories')
    .select('id')
    .where('brand_id', '=', brand.id)
    .orderBy('id')
    .executeTakeFirstOrThrow();
  const prompt = await dbs.primary
    .selectFrom('prompts')
    .select('id')
    .where('category_id', '=', category.id)
    .orderBy('id')
    .executeTakeFirstOrThrow();
  const answers = await dbs.primary
    .selectFrom('responses')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('org_id', '=', org.id)
    .executeTakeFirstOrThrow();
  line(`Brand ${brand.id}: ${Number(answers.n).toLocaleString('en')} answers.`);

  const { key, keyId, secret } = generateKey();
  await dbs.primary
    .insertInto('api_keys')
    .values({
      org_id: org.id,
      key_id: keyId,
      name: 'bench',
      secret_hash: hashSecret(secret, config.keyPepper),
      scopes: SCOPES.join(' '),
      created_by_user_id: null,
      created_at: new Date().toISOString(),
      last_used_at: null,
      expires_at: null,
      revoked_at: null,
    })
    .execute();
  // "Now" starts a little after the last generated run (runs finish by 19:00 UTC), so every
  // rolling window is full of data, and then moves with the wall clock, as it does for a dashboard
  // asking again and again: the windows' ends move between requests (no run finishes meanwhile).
  // The last runs finished on the windows' last day, as a new run from monitoring does, so the run
  // the own-run case refreshes lies in the stretch a side reads again (docs/performance.md).
  const startedAt = Date.now();
  const clock = () => new Date(end - 4 * 3_600_000 + (Date.now() - startedAt));
  // The same service twice: as configured (caches on), and with its caches off, which is what the
  // first request after each commit costs.
  const apps = await Promise.all(
    [{}, { analyticsCacheBytes: 0, responseCacheBytes: 0 }].map((caches) =>
      buildApp(
        { ...config, rateLimitPerMinute: 1_000_000_000, ...caches },
        { databases: dbs, logger: false, clock },
      ),
    ),
  );
  const addresses = await Promise.all(apps.map((app) => app.listen({ port: 0, host: '127.0.0.1' })));

  const day = (daysAgo: number) => new Date(end - daysAgo * DAY_MS).toISOString().slice(0, 10);
  const named = { brandId: brand.id, categoryId: category.id, promptId: prompt.id, day };
  const cases = CASES.filter(([label]) => label.includes(args.only)).map(([label, url]): [string, string] => [
    label,
    url(named),
  ]);

  line(
    `\n${iterations} timed requests per case after ${WARM_UPS} warm-up requests (ms, over HTTP, one at a time):`,
  );
  const heads = ['p50', 'p95', 'p99'].map((h) => h.padStart(8)).join('');
  line(`${''.padEnd(34)}${'caches on'.padStart(24)}   ${'caches off'.padStart(24)}`);
  line(`${'case'.padEnd(34)}${heads} | ${heads}`);
  /**
   * Asks `url` `warmUps` times untimed, then `iterations` times timed, each after `before`
   * (untimed): its p50, p95 and p99 as columns, and the last body.
   */
  const timed = async (
    address: string,
    url: string,
    before: () => Promise<unknown> = async () => {},
    warmUps = WARM_UPS,
  ) => {
    const times: number[] = [];
    let body = '';
    for (let i = 0; i < iterations + warmUps; i++) {
      await before();
      const started = performance.now();
      const res = await fetch(`${address}${url}`, { headers: { authorization: `Bearer ${key}` } });
      body = await res.text();
      const took = performance.now() - started;
      if (res.status !== 200) throw new Error(`${url} answered ${res.status}: ${body}`);
      if (i >= warmUps) times.push(took);
    }
    times.sort((a, b) => a - b);
    const column = [0.5, 0.95, 0.99].map((p) => percentile(times, p).toFixed(1).padStart(8)).join('');
    return { column, body, p95: percentile(times, 0.95) };
  };
  const intervals = emptyTally();
  // Each scenario's p95 per case, for the targets' verdicts at the end.
  const scenarios: { what: string; p95: Map<string, number> }[] = [
    { what: 'asked again (caches on)', p95: new Map() },
    { what: 'caches off (a first request after a start)', p95: new Map() },
  ];
  for (const [label, url] of cases) {
    const columns: string[] = [];
    for (const [i, address] of addresses.entries()) {
      const { column, body, p95 } = await timed(address, url);
      checkIntervals(JSON.parse(body), url, intervals);
      columns.push(column);
      scenarios[i]?.p95.set(label, p95);
    }
    line(`${label.padEnd(34)}${columns.join(' | ')}`);
  }
  // What a dashboard meets most: the first request after a commit. One that leaves the brand
  // alone (here a key's last-used time, which the service itself writes; monitoring's answers,
  // other tenants' imports and catalog edits are others) keeps the analytics sums; a run of the
  // brand refreshed again moves the generation of its days, so the current side of a rolling
  // window is read afresh. That refresh is written by another process, as `sightline worker` and
  // `sightline runs import` write runs in production (bench/refresher.ts).
  const refresher = await startRefresher(databaseUrl);
  const latestRun = await dbs.primary
    .selectFrom('runs')
    .select('id')
    .where('org_id', '=', org.id)
    .where('category_id', '=', category.id)
    .orderBy('finished_at', 'desc')
    .executeTakeFirstOrThrow();
  // Each refresh of the run rewrites its rows and its block's (~16,000 rows here). On PostgreSQL
  // the old versions stay as dead rows until a vacuum, which autovacuum does in production but
  // which the servers the bench runs on may have turned off: a case of a hundred refreshes leaves
  // over a million, and a database reused run after run read slower and slower (the own run's
  // brand 90d p50 ~20 → ~30 ms over twenty runs). So each such case starts from a vacuumed
  // database, as on a server whose autovacuum keeps up (docs/performance.md). The vacuum's new
  // statistics make PostgreSQL plan every prepared text again, once on each connection of the
  // pool: the case's first ~15 requests spent 2–10 ms more each in planning. So the case then
  // takes twice the pool's connections in warm-ups, to time a service long after a vacuum.
  const afterVacuum = args.postgres
    ? { beforeCase: () => sql`vacuum analyze`.execute(dbs.primary), warmUps: 2 * config.databasePoolSize }
    : {};
  const afterCommits: {
    what: string;
    commit: () => Promise<unknown>;
    beforeCase?: () => Promise<unknown>;
    warmUps?: number;
  }[] = [
    {
      what: 'a commit elsewhere (a key last-used time)',
      commit: () =>
        dbs.primary
          .updateTable('api_keys')
          .set({ last_used_at: new Date().toISOString() })
          .where('key_id', '=', keyId)
          .execute(),
    },
    {
      what: "the category's latest run refreshed again",
      commit: () => refresher.refresh(org.id, [latestRun.id]),
      ...afterVacuum,
    },
  ];
  for (const { what, commit, beforeCase, warmUps = WARM_UPS } of afterCommits) {
    line(
      `\nThe first request after ${what} (ms, caches on, a commit before each request, ${warmUps} warm-ups):`,
    );
    line(`${'case'.padEnd(34)}${heads}`);
    const p95 = new Map<string, number>();
    scenarios.push({ what: `the first request after ${what}`, p95 });
    for (const [label, url] of cases.filter(([label]) => /90d|analytics all|history all/.test(label))) {
      await beforeCase?.();
      const result = await timed(addresses[0] as string, url, commit, warmUps);
      p95.set(label, result.p95);
      line(`${label.padEnd(34)}${result.column}`);
    }
  }
  line('');
  for (const verdict of targetVerdicts(scenarios)) line(verdict);

  line(`\nintervals checked: ${intervals.checked}, violations: ${intervals.violations.length}`);
  for (const violation of intervals.violations) line(`  ${violation}`);
  if (intervals.violations.length > 0) process.exitCode = 1;
  line(
    `\nLoad average while timing: ${loadavg()
      .map((l) => l.toFixed(2))
      .join(' ')}; free memory ${Math.round(freemem() / 2 ** 20)} MiB.`,
  );
  refresher.stop();
  for (const app of apps) await app.close();
  await dbs.close();
}

/** bench/refresher.ts, forked: refreshes runs in its own process, one request at a time. */
async function startRefresher(databaseUrl: string) {
  const child = fork(fileURLToPath(new URL('refresher.ts', import.meta.url)), [databaseUrl]);
  const reply = () =>
    new Promise<unknown>((resolve, reject) => {
      const exited = () => reject(new Error('bench/refresher.ts exited'));
      child.once('exit', exited);
      child.once('message', (message) => {
        child.off('exit', exited);
        resolve(message);
      });
    });
  await reply();
  return {
    async refresh(orgId: number, runIds: number[]): Promise<void> {
      const answered = reply();
      child.send({ orgId, runIds });
      const message = await answered;
      if (message !== 'done') throw new Error(`bench/refresher.ts: ${JSON.stringify(message)}`);
    },
    stop: () => child.disconnect(),
  };
}

// The SQLite reader processes' channels are unref'd so that a finished process can exit; while a
// request waits on one, nothing else would keep this script's event loop alive.
const keepAlive = setInterval(() => {}, 60_000);
try {
  await main();
} finally {
  clearInterval(keepAlive);
}
