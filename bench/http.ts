// `npm run bench:http`: what the whole stack costs per request, against a bare Fastify route.
// Migrates and seeds a temporary database with the demo data (plus brands enough for a list of
// 25), starts the service as a child process (auth and rate limiter on; the limit raised through
// RATE_LIMIT_PER_MINUTE) and, beside it, bench/bare-server.ts answering a fixed JSON body of the
// same size as each Sightline answer. autocannon drives both with the same connections and
// duration, in alternating rounds; the table gives req/s, p50, p97.5 and p99 and the ratio to
// bare, and the CPU time each side's processes spent per request (the service with its SQLite
// readers; not PostgreSQL's or Redis's), then the RSS and PSS of the service and its readers.
//
//   npm run bench:http [-- --postgres] [--uncached] [--duration S] [--connections N] [--rounds N]
//                      [--only NAME]
//   --postgres: PostgreSQL (BENCH_POSTGRES_URL, default postgres://postgres@127.0.0.1:5432/test;
//               a database is created and dropped) and Redis (BENCH_REDIS_URL, default
//               redis://127.0.0.1:6379) for the rate limit, the production setup.
//   --uncached: the service keeps no answers and no analytics sums (RESPONSE_CACHE_MB=0,
//               ANALYTICS_CACHE_MB=0), so every request reads the database: what a first request
//               costs. By default the repeated requests of a case are answered from the caches
//               after the first. Then also "run status beside analytics": a run status at 50
//               requests/s while four connections ask for brand analytics 90d.
import { type ChildProcess, fork } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import autocannon from 'autocannon';
import { sql } from 'kysely';
import { mintApiKey } from '../src/auth/mint.ts';
import { loadConfig } from '../src/config.ts';
import { createBrand } from '../src/db/catalog/brands.ts';
import { createCategory } from '../src/db/catalog/categories.ts';
import { addCompetitor } from '../src/db/catalog/competitors.ts';
import { createPrompt } from '../src/db/catalog/prompts.ts';
import { connectDatabases, type Db } from '../src/db/connect.ts';
import { migrateToLatest } from '../src/db/migrate.ts';
import { findOrganizationBySlug } from '../src/db/organizations.ts';
import { DEMO_ORG } from '../src/demo/manifest.ts';
import { seedDemo } from '../src/demo/seed.ts';
import { SCOPES } from '../src/domain/scopes.ts';
import { importAnswers } from '../src/ingest/import.ts';
import { createDatabase } from '../test/support/services.ts';

const OPTIONS = {
  options: {
    postgres: { type: 'boolean', default: false },
    uncached: { type: 'boolean', default: false },
    duration: { type: 'string', default: '4' },
    connections: { type: 'string', default: '10' },
    rounds: { type: 'string', default: '2' },
    // Only the cases whose name contains this (e.g. to profile one with NODE_OPTIONS=--cpu-prof).
    only: { type: 'string', default: '' },
  },
} as const;

/** The flags, or one line naming what is wrong and the usage (no stack trace). */
function parsed() {
  const fail = (message: string): never => {
    process.stderr.write(
      `bench:http: ${message}. Usage: npm run bench:http [-- --postgres] [--uncached] [--duration S] [--connections N] [--rounds N] [--only NAME]\n`,
    );
    process.exit(2);
  };
  try {
    const { values } = parseArgs(OPTIONS);
    for (const name of ['duration', 'connections', 'rounds'] as const) {
      const n = Number(values[name]);
      if (!Number.isInteger(n) || n < 1) fail(`--${name} must be a whole number of at least 1`);
    }
    return values;
  } catch (error) {
    return fail((error as Error).message.split('\n')[0] ?? 'bad arguments');
  }
}
const args = parsed();
const DURATION = Number(args.duration);
const CONNECTIONS = Number(args.connections);
const ROUNDS = Number(args.rounds);
const DAY_MS = 86_400_000;

const line = (text: string) => process.stdout.write(`${text}\n`);

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  await new Promise((resolve) => server.close(resolve));
  if (address === null || typeof address === 'string') throw new Error('no port');
  return address.port;
}

