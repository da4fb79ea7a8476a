import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { findBrandMonitoring, findMonitorRun } from '../src/db/monitoring.ts';
import { planRuns } from '../src/monitoring/plan.ts';
import { runCli } from './support/cli.ts';
import { createTestContext, type TestContext } from './support/context.ts';
import { insertOrg } from './support/fixtures.ts';
import { type MonitoredBrand, monitoredBrand } from './support/monitoring.ts';

// The monitoring set-up commands as a person runs them: good input changes the schedule, bad
// input is one line on stderr, exit 2, and nothing changed.

let ctx: TestContext;
let brand: MonitoredBrand;

before(async () => {
  ctx = await createTestContext();
  brand = await monitoredBrand(
    ctx.dbs.primary,
    await insertOrg(ctx.dbs.primary, 'acme', { timezone: 'Europe/Berlin' }),
    1,
  );
});
after(() => ctx.close());

const cli = (...args: string[]) => runCli(ctx.config.databaseUrl, ...args);
const askSimulated = (org: string, brandId: number) =>
  cli('monitor', 'run', '--org', org, '--brand', String(brandId), '--engines', 'simulated');

describe('sightline brands update (monitoring flags) and monitor settings', () => {
  it('sets a daily schedule at a time of day in the organization time zone', async () => {
    const run = await cli(
      'brands',
      'update',
      String(brand.brandId),
      '--org',
      'acme',
      '--cadence',
      'daily',
      '--time',
      '06:30',
      '--engines',
      'chatgpt,perplexity',
      '--samples',
      '3',
    );
    assert.equal(run.status, 0, run.stderr);
    assert.match(
      run.stdout,
      /monitoring daily at 06:30 \(Europe\/Berlin\), engines chatgpt, perplexity, 3 sample/,
    );
    const m = await findBrandMonitoring(ctx.dbs.primary, brand.orgId, brand.brandId);
    assert.deepEqual(
      [m?.cadence, m?.time, m?.engines, m?.samples],
      ['daily', '06:30', ['chatgpt', 'perplexity'], 3],
    );
    // 06:30 in Berlin is 05:30 UTC in winter and 04:30 UTC in summer.
    assert.match(m?.nextRunAt ?? '', /T0[45]:30:00\.000Z$/);
  });

  for (const [label, args, message] of [
    ['a weekday that is not one', ['--weekday', 'funday'], /expected a day of the week, sun, mon/],
    [
      'a weekday on a daily schedule',
      ['--weekday', 'mon'],
      /^sightline: a weekday is for a weekly schedule, and this one is daily: add --cadence weekly\n$/,
    ],
    ['an unknown engine', ['--engines', 'chatgpt,bard'], /unknown engine "bard"/],
    ['zero samples', ['--samples', '0'], /from 1 to 10/],
    ['a time that is not HH:MM', ['--time', '25:00'], /HH:MM/],
    ['a cadence that does not exist', ['--cadence', 'hourly'], /Allowed choices are daily, weekly, off/],
  ] as const) {
    it(`refuses ${label} with exit 2 and changes nothing`, async () => {
      const before = await findBrandMonitoring(ctx.dbs.primary, brand.orgId, brand.brandId);
      const run = await cli(
        'brands',
        'update',
        String(brand.brandId),
        '--org',
        'acme',
        '--name',
        'Renamed',
        ...args,
      );
      assert.equal(run.status, 2);
      assert.match(run.stderr, message);
      assert.deepEqual(await findBrandMonitoring(ctx.dbs.primary, brand.orgId, brand.brandId), before);
    });
  }

  it('refuses brands update with nothing to change, one line, exit 2', async () => {
    const run = await cli('brands', 'update', String(brand.brandId), '--org', 'acme');
    assert.equal(run.status, 2);
    assert.equal(
      run.stderr,
      'sightline: nothing to change: give at least one option, e.g. --name or --status\n',
    );
    assert.equal(run.stdout, '');
  });

  it('refuses a --concurrency past what the pool can hold, as SIGHTLINE_WORKER_CONCURRENCY does', async () => {
    for (const command of [
      ['worker'],
      ['monitor', 'run', '--org', 'acme', '--brand', String(brand.brandId)],
    ]) {
      const run = await cli(...command, '--concurrency', '1001');
      assert.equal(run.status, 2);
      assert.equal(
        run.stderr,
        "error: option '--concurrency <n>' argument '1001' is invalid. expected a whole number from 1 to 1000.\n",
      );
    }
  });

  it('runs a weekly schedule on the chosen weekday, shows it in monitor settings, and clears it', async () => {
    const other = await monitoredBrand(
      ctx.dbs.primary,
      await insertOrg(ctx.dbs.primary, 'weekly', { timezone: 'Europe/Berlin' }),
      1,
    );
    const id = String(other.brandId);
    const set = await cli(
      'brands',
      'update',
      id,
      '--org',
      'weekly',
      '--cadence',
      'weekly',
      '--weekday',
      'Monday',
      '--time',
      '06:30',
      '--engines',
      'simulated',
    );
    assert.equal(set.status, 0, set.stderr);
    assert.match(set.stdout, /monitoring weekly on Monday at 06:30 \(Europe\/Berlin\), engines simulated/);
    let m = await findBrandMonitoring(ctx.dbs.primary, other.orgId, other.brandId);
    assert.deepEqual([m?.cadence, m?.weekday, m?.time], ['weekly', 'mon', '06:30']);
    // Monday 06:30 in Berlin is Monday 05:30 UTC in winter, 04:30 UTC in summer: a Monday in UTC too.
    const next = new Date(m?.nextRunAt ?? '');
    assert.equal(next.getUTCDay(), 1);
    assert.match(next.toISOString(), /T0[45]:30:00\.000Z$/);

    const shown = await cli('monitor', 'settings', '--org', 'weekly');
    assert.equal(shown.status, 0, shown.stderr);
    assert.equal(
      shown.stdout.split('\n')[1],
      `Brand ${id} "Acme CRM": monitoring weekly on Monday at 06:30 (Europe/Berlin), engines simulated, 1 sample(s) per prompt and engine, next run ${next.toISOString()}.`,
    );

    // Leaving the weekly cadence drops the weekday: back to weekly, the runs keep the weekday they
    // start on rather than Monday, which nobody asked for this time.
    const daily = await cli('brands', 'update', id, '--org', 'weekly', '--cadence', 'daily');
    assert.equal(daily.status, 0, daily.stderr);
    m = await findBrandMonitoring(ctx.dbs.primary, other.orgId, other.brandId);
    assert.deepEqual([m?.cadence, m?.weekday, m?.time], ['daily', null, '06:30']);
    const weeklyAgain = await cli('brands', 'update', id, '--org', 'weekly', '--cadence', 'weekly');
    assert.equal(weeklyAgain.status, 0, weeklyAgain.stderr);
    assert.match(weeklyAgain.stdout, /monitoring weekly at 06:30 \(Europe\/Berlin\), engines simulated/);
    m = await findBrandMonitoring(ctx.dbs.primary, other.orgId, other.brandId);
    assert.deepEqual([m?.cadence, m?.weekday], ['weekly', null]);
    const monday = await cli('brands', 'update', id, '--org', 'weekly', '--weekday', 'mon');
    assert.equal(monday.status, 0, monday.stderr);

    // "" clears the weekday and the time (stored as null, not as an empty string).
    const cleared = await cli('brands', 'update', id, '--org', 'weekly', '--weekday', '', '--time', '');
    assert.equal(cleared.status, 0, cleared.stderr);
    assert.match(cleared.stdout, /monitoring weekly, engines simulated/);
    m = await findBrandMonitoring(ctx.dbs.primary, other.orgId, other.brandId);
    assert.deepEqual([m?.weekday, m?.time], [null, null]);
  });

  it('refuses a schedule without engines, and leaves the other changes unmade', async () => {
    const other = await monitoredBrand(ctx.dbs.primary, await insertOrg(ctx.dbs.primary, 'beta'), 1);
    const run = await cli(
      'brands',
      'update',
      String(other.brandId),
      '--org',
      'beta',
      '--name',
      'Renamed',
      '--cadence',
      'weekly',
    );
    assert.equal(run.status, 2);
    assert.equal(
      run.stderr,
      'sightline: a weekly schedule needs engines: give --engines, e.g. --engines chatgpt,perplexity\n',
    );
    const row = await ctx.dbs.primary
      .selectFrom('brands')
      .select(['name', 'monitoring_cadence'])
      .where('id', '=', other.brandId)
      .executeTakeFirstOrThrow();
    assert.deepEqual({ ...row }, { name: 'Acme CRM', monitoring_cadence: 'off' });
  });

  it('sets and clears the monthly ask budget and the review setting', async () => {
    let run = await cli('monitor', 'settings', '--org', 'acme', '--budget', '500', '--review', 'on');
    assert.equal(run.status, 0, run.stderr);
    assert.match(
      run.stdout,
      /monthly ask budget 500 \(0 asks used in \d{4}-\d{2}, Europe\/Berlin\); completed runs wait for review/,
    );
    run = await cli('monitor', 'settings', '--org', 'acme', '--budget', 'none');
    assert.match(run.stdout, /no monthly ask budget .*; completed runs wait for review/);
    run = await cli('monitor', 'settings', '--org', 'acme', '--budget', '-3');
    assert.equal(run.status, 2);
  });

  it('refuses to run a brand without engines, as a usage error', async () => {
    const other = await monitoredBrand(ctx.dbs.primary, await insertOrg(ctx.dbs.primary, 'gamma'), 1);
    const run = await cli('monitor', 'run', '--org', 'gamma', '--brand', String(other.brandId));
    assert.equal(run.status, 2);
    assert.match(run.stderr, /has no engines to ask/);
    assert.equal((await ctx.dbs.primary.selectFrom('runs').select('id').execute()).length, 0);
  });

  it('refuses to ask a paused brand, and asks nothing', async () => {
    const orgId = await insertOrg(ctx.dbs.primary, 'delta');
    const paused = await monitoredBrand(ctx.dbs.primary, orgId, 1);
    await ctx.dbs.primary
      .updateTable('brands')
      .set({ status: 'paused' })
      .where('id', '=', paused.brandId)
      .execute();
    const run = await askSimulated('delta', paused.brandId);
    assert.equal(run.status, 1);
    assert.equal(
      run.stderr,
      `sightline: brand ${paused.brandId} is paused: only active brands are asked (sightline brands update ${paused.brandId} --org delta --status active)\n`,
    );
    const runs = await ctx.dbs.primary.selectFrom('runs').select('id').where('org_id', '=', orgId).execute();
    assert.equal(runs.length, 0);
  });

  it('refuses to resume a run with asks for an engine it has no key for, and claims nothing', async () => {
    const orgId = await insertOrg(ctx.dbs.primary, 'epsilon');
    const other = await monitoredBrand(ctx.dbs.primary, orgId, 2);
    const monitoring = await findBrandMonitoring(ctx.dbs.primary, orgId, other.brandId);
    assert.ok(monitoring);
    // Planned by a process that had ChatGPT's key; this command has none.
    const [planned] = await planRuns(
      ctx.dbs.primary,
      monitoring,
      { engines: ['chatgpt'], samples: 1 },
      new Set(['chatgpt']),
      new Date(),
    );
    assert.ok(planned);
    const run = await askSimulated('epsilon', other.brandId);
    assert.equal(run.status, 2);
    assert.equal(
      run.stderr,
      `sightline: run ${planned.runId} (category ${planned.categoryId}) is unfinished with 2 asks for engine chatgpt, which is not configured (see: sightline engines list)\n`,
    );
    const asks = await ctx.dbs.primary
      .selectFrom('run_asks')
      .select(['state', 'attempts'])
      .where('run_id', '=', planned.runId)
      .execute();
    assert.deepEqual(
      asks.map((a) => [a.state, a.attempts]),
      [
        ['pending', 0],
        ['pending', 0],
      ],
    );
    const usage = await ctx.dbs.primary
      .selectFrom('org_ask_usage')
      .select('asks')
      .where('org_id', '=', orgId)
      .execute();
    assert.deepEqual(usage, []);
    assert.equal((await findMonitorRun(ctx.dbs.primary, planned.runId))?.status, 'running');
  });
});

