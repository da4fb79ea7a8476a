import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { promisify } from 'node:util';
import { parse } from 'csv-parse/sync';
import { createDemoContext, type DemoContext } from './support/demo.ts';
import { BrandFixture } from './support/fixtures.ts';
import { freePort, type ServerProcess, startServerProcess } from './support/server-process.ts';

// The scripts in examples/ run as a newcomer runs them (examples/README.md): each a process of its
// own, with SIGHTLINE_API_KEY and SIGHTLINE_BASE_URL, against the service serving the demo data in
// a process of its own.

const root = join(import.meta.dirname, '..');
const DAY_MS = 86_400_000;

let demo: DemoContext;
let server: ServerProcess;
let dir: string;
/** Two acme brands whose score moves are worked out by hand. */
let falling: number;
let fresh: number;

before(async () => {
  demo = await createDemoContext();
  const db = demo.ctx.dbs.primary;
  const daysAgo = (days: number) => new Date(Date.now() - days * DAY_MS).toISOString();

  // One monitored prompt, asked twice. Observation value: rank r → max(0.25, 1 − 0.15(r − 1)).
  //   40 days ago: mentioned at rank 1 → v 1   → score 100 (the last scored run before the 30d window)
  //    1 day ago:  mentioned at rank 3 → v 0.7 → score 70
  // 30d windowed delta = 70 − 100 = −30.
  const brand = await BrandFixture.insert(db, demo.orgIds.acme, { name: 'Falling Desk' });
  const category = await brand.category();
  const prompt = await brand.prompt(category);
  await brand.run({ category, finishedAt: daysAgo(40), answers: [{ prompt, mentioned: true, rank: 1 }] });
  await brand.run({ category, finishedAt: daysAgo(1), answers: [{ prompt, mentioned: true, rank: 3 }] });
  falling = brand.brandId;

  // Scored only inside the window: nothing to compare with, so the delta is suppressed (no_prior).
  const young = await BrandFixture.insert(db, demo.orgIds.acme, { name: 'Fresh Desk' });
  const youngCategory = await young.category();
  const youngPrompt = await young.prompt(youngCategory);
  await young.run({
    category: youngCategory,
    finishedAt: daysAgo(1),
    answers: [{ prompt: youngPrompt, mentioned: true, rank: 1 }],
  });
  fresh = young.brandId;

  server = await startServerProcess(demo.ctx.config);
  dir = mkdtempSync(join(tmpdir(), 'sightline-examples-'));
});

after(async () => {
  if (server) {
    server.child.kill('SIGTERM');
    await server.exited;
  }
  if (dir) rmSync(dir, { recursive: true, force: true });
  await demo?.ctx.close();
});

interface Ran {
  code: number;
  stdout: string;
  stderr: string;
}

/** Runs an example with a fresh acme key (each its own rate-limit quota); resolves whatever the exit code. */
async function example(
  script: string,
  args: string[],
  apiKey?: string,
  baseUrl = server.baseUrl,
): Promise<Ran> {
  const env = {
    PATH: process.env.PATH ?? '',
    SIGHTLINE_API_KEY: apiKey ?? (await demo.mint('acme')),
    SIGHTLINE_BASE_URL: baseUrl,
  };
  try {
    const { stdout, stderr } = await promisify(execFile)(
      process.execPath,
      [join(root, 'examples', script), ...args],
      { cwd: dir, env },
    );
    return { code: 0, stdout, stderr };
  } catch (error) {
    const failed = error as { code?: number; stdout?: string; stderr?: string };
    if (typeof failed.code !== 'number') throw error;
    return { code: failed.code, stdout: failed.stdout ?? '', stderr: failed.stderr ?? '' };
  }
}

async function api(path: string, key: string): Promise<Response> {
  const res = await fetch(new URL(path, server.baseUrl), { headers: { authorization: `Bearer ${key}` } });
  assert.equal(res.status, 200, path);
  return res;
}

describe('examples/alert.ts', () => {
  it('exits 1 when the windowed delta is below the threshold', async () => {
    const ran = await example('alert.ts', ['--brand', String(falling), '--threshold=-20']);
    assert.equal(ran.code, 1, ran.stderr);
    assert.match(
      ran.stdout,
      /^Falling Desk \(\d+\): score 70, 30d delta -30, ALERT: below the threshold -20$/m,
    );
  });

  it('exits 0 at or above the threshold', async () => {
    for (const threshold of ['-40', '-30']) {
      const ran = await example('alert.ts', ['--brand', String(falling), `--threshold=${threshold}`]);
      assert.equal(ran.code, 0, `${threshold}: ${ran.stdout}${ran.stderr}`);
      assert.match(ran.stdout, /delta -30, ok: not below/);
    }
  });

  it('exits 3 with the reason when there is no delta to judge', async () => {
    const ran = await example('alert.ts', ['--brand', String(fresh), '--threshold', '0']);
    assert.equal(ran.code, 3, ran.stderr);
    assert.match(ran.stdout, /^Fresh Desk \(\d+\): no 30d delta to judge \(no_prior\); score 100$/m);
  });

  it('exits 2 on a usage error and on an API error, with one line', async () => {
    const usage = await example('alert.ts', ['--brand', String(falling)]);
    assert.equal(usage.code, 2);
    assert.match(usage.stderr, /^usage: alert\.ts --brand ID --threshold NUMBER/);
    const hidden = await example('alert.ts', [
      '--brand',
      String(demo.brandIds.globex[0]),
      '--threshold',
      '0',
    ]);
    assert.equal(hidden.code, 2);
    assert.equal(hidden.stderr, '404: Not found.\n');
  });

  it('exits 2 with one line when no service answers at SIGHTLINE_BASE_URL', async () => {
    const port = await freePort();
    const ran = await example(
      'alert.ts',
      ['--brand', String(falling), '--threshold', '0'],
      undefined,
      `http://127.0.0.1:${port}`,
    );
    assert.equal(ran.code, 2);
    assert.equal(
      ran.stderr,
      `could not reach the Sightline API at http://127.0.0.1:${port} (ECONNREFUSED)\n`,
    );
  });
});