/** Where the data lives: a temporary SQLite file, or a temporary PostgreSQL database. */
async function database(): Promise<{ env: Record<string, string>; drop(): Promise<void> }> {
  if (!args.postgres) {
    const dir = mkdtempSync(join(tmpdir(), 'sightline-bench-http-'));
    return {
      env: { DATABASE_URL: `sqlite:${join(dir, 'bench.db')}` },
      drop: async () => rmSync(dir, { recursive: true, force: true }),
    };
  }
  const admin = process.env.BENCH_POSTGRES_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
  const name = `sl_bench_http_${randomBytes(4).toString('hex')}`;
  const { url, drop } = await createDatabase(admin, name);
  return {
    env: {
      DATABASE_URL: url,
      REDIS_URL: process.env.BENCH_REDIS_URL ?? 'redis://127.0.0.1:6379',
      REDIS_KEY_PREFIX: `${name}:`,
    },
    drop,
  };
}

/**
 * Brands of the demo organization up to `total`, each with a category of four prompts and ten
 * daily runs imported through the real path, so a page of 25 brands has scores to compute.
 */
async function addBrands(db: Db, orgId: number, total: number, now: Date): Promise<void> {
  const existing = await db.selectFrom('brands').select('id').where('org_id', '=', orgId).execute();
  const lines: string[] = [];
  for (let b = existing.length; b < total; b++) {
    const brand = await createBrand(db, orgId, {
      name: `Benchbrand ${b}`,
      website: `https://bench${b}.example`,
    });
    const category = await createCategory(db, brand, { name: 'Tools', externalKey: `bench-${b}` });
    await addCompetitor(db, brand, category, { name: 'Globex' });
    for (let p = 0; p < 4; p++) {
      await createPrompt(db, category, { text: `Best tool ${p}?`, externalKey: `bench-${b}-${p}` });
      for (let day = 1; day <= 10; day++) {
        for (const [i, model] of ['chatgpt', 'gemini'].entries()) {
          const first = (b + p + day + i) % 2 === 0;
          lines.push(
            JSON.stringify({
              organization: DEMO_ORG,
              run: `bench-${b}/${day}`,
              prompt: `bench-${b}-${p}`,
              model,
              capturedAt: new Date(now.getTime() - day * DAY_MS + (p * 2 + i) * 60_000).toISOString(),
              answerText: first
                ? `1. **Benchbrand ${b}** – fast.\n2. **Globex** – fine.`
                : `1. **Globex** – fast.\n2. **Benchbrand ${b}** – fine.`,
            }),
          );
        }
      }
    }
  }
  await importAnswers(db, lines, { now, publish: true });
}

interface Target {
  name: string;
  path: string;
  /** The issue's target the case measures, if any (targetVerdicts). */
  goal?: Goal;
}
type Goal = 'single GET' | 'brand list' | 'run detail';

async function prepare(env: Record<string, string>): Promise<{ key: string; targets: Target[] }> {
  const config = loadConfig({ ...env, LOG_LEVEL: 'silent' });
  const dbs = connectDatabases(config);
  try {
    const db = dbs.primary;
    await migrateToLatest(db);
    const now = new Date();
    const manifest = await seedDemo(db, { now });
    const org = await findOrganizationBySlug(db, DEMO_ORG);
    if (!org) throw new Error('no demo organization');
    await addBrands(db, org.id, 25, now);
    // A freshly filled PostgreSQL database has no planner statistics until autovacuum's first
    // pass; a running service's database has them, so measure with them.
    if (args.postgres) await sql`analyze`.execute(db);
    const { key } = await mintApiKey(db, {
      orgId: org.id,
      name: 'bench',
      scopes: SCOPES,
      expiresAt: null,
      pepper: config.keyPepper,
    });
    const brand = manifest.demoBrandId;
    const run = manifest.bigRunId;
    return {
      key,
      targets: [
        { name: 'brand detail', path: `/api/brands/${brand}/`, goal: 'single GET' },
        { name: 'brand list (25)', path: '/api/brands/?page_size=25', goal: 'brand list' },
        { name: 'categories', path: `/api/brands/${brand}/categories/`, goal: 'single GET' },
        { name: 'run status', path: `/api/runs/${run}/status/`, goal: 'single GET' },
        {
          name: 'full response',
          path: `/api/responses/${manifest.responses.withHtmlId}/?includeHtml=true`,
          goal: 'single GET',
        },
        { name: 'run detail page_size=500', path: `/api/runs/${run}/?page_size=500`, goal: 'run detail' },
        { name: 'brand analytics 90d', path: `/api/brands/${brand}/analytics/?range=90d` },
        { name: 'score history 90d', path: `/api/brands/${brand}/score-history/?range=90d` },
      ],
    };
  } finally {
    await dbs.close();
  }
}

