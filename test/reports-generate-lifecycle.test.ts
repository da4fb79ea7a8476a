import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { once } from 'node:events';
import { readdirSync, readFileSync, readlinkSync } from 'node:fs';
import { Readable } from 'node:stream';
import { after, before, describe, it } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { sql } from 'kysely';
import { buildApp } from '../src/app.ts';
import { type Db, sqlitePath } from '../src/db/connect.ts';
import { databaseReportFileStore, type ReportFileStore, STREAM_CHUNK_BYTES } from '../src/db/report-files.ts';
import type { App } from '../src/http/types.ts';
import { ABANDONED_REASON, AGENT_NAME, abortAbandonedReports } from '../src/reports/abandoned.ts';
import { generateReport } from '../src/reports/generate.ts';
import type { GenerateRequest } from '../src/reports/request.ts';
import { InvalidReportRequest } from '../src/reports/request.ts';
import { MAIN } from './support/cli.ts';
import { bearer, createTestContext, type TestContext } from './support/context.ts';
import { insertBrand, insertOrg, insertReportArtifact, mintKey } from './support/fixtures.ts';
import { DONE, type Fixture, NOW, seedReportFixture } from './support/report-scenario.ts';
import { startServerProcess } from './support/server-process.ts';
import { holdingWrites } from './support/write-lock.ts';

// What happens around a report: its states, a failure midway, refused requests, downloads of the
// generated files (headers, streaming of large ones) and the CLI that starts it all.