describe('examples/export-analytics.ts', () => {
  it('writes the brand list and every analytics block of every brand as CSV', async () => {
    const out = join(dir, 'export');
    const ran = await example('export-analytics.ts', ['--out', out]);
    assert.equal(ran.code, 0, ran.stderr);

    const key = await demo.mint('acme');
    const brandsCsv = await (await api('/api/brands/?sort=name&page_size=100&format=csv', key)).text();
    assert.equal(readFileSync(join(out, 'brands.csv'), 'utf8'), brandsCsv);
    const brands = (await (await api('/api/brands/?page_size=100', key)).json()) as {
      results: Array<{ id: string }>;
    };
    // Acme's five demo brands less the archived one (listed only with archived=true), the two
    // above: 6 brands, seven blocks each, and brands.csv.
    assert.equal(brands.results.length, 6);
    assert.equal(readdirSync(out).length, 1 + 7 * brands.results.length);
    assert.match(ran.stdout, new RegExp(`wrote ${1 + 7 * brands.results.length} files to `));

    // Over 90 days Falling Desk has both answers (weight 1 each): 2 mentioned of 2 → rate 1;
    // ranks 1 and 3 → average rank 2.
    const [header, row, ...rest] = parse(
      readFileSync(join(out, `brand-${falling}-metrics.csv`), 'utf8'),
    ) as string[][];
    assert.equal(rest.length, 0);
    const cell = (name: string) => row?.[header?.indexOf(name) ?? -1];
    assert.equal(cell('label'), 'Last 90 days');
    assert.equal(cell('sampleCount'), '2');
    assert.equal(cell('mentionRate.value'), '1');
    assert.equal(cell('avgRank.value'), '2');
    const sources = readFileSync(join(out, `brand-${falling}-sources.items.csv`), 'utf8');
    assert.match(sources, /^domain,count,share,/);
  });
});

describe('an example that fails', () => {
  it('says why in one line and exits 1, without a stack trace', async () => {
    for (const script of ['export-analytics.ts', 'latest-summaries.ts']) {
      const ran = await example(script, ['--out', join(dir, 'refused')], 'sl_live_not_a_key');
      assert.equal(ran.code, 1, script);
      assert.equal(ran.stderr, '401: Invalid API key.\n', script);
    }
  });
});

describe('examples/latest-summaries.ts', () => {
  it("downloads each brand's newest complete executive summary", async () => {
    const out = join(dir, 'summaries');
    const ran = await example('latest-summaries.ts', ['--out', out]);
    assert.equal(ran.code, 0, ran.stderr);

    // Of acme's brands only Brightdesk has executive summaries: complete (14 days ago), aborted
    // (2 days ago) and running (2 minutes ago). The newest is not downloadable; the complete one is.
    const files = readdirSync(out);
    assert.equal(files.length, 1, ran.stdout);
    assert.match(files[0] ?? '', /^brightdesk-executive_summary_v2-\d{4}-\d{2}-\d{2}\.html$/);
    const id = /^Brightdesk \(\d+\): report (\d+) of /m.exec(ran.stdout)?.[1];
    assert.ok(id, ran.stdout);
    const key = await demo.mint('acme');
    const artifact = (await (await api(`/api/reports/${id}/`, key)).json()) as Record<string, string>;
    assert.equal(artifact.status, 'complete');
    assert.equal(artifact.reportType, 'executive_summary_v2');
    const newest = (await (
      await api(`/api/brands/${demo.manifest.demoBrandId}/reports/latest/?type=executive_summary_v2`, key)
    ).json()) as Record<string, string>;
    assert.equal(newest.status, 'running');
    const download = Buffer.from(await (await api(`/api/reports/${id}/download/`, key)).arrayBuffer());
    assert.deepEqual(readFileSync(join(out, files[0] ?? '')), download);
    assert.equal(
      ran.stdout.match(/: no complete executive_summary_v2$/gm)?.length,
      // The other five listed brands (three demo, two above) have none.
      5,
    );
    assert.match(ran.stdout, /^downloaded 1 executive_summary_v2 files to /m);
  });
});