/** Forks a script and waits until `ready` answers over HTTP. */
async function start(script: string, argv: string[], env: Record<string, string>, ready: string) {
  const child = fork(script, argv, {
    env: { ...process.env, ...env },
    stdio: ['ignore', 'ignore', 'inherit', 'ipc'],
  });
  for (let i = 0; i < 300; i++) {
    if (child.exitCode !== null) throw new Error(`${script} exited with ${child.exitCode}`);
    try {
      if ((await fetch(ready)).ok) return child;
    } catch {}
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  child.kill();
  throw new Error(`${script} never answered ${ready}`);
}

interface Measure {
  requests: number;
  seconds: number;
  /** CPU seconds the side's processes spent in its rounds. */
  cpu: number;
  p50: number[];
  /** autocannon gives no p95; its p97.5 bounds one from above (the run-detail target names p95). */
  p97_5: number[];
  p99: number[];
  errors: number;
}

const emptyMeasure = (): Measure => ({
  requests: 0,
  seconds: 0,
  cpu: 0,
  p50: [],
  p97_5: [],
  p99: [],
  errors: 0,
});

/** A process's children (the SQLite readers of the service), from /proc. */
function childrenOf(pid: number): number[] {
  return readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8')
    .split(' ')
    .map(Number)
    .filter((p) => p > 0);
}

/**
 * CPU seconds (user and system) a process and its children have used so far. The ratio of req/s
 * moves with how often each side's answers must wake the load generator on cores it shares; the
 * CPU a request costs each side's processes does much less.
 */
function cpuSeconds(pid: number): number {
  const ticks = (p: number) => {
    try {
      // The fields after the command name, which is in parentheses and may hold spaces: utime and
      // stime are the 14th and 15th of the line, the 12th and 13th after it.
      const stat = readFileSync(`/proc/${p}/stat`, 'utf8');
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      return Number(fields[11]) + Number(fields[12]);
    } catch {
      return 0; // a reader that ended meanwhile
    }
  };
  // Linux counts in clock ticks of 1/100 s (USER_HZ).
  return [pid, ...childrenOf(pid)].reduce((sum, p) => sum + ticks(p), 0) / 100;
}

async function drive(
  url: string,
  headers: Record<string, string>,
  into: Measure,
  pid: number,
): Promise<void> {
  const cpuBefore = cpuSeconds(pid);
  const result = await autocannon({ url, connections: CONNECTIONS, duration: DURATION, headers });
  into.cpu += cpuSeconds(pid) - cpuBefore;
  into.requests += result.requests.total;
  into.seconds += result.duration;
  into.p50.push(result.latency.p50);
  into.p97_5.push(result.latency.p97_5);
  into.p99.push(result.latency.p99);
  into.errors += result.non2xx + result.errors + result.timeouts;
}

const BESIDE = 'run status beside analytics';

/**
 * A short request beside long ones, with the caches off: four connections of brand analytics 90d
 * keep the SQLite readers (or PostgreSQL's connections) busy while a run status is asked at 50
 * requests/s. Its latency shows whether short requests wait behind long ones (docs/performance.md,
 * "A lookup waits for no reader").
 */
async function besideAnalytics(base: string, headers: Record<string, string>, targets: Target[]) {
  const path = (name: string) => targets.find((t) => t.name === name)?.path ?? '';
  const [analytics, status] = await Promise.all([
    autocannon({
      url: `${base}${path('brand analytics 90d')}`,
      connections: 4,
      duration: DURATION * ROUNDS,
      headers,
    }),
    autocannon({
      url: `${base}${path('run status')}`,
      connections: 2,
      overallRate: 50,
      duration: DURATION * ROUNDS,
      headers,
    }),
  ]);
  const errors = [analytics, status].reduce((sum, r) => sum + r.non2xx + r.errors + r.timeouts, 0);
  line('');
  line(
    `${BESIDE}: run status at 50 req/s p50 ${status.latency.p50}, p97.5 ${status.latency.p97_5}, p99 ${status.latency.p99} ms; brand analytics 90d on 4 connections ${(analytics.requests.total / analytics.duration).toFixed(1)} req/s, p50 ${analytics.latency.p50} ms${errors > 0 ? ` (${errors} errors)` : ''}.`,
  );
}

/**
 * Memory of a process and its children (the SQLite readers), in MiB: resident (RSS, what the
 * target counts) and proportional (PSS: a page shared by n processes, such as Node's own code
 * in every reader, counts 1/n in each, so the tree's PSS adds up to the memory it really holds).
 */
function memoryMiB(pid: number): Record<'rss' | 'pss', { own: number; children: number }> {
  const children = childrenOf(pid);
  const read = (p: number) => {
    const rollup = readFileSync(`/proc/${p}/smaps_rollup`, 'utf8');
    const kib = (field: string) => Number(new RegExp(`^${field}:\\s+(\\d+)`, 'm').exec(rollup)?.[1] ?? 0);
    return { rss: kib('Rss') / 1024, pss: kib('Pss') / 1024 };
  };
  const own = read(pid);
  const theirs = children.map(read);
  const of = (field: 'rss' | 'pss') => ({
    own: own[field],
    children: theirs.reduce((sum, m) => sum + m[field], 0),
  });
  return { rss: of('rss'), pss: of('pss') };
}

/**
 * This run's figures against the issue's targets (docs/performance.md, "Targets"), one line each,
 * for the targets whose cases ran; the memory target only after every case (it is read at the end
 * of a whole run). A printed verdict of one run on one machine, not a test.
 */
function targetVerdicts(
  results: readonly { goal: Goal; ratio: number; p97_5: number }[],
  rssMiB: number | undefined,
): string[] {
  const verdict = (met: boolean) => (met ? 'met' : 'not met');
  const percent = (n: number) => `${n.toFixed(0)} %`;
  const lines = ['Targets (issue "Fast where it counts"), this run:'];
  const singles = results.filter((r) => r.goal === 'single GET').map((r) => r.ratio);
  if (singles.length > 0) {
    const [low, high] = [Math.min(...singles), Math.max(...singles)];
    const range = low === high ? percent(low) : `${low.toFixed(0)}–${percent(high)}`;
    lines.push(`  single-resource GETs ≥ 50 % of bare: ${range}, ${verdict(low >= 50)}`);
  }
  const list = results.find((r) => r.goal === 'brand list');
  if (list)
    lines.push(`  brand list (25) ≥ 30 % of bare: ${percent(list.ratio)}, ${verdict(list.ratio >= 30)}`);
  const detail = results.find((r) => r.goal === 'run detail');
  if (detail) {
    lines.push(
      `  run detail 500 rows p95 ≤ 30 ms and ≥ 50 % of bare: p97.5 ${detail.p97_5.toFixed(0)} ms (p95 at most that), ${percent(detail.ratio)}, ${verdict(detail.p97_5 <= 30 && detail.ratio >= 50)}`,
    );
  }
  // 250 MB is 250 × 10⁶ bytes, 238.4 MiB.
  if (rssMiB !== undefined) {
    const mb = (rssMiB * 2 ** 20) / 1e6;
    lines.push(`  server + readers ≤ 250 MB RSS: ${mb.toFixed(0)} MB, ${verdict(mb <= 250)}`);
  }
  return lines.length > 1 ? lines : [];
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? 0;
const fixed = (n: number, width: number, digits = 0) => n.toFixed(digits).padStart(width);

async function main(): Promise<void> {
  const data = await database();
  const children: ChildProcess[] = [];
  try {
    const started = performance.now();
    const { key, targets } = await prepare(data.env);
    line(
      `Seeded ${args.postgres ? 'PostgreSQL + Redis' : 'SQLite'} in ${((performance.now() - started) / 1000).toFixed(1)} s.`,
    );

    const port = await freePort();
    const base = `http://127.0.0.1:${port}`;
    const service = await start(
      'bin/sightline.js',
      ['serve', '--port', String(port)],
      {
        ...data.env,
        RATE_LIMIT_PER_MINUTE: '1000000',
        METRICS_PORT: '0',
        LOG_LEVEL: 'info',
        ...(args.uncached ? { RESPONSE_CACHE_MB: '0', ANALYTICS_CACHE_MB: '0' } : {}),
      },
      `${base}/healthz`,
    );
    children.push(service);
    const auth = { authorization: `Bearer ${key}` };
    const sizes: Record<string, number> = {};
    for (const [i, target] of targets.entries()) {
      const res = await fetch(`${base}${target.path}`, { headers: auth });
      if (!res.ok) throw new Error(`${target.path}: ${res.status} ${await res.text()}`);
      sizes[String(i)] = (await res.arrayBuffer()).byteLength;
    }
    const barePort = await freePort();
    const bareServer = await start(
      'bench/bare-server.ts',
      [String(barePort), JSON.stringify(sizes)],
      {},
      `http://127.0.0.1:${barePort}/healthz`,
    );
    children.push(bareServer);

    line(
      `${cpus().length} × ${cpus()[0]?.model ?? 'CPU'}, Node ${process.version}; load average ${loadavg()
        .map((l) => l.toFixed(2))
        .join(
          ' ',
        )}; ${CONNECTIONS} connections, ${DURATION} s × ${ROUNDS} rounds per side and case; caches ${args.uncached ? 'off' : 'on'}.`,
    );
    line('');
    line(
      `${'case'.padEnd(26)} ${'bytes'.padStart(7)} | ${'req/s'.padStart(7)} ${'p50'.padStart(5)} ${'p97.5'.padStart(6)} ${'p99'.padStart(5)} ${'µs/req'.padStart(7)} | ${'bare'.padStart(7)} ${'p50'.padStart(5)} ${'p99'.padStart(5)} ${'µs/req'.padStart(7)} | ratio`,
    );
    const results: { goal: Goal; ratio: number; p97_5: number }[] = [];
    for (const [i, target] of targets.entries()) {
      if (!target.name.includes(args.only)) continue;
      const real = emptyMeasure();
      const bare = emptyMeasure();
      for (let round = 0; round < ROUNDS; round++) {
        const sides = [
          () => drive(`${base}${target.path}`, auth, real, service.pid ?? 0),
          () => drive(`http://127.0.0.1:${barePort}/bare/${i}`, {}, bare, bareServer.pid ?? 0),
        ];
        if (round % 2 === 1) sides.reverse();
        for (const side of sides) await side();
      }
      const rate = (m: Measure) => m.requests / m.seconds;
      const cost = (m: Measure) => (m.requests > 0 ? (1e6 * m.cpu) / m.requests : 0);
      if (target.goal)
        results.push({
          goal: target.goal,
          ratio: (100 * rate(real)) / rate(bare),
          p97_5: median(real.p97_5),
        });
      line(
        `${target.name.padEnd(26)} ${fixed(sizes[String(i)] ?? 0, 7)} | ${fixed(rate(real), 7)} ${fixed(median(real.p50), 5)} ${fixed(median(real.p97_5), 6)} ${fixed(median(real.p99), 5)} ${fixed(cost(real), 7)} | ${fixed(rate(bare), 7)} ${fixed(median(bare.p50), 5)} ${fixed(median(bare.p99), 5)} ${fixed(cost(bare), 7)} | ${fixed((100 * rate(real)) / rate(bare), 4)} %${real.errors + bare.errors > 0 ? `  (${real.errors + bare.errors} errors)` : ''}`,
      );
    }
    if (args.uncached && BESIDE.includes(args.only)) await besideAnalytics(base, auth, targets);
    line('');
    line(
      "Latencies in ms (median over rounds of autocannon percentiles); µs/req: CPU time of the side's processes per request (the service's SQLite readers included; PostgreSQL's and Redis's not).",
    );
    let rssMiB: number | undefined;
    if (service.pid) {
      const memory = memoryMiB(service.pid);
      rssMiB = memory.rss.own + memory.rss.children;
      for (const [name, m] of [
        ['RSS', memory.rss],
        ['PSS', memory.pss],
      ] as const) {
        line(
          `${name} after the run: service ${m.own.toFixed(0)} MiB + readers ${m.children.toFixed(0)} MiB = ${(m.own + m.children).toFixed(0)} MiB.`,
        );
      }
    }
    line('');
    for (const verdict of targetVerdicts(results, args.only === '' ? rssMiB : undefined)) line(verdict);
  } finally {
    for (const child of children) child.kill('SIGTERM');
    await new Promise((resolve) => setTimeout(resolve, 500));
    await data.drop();
  }
}

await main();