describe('sightline monitor plan', () => {
  // Four monitored prompts, asked weekly by two engines, two samples per ask. Planning arithmetic
  // (methodology.md, "Uncertainty"): per prompt m = runs × 2 answers, design effect 1 + (m − 1)·0.3,
  // effective n = 8·runs / deff × (z / t₃)² = × 0.379292, half-width z / (2·√(n_eff + z²)).
  //   7 days, 1 run:   m 2, n 8, deff 1.3, n_eff 2.33409 → 1.959964 / (2·2.48502) = 0.3944 → ±39.4
  //   30 days, 4 runs: m 8, n 32, deff 3.1, n_eff 3.91525 → 1.959964 / (2·2.78512) = 0.3519 → ±35.2
  //   90 days, 12 runs: m 24, n 96, deff 7.9, n_eff 4.60912 → 1.959964 / (2·2.90699) = 0.3371 → ±33.7
  // ±10 points is out of reach with 4 prompts (unlimited samples give at best n_eff = 4 / 0.3 ×
  // 0.379292 = 5.05723, ±32.9), so the suggestion is the fewest samples within one point of that
  // best, over 30 days: 5 samples give ±33.87, 6 give ±33.71 ≤ 32.85 + 1.
  let planned: MonitoredBrand;
  before(async () => {
    planned = await monitoredBrand(ctx.dbs.primary, await insertOrg(ctx.dbs.primary, 'planco'), 4);
  });

  it('prints the expected interval per engine over 7, 30 and 90 days and the samples ±10 points need', async () => {
    const id = String(planned.brandId);
    const setUp = await cli(
      'brands',
      'update',
      id,
      '--org',
      'planco',
      '--cadence',
      'weekly',
      '--engines',
      'chatgpt,perplexity',
      '--samples',
      '2',
    );
    assert.equal(setUp.status, 0, setUp.stderr);
    const run = await cli('monitor', 'plan', '--org', 'planco', '--brand', id);
    assert.equal(run.status, 0, run.stderr);
    const rows = run.stdout.split('\n').map((line) => line.split(/\s{2,}/));
    assert.deepEqual(
      rows.filter((cells) => cells[0] === 'chatgpt' || cells[0] === 'perplexity'),
      ['chatgpt', 'perplexity'].map((engine) => [
        engine,
        'weekly',
        '2',
        '±39.4',
        '±35.2',
        '±33.7',
        'more prompts',
        'more prompts',
        'more prompts',
      ]),
    );
    assert.match(run.stdout, /4 monitored prompts, asked weekly/);
    assert.match(run.stdout, /Suggested samples per ask for this brand: 6\./);
  });

  it('plans other settings on request, and refuses an unmonitored brand with one line', async () => {
    const other = await monitoredBrand(ctx.dbs.primary, await insertOrg(ctx.dbs.primary, 'offco'), 4);
    const refused = await cli('monitor', 'plan', '--org', 'offco', '--brand', String(other.brandId));
    assert.equal(refused.status, 2);
    assert.equal(refused.stdout, '');
    assert.match(
      refused.stderr,
      /^sightline: brand \d+ is not monitored \(cadence off\): give --cadence daily or weekly\n$/,
    );
    // Daily, one sample, one engine: m = runs, n = 4·runs.
    //   7 days: deff 2.8, 28 / 2.8 = 10 × 0.379292 = 3.79292 → 1.959964 / (2·2.76304) = 0.3547 → ±35.5
    //   30 days: deff 9.7, 120 / 9.7 = 12.3711 × 0.379292 = 4.69227 → / (2·2.92128) = 0.3355 → ±33.5
    //   90 days: deff 27.7, 360 / 27.7 = 12.9964 × 0.379292 = 4.92944 → / (2·2.96157) = 0.3309 → ±33.1
    const daily = await cli(
      'monitor',
      'plan',
      '--org',
      'offco',
      '--brand',
      String(other.brandId),
      '--cadence',
      'daily',
      '--engines',
      'claude',
      '--samples',
      '1',
    );
    assert.equal(daily.status, 0, daily.stderr);
    assert.match(daily.stdout, /\nclaude +daily +1 +±35\.5 +±33\.5 +±33\.1 /);
  });
});