describe('report generation: lifecycle, downloads and CLI', () => {
  let ctx: TestContext;
  let api: App;
  let key: string;
  let fx: Fixture;

  const request = (extra: Partial<GenerateRequest> = {}): GenerateRequest => ({
    orgId: fx.orgId,
    brandId: fx.brandId,
    categoryId: null,
    reportType: 'executive_summary_v2',
    format: 'pdf',
    userId: null,
    branded: true,
    ...extra,
  });
  const generate = (extra: Partial<GenerateRequest> = {}, files?: (db: Db) => ReportFileStore) =>
    generateReport(ctx.dbs.primary, request(extra), { now: NOW, clock: () => DONE, files });
  const get = (url: string) => api.inject({ url, headers: bearer(key) });
  const artifactCount = async () =>
    Number(
      (
        await ctx.dbs.primary
          .selectFrom('report_artifacts')
          .select((eb) => eb.fn.countAll().as('n'))
          .executeTakeFirstOrThrow()
      ).n,
    );
  const fileKinds = async (artifactId: number) =>
    (
      await ctx.dbs.primary
        .selectFrom('report_files')
        .select('kind')
        .where('artifact_id', '=', artifactId)
        .orderBy('kind')
        .execute()
    ).map((f) => f.kind);

  before(async () => {
    ctx = await createTestContext();
    fx = await seedReportFixture(ctx.dbs.primary);
    key = await mintKey(ctx.dbs.primary, fx.orgId);
    api = await buildApp(ctx.config, { databases: ctx.dbs, logger: false, clock: () => NOW });
    await api.ready();
  });

  after(async () => {
    await api.close();
    await ctx.close();
  });

  it('stores a PDF report as PDF and HTML, an HTML report as HTML only', async () => {
    const pdf = await generate({ format: 'pdf' });
    const html = await generate({ format: 'html' });
    assert.deepEqual(await fileKinds(pdf.artifactId), ['html', 'pdf']);
    assert.deepEqual(await fileKinds(html.artifactId), ['html']);
  });

  it('leaves a failed artifact, saying which step failed, and no files when storing fails halfway', async () => {
    // The first file really is written (inside the transaction); the second put fails.
    const failing = (db: Db): ReportFileStore => {
      const real = databaseReportFileStore(db);
      let puts = 0;
      return {
        get: real.get,
        async put(orgId, artifactId, file) {
          puts += 1;
          if (puts === 2) throw new Error('object store unreachable');
          await real.put(orgId, artifactId, file);
        },
      };
    };
    const result = await generate({}, failing);
    assert.equal(result.status, 'failed');
    assert.equal(result.errorMessage, "Report generation failed while storing the report's files.");
    assert.equal(result.failureDetail, "while storing the report's files: object store unreachable");
    assert.deepEqual(await fileKinds(result.artifactId), [], 'the file written first was rolled back');

    const body = (await get(`/api/reports/${result.artifactId}/`)).json();
    assert.equal(body.status, 'failed');
    assert.equal(
      body.errorMessage,
      "Report generation failed while storing the report's files.",
      'the store’s own words stay with the operator',
    );
    assert.equal(body.downloadUrl, '');
    assert.equal(body.evidenceRefsCount, 0);
    assert.equal(body.completedAt, DONE.toISOString(), 'when it stopped');
    assert.equal((await get(`/api/reports/${result.artifactId}/download/`)).statusCode, 404);
  });

  it('aborts the artifact when its signal stops it, keeping no file', async () => {
    // The signal comes once the first file is written inside the completing transaction.
    const controller = new AbortController();
    const stopping = (db: Db): ReportFileStore => {
      const real = databaseReportFileStore(db);
      return {
        get: real.get,
        async put(orgId, artifactId, file) {
          await real.put(orgId, artifactId, file);
          controller.abort('SIGTERM');
        },
      };
    };
    const result = await generateReport(ctx.dbs.primary, request(), {
      now: NOW,
      clock: () => DONE,
      files: stopping,
      signal: controller.signal,
    });
    assert.deepEqual(result, {
      artifactId: result.artifactId,
      status: 'aborted',
      errorMessage: '',
      failureDetail: '',
      abortedReason: 'Interrupted (SIGTERM) before it was finished.',
      missingGlyphs: [],
    });
    assert.deepEqual(await fileKinds(result.artifactId), [], 'the file written first was rolled back');
    const body = (await get(`/api/reports/${result.artifactId}/`)).json();
    assert.deepEqual(
      [body.status, body.abortedReason, body.errorMessage, body.downloadUrl, body.completedAt],
      ['aborted', 'Interrupted (SIGTERM) before it was finished.', '', '', DONE.toISOString()],
    );
    // A signal already given stops it before any artifact exists.
    const before = await artifactCount();
    await assert.rejects(
      generateReport(ctx.dbs.primary, request(), { now: NOW, clock: () => DONE, signal: controller.signal }),
      (error) => error === 'SIGTERM',
    );
    assert.equal(await artifactCount(), before);
  });

  it("aborts what a killed generation left queued or running, at the organization's next one", async () => {
    const minutesBeforeDone = (minutes: number) => new Date(DONE.getTime() - minutes * 60_000).toISOString();
    const left = (orgId: number, brandId: number, status: string, minutes: number, agent = AGENT_NAME) =>
      insertReportArtifact(ctx.dbs.primary, orgId, {
        brand_id: brandId,
        report_type: 'in_depth_report',
        status,
        created_at: minutesBeforeDone(minutes),
        agent_name: agent,
      });
    const otherOrg = await insertOrg(ctx.dbs.primary, 'abandoned-elsewhere');
    const otherBrand = await insertBrand(ctx.dbs.primary, otherOrg, { name: 'Elsewhere' });
    // Past 15 minutes: running 16 and queued 20 minutes before DONE, this generator's, this org's.
    const abandoned = [
      await left(fx.orgId, fx.brandId, 'running', 16),
      await left(fx.orgId, fx.brandId, 'queued', 20),
    ];
    const kept = [
      await left(fx.orgId, fx.brandId, 'running', 14), // may still be working
      await left(fx.orgId, fx.brandId, 'running', 60 * 24, 'atlas-report-agent'), // another generator's
      await left(otherOrg, otherBrand, 'running', 60 * 24), // another organization's
    ];
    assert.equal((await generate()).status, 'complete');
    const rows = await ctx.dbs.primary
      .selectFrom('report_artifacts')
      .select(['id', 'status', 'completed_at', 'aborted_reason'])
      .where('id', 'in', [...abandoned, ...kept])
      .orderBy('id')
      .execute();
    assert.deepEqual(
      rows.map((r) => [
        r.id,
        r.status,
        r.completed_at === null ? null : new Date(r.completed_at).toISOString(),
        r.aborted_reason,
      ]),
      [
        ...abandoned.map((id) => [id, 'aborted', DONE.toISOString(), ABANDONED_REASON]),
        ...kept.map((id) => [id, 'running', null, '']),
      ],
    );
  });

  it('and `sightline serve` aborts them in every organization, without waiting for a generation', async () => {
    // A database of its own: the service sweeps every organization's, the other tests' included.
    const own = await createTestContext();
    try {
      // The service sweeps at its start and every minute after, by the clock: ages from now.
      const minutesAgo = (minutes: number) => new Date(Date.now() - minutes * 60_000).toISOString();
      const left = async (slug: string, status: string, minutes: number, agent = AGENT_NAME) => {
        const orgId = await insertOrg(own.dbs.primary, slug);
        return insertReportArtifact(own.dbs.primary, orgId, {
          brand_id: await insertBrand(own.dbs.primary, orgId, { name: 'Serving' }),
          report_type: 'in_depth_report',
          status,
          created_at: minutesAgo(minutes),
          agent_name: agent,
        });
      };
      const abandoned = [await left('one', 'running', 30), await left('two', 'queued', 16)];
      const kept = [
        await left('three', 'running', 10), // may still be working
        await left('four', 'running', 60, 'atlas-report-agent'), // another generator's
      ];
      const server = await startServerProcess(own.config);
      const swept = (line: Record<string, unknown>) =>
        line.msg === 'report generations a stopped process left: aborted';
      try {
        await server.waitForLog(swept);
        assert.equal(server.logs().find(swept)?.aborted, 2);
      } finally {
        server.child.kill('SIGTERM');
        await server.exited;
      }
      const rows = await own.dbs.primary
        .selectFrom('report_artifacts')
        .select(['id', 'status', 'aborted_reason'])
        .orderBy('id')
        .execute();
      assert.deepEqual(
        rows.map((r) => [r.id, r.status, r.aborted_reason]),
        [
          ...abandoned.map((id) => [id, 'aborted', ABANDONED_REASON]),
          ...kept.map((id) => [id, 'running', '']),
        ],
      );
    } finally {
      await own.close();
    }
  });

  it('finding nothing left behind, the sweep writes nothing: an import holding the write lock does not stop it', async () => {
    const orgId = await insertOrg(ctx.dbs.primary, 'nothing-left-behind');
    await holdingWrites(ctx, async () => {
      // On SQLite an update waits for the lock (5 s), then fails: the service would have logged a
      // failed sweep every minute of a long import.
      assert.equal(await abortAbandonedReports(ctx.dbs.primary, new Date(), orgId), 0);
    });
  });

  it('refuses a request that cannot work before any artifact exists', async () => {
    const before = await artifactCount();
    const refused: [Partial<GenerateRequest>, RegExp][] = [
      [{ reportType: 'market_scan_v3' }, /unknown report type "market_scan_v3"/],
      [{ brandId: 999_999 }, /no brand 999999/],
      [{ orgId: fx.orgId + 1000 }, /no brand/],
      [{ brandId: fx.emptyBrandId, categoryId: fx.categories.c1 }, /is not a category of brand/],
      [{ reportType: 'weekly_ai_visibility_update', range: '30d' }, /always covers range 7d/],
      [{ range: '13d' }, /range: "13d" is not a valid choice/],
      [{ range: 'custom', start: '2026-03-10', end: '2026-03-01' }, /start must be on or before end/],
      [{ range: 'custom', start: '2026-03-01', end: '2026-04-01' }, /end: Cannot be in the future/],
    ];
    for (const [extra, message] of refused) {
      await assert.rejects(
        generate(extra),
        (error) => error instanceof InvalidReportRequest && message.test(error.message),
      );
    }
    assert.equal(await artifactCount(), before);
  });

  it('covers a custom window when asked', async () => {
    const result = await generate({
      range: 'custom',
      start: '2026-03-01',
      end: '2026-03-15',
      format: 'html',
    });
    assert.equal(result.status, 'complete');
    const html = (await get(`/api/reports/${result.artifactId}/download/`)).body;
    assert.match(html, /1 Mar 2026 – 15 Mar 2026/);
  });

  it('downloads with the right type, length and a file name with brand, type and date', async () => {
    const pdf = await generate({ reportType: 'lead_gen_exec_v1', format: 'pdf' });
    const download = await get(`/api/reports/${pdf.artifactId}/download/`);
    assert.equal(download.statusCode, 200);
    assert.equal(download.headers['content-type'], 'application/pdf');
    assert.equal(download.headers['content-length'], String(download.rawPayload.byteLength));
    assert.equal(
      download.headers['content-disposition'],
      'attachment; filename="brightdesk-lead_gen_exec_v1-2026-03-16.pdf"',
    );
    assert.equal(download.rawPayload.subarray(0, 5).toString('latin1'), '%PDF-');
    const asPdf = await get(`/api/reports/${pdf.artifactId}/download.pdf`);
    assert.deepEqual(asPdf.rawPayload, download.rawPayload);

    const html = await generate({ reportType: 'lead_gen_exec_v1', format: 'html' });
    const page = await get(`/api/reports/${html.artifactId}/download/`);
    assert.equal(page.headers['content-type'], 'text/html; charset=utf-8');
    assert.equal(page.headers['content-length'], String(page.rawPayload.byteLength));
    assert.equal(
      page.headers['content-disposition'],
      'attachment; filename="brightdesk-lead_gen_exec_v1-2026-03-16.html"',
    );
    assert.equal((await get(`/api/reports/${html.artifactId}/download.pdf`)).statusCode, 404);
  });

  it('streams a large file in chunks instead of reading it whole', async () => {
    const { artifactId } = await generate({ format: 'html' });
    // 2.5 chunks of distinct bytes, so a chunk read twice or out of order would show.
    const size = STREAM_CHUNK_BYTES * 2 + STREAM_CHUNK_BYTES / 2;
    const big = Buffer.alloc(size);
    for (let i = 0; i < size; i++) big[i] = (i * 7 + (i >> 12)) & 0xff;
    const store = databaseReportFileStore(ctx.dbs.primary);
    await store.put(fx.orgId, artifactId, { kind: 'pdf', contentType: 'application/pdf', bytes: big });

    const file = await store.get(fx.orgId, artifactId, 'pdf');
    assert.ok(file?.body instanceof Readable, 'a large file comes back as a stream');
    assert.equal(file.byteLength, size);
    const small = await store.get(fx.orgId, artifactId, 'html');
    assert.ok(small?.body instanceof Uint8Array, 'a small one as bytes');
    file.body.destroy();

    const download = await get(`/api/reports/${artifactId}/download/`);
    assert.equal(download.statusCode, 200);
    assert.equal(download.headers['content-length'], String(size));
    assert.ok(download.rawPayload.equals(big), 'every byte, in order');
  });

  describe('sightline reports generate', () => {
    const cliWith = (env: Record<string, string>, ...args: string[]) =>
      spawnSync(process.execPath, [MAIN, 'reports', 'generate', ...args], {
        encoding: 'utf8',
        env: {
          PATH: process.env.PATH ?? '',
          DATABASE_URL: ctx.config.databaseUrl,
          LOG_LEVEL: 'silent',
          ...env,
        },
      });
    const cli = (...args: string[]) => cliWith({}, ...args);

    it('prints the new artifact id as the last line and exits 0', async () => {
      const run = cli(
        '--brand',
        String(fx.brandId),
        '--type',
        'weekly_ai_visibility_update',
        '--user',
        fx.userEmail,
      );
      assert.equal(run.status, 0, run.stderr);
      const id = Number(run.stdout.trim().split('\n').at(-1));
      const body = (await get(`/api/reports/${id}/`)).json();
      assert.equal(body.status, 'complete');
      assert.equal(body.reportType, 'weekly_ai_visibility_update');
      assert.equal(body.generatedByEmail, fx.userEmail);
      assert.deepEqual(await fileKinds(id), ['html', 'pdf']);
    });

    it('aborts its artifact on SIGINT instead of leaving it running, and exits 1 saying so', async () => {
      // Holding the write lock keeps the child at its first write (its artifact's insert: with
      // nothing abandoned, the sweep before it only reads), with its signal handlers in place; the
      // signal is sent there, and its next checkpoint, after the artifact is running, aborts it.
      const before = await artifactCount();
      const result = await ctx.dbs.primary.transaction().execute(async (trx) => {
        const postgres = ctx.config.databaseUrl.startsWith('postgres');
        // SQLite's lock is the transaction's own (`begin immediate`).
        if (postgres) await sql`lock table report_artifacts in share row exclusive mode`.execute(trx);
        const child = spawn(
          process.execPath,
          [MAIN, 'reports', 'generate', '--brand', String(fx.brandId), '--type', 'executive_summary_v2'],
          {
            env: { PATH: process.env.PATH ?? '', DATABASE_URL: ctx.config.databaseUrl, LOG_LEVEL: 'silent' },
            stdio: ['ignore', 'pipe', 'pipe'],
          },
        );
        let stdout = '';
        let stderr = '';
        child.stdout.on('data', (chunk) => (stdout += chunk));
        child.stderr.on('data', (chunk) => (stderr += chunk));
        const exited = once(child, 'exit');
        const waiting = async () => {
          if (postgres) {
            // Read on another connection: inside the transaction the view would be its first snapshot.
            const { rows } = await sql`select 1 from pg_stat_activity
              where wait_event_type = 'Lock' and query like 'insert into "report_artifacts"%'`.execute(
              ctx.dbs.primary,
            );
            return rows.length > 0;
          }
          // SQLite's busy handler sleeps between its tries for the lock, the database open by then.
          // Node sleeps too, once and early on some starts (1 ms, after reading the CPU's clock
          // rate), before the command's signal handlers exist: that sleep must not be taken for it.
          const open = readdirSync(`/proc/${child.pid}/fd`).some((fd) => {
            try {
              return readlinkSync(`/proc/${child.pid}/fd/${fd}`) === sqlitePath(ctx.config.databaseUrl);
            } catch {
              return false;
            }
          });
          return open && readFileSync(`/proc/${child.pid}/wchan`, 'utf8').includes('nanosleep');
        };
        const deadline = Date.now() + 60_000;
        while (!(await waiting())) {
          assert.equal(child.exitCode, null, `it ended before it waited for the lock: ${stderr}`);
          assert.ok(Date.now() < deadline, 'it never waited for the lock');
          await sleep(5);
        }
        child.kill('SIGINT');
        return { exited, out: () => ({ stdout, stderr }) };
      });
      const [code] = await result.exited;
      const { stdout, stderr } = result.out();
      const id = Number(stdout.trim());
      assert.equal(code, 1, stderr);
      assert.equal(stderr, `sightline: report ${id} aborted: Interrupted (SIGINT) before it was finished.\n`);
      assert.equal(await artifactCount(), before + 1);
      const body = (await get(`/api/reports/${id}/`)).json();
      assert.deepEqual(
        [body.status, body.abortedReason],
        ['aborted', 'Interrupted (SIGINT) before it was finished.'],
      );
      assert.deepEqual(await fileKinds(id), []);
    });

    it('exits 2 on a usage error, without creating an artifact', async () => {
      const before = await artifactCount();
      const usage: string[][] = [
        ['--brand', String(fx.brandId), '--type', 'nope'],
        ['--type', 'in_depth_report'],
        ['--brand', '999999', '--type', 'in_depth_report'],
        ['--brand', String(fx.brandId), '--type', 'in_depth_report', '--range', 'custom'],
        ['--brand', String(fx.brandId), '--type', 'in_depth_report', '--user', 'mallory@elsewhere.example'],
      ];
      for (const args of usage) {
        const run = cli(...args);
        assert.equal(run.status, 2, `${args.join(' ')}: ${run.stderr}`);
        assert.ok(run.stderr.length > 0, 'says why');
      }
      assert.equal(await artifactCount(), before);
    });

    it('exits 1 on a failed report, telling the operator what the API does not tell the customer', async () => {
      // A store refusing the files with words that name its own host and path.
      const words = 'disk quota exceeded on store-7.internal:/srv/reports';
      const db = ctx.dbs.primary;
      if (ctx.dbs.dialect === 'postgres') {
        await sql`create function refuse_report_file() returns trigger language plpgsql
          as ${sql.raw(`$$ begin raise exception '${words}'; end $$`)}`.execute(db);
        await sql`create trigger refuse_report_file before insert on report_files
          for each row execute function refuse_report_file()`.execute(db);
      } else {
        await sql`create trigger refuse_report_file before insert on report_files
          begin select raise(abort, ${sql.raw(`'${words}'`)}); end`.execute(db);
      }
      try {
        const run = cli('--brand', String(fx.brandId), '--type', 'executive_summary_v2');
        assert.equal(run.status, 1, run.stderr);
        const id = Number(run.stdout.trim().split('\n').at(-1));
        assert.equal(
          run.stderr,
          `sightline: report ${id} failed while storing the report's files: ${words}\n`,
        );
        const body = (await get(`/api/reports/${id}/`)).json();
        assert.deepEqual(
          [body.status, body.errorMessage, body.downloadUrl],
          ['failed', "Report generation failed while storing the report's files.", ''],
        );
        assert.deepEqual(await fileKinds(id), []);
      } finally {
        await sql`drop trigger refuse_report_file${sql.raw(ctx.dbs.dialect === 'postgres' ? ' on report_files' : '')}`.execute(
          db,
        );
        if (ctx.dbs.dialect === 'postgres') await sql`drop function refuse_report_file()`.execute(db);
      }
    });

    it('warns, on a complete report, of the characters it had no font for', async () => {
      const brand = await insertBrand(ctx.dbs.primary, fx.orgId, { name: '株式会社 Ａcme' });
      const run = cli('--brand', String(brand), '--type', 'executive_summary_v2');
      assert.equal(run.status, 0, run.stderr);
      assert.equal(
        run.stderr,
        'sightline: warning: the PDF has no glyph for 5 character(s) (株 式 会 社 Ａ), drawn as empty boxes: name fonts that have them in REPORT_FONTS (docs/reports.md)\n',
      );
      assert.match(run.stdout, /^Generated executive_summary_v2 report \(pdf\) for brand \d+\.\n\d+\n$/);
    });

    it('exits 2 with one line on a REPORT_FONTS file that is not a font, without creating an artifact', async () => {
      const before = await artifactCount();
      const run = cliWith({ REPORT_FONTS: MAIN }, '--brand', String(fx.brandId), '--type', 'in_depth_report');
      assert.equal(run.status, 2, run.stderr);
      assert.equal(
        run.stderr,
        `sightline: REPORT_FONTS: ${MAIN} is not a font file (TrueType, OpenType, WOFF or a collection)\n`,
      );
      assert.equal(await artifactCount(), before);
    });
  });
});
