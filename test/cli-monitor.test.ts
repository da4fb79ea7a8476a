import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { findBrandMonitoring } from '../src/db/monitoring.ts';
import { createTestContext, type TestContext } from './support/context.ts';
import { insertOrg } from './support/fixtures.ts';
import { type MonitoredBrand, monitoredBrand } from './support/monitoring.ts';

// The monitoring set-up commands as a person runs them: good input changes the schedule, bad
// input is one line on stderr, exit 2, and nothing changed.

const MAIN = join(import.meta.dirname, '..', 'src', 'cli', 'main.ts');

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

function cli(...args: string[]): Promise<{ status: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      [MAIN, ...args],
      { env: { PATH: process.env.PATH ?? '', DATABASE_URL: ctx.config.databaseUrl, LOG_LEVEL: 'silent' } },
      (error, stdout, stderr) => resolve({ status: error ? Number(error.code) : 0, stdout, stderr }),
    );
  });
}

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
});
