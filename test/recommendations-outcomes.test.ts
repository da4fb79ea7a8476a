import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Db } from '../src/db/connect.ts';
import { generateRecommendations } from '../src/recommendations/generate.ts';
import { changeStatus } from '../src/recommendations/lifecycle.ts';
import { measureOutcomes } from '../src/recommendations/outcomes.ts';
import { appWithClock } from './support/analytics.ts';
import { runCli, runCliWith } from './support/cli.ts';
import { bearer, createTestContext, type TestContext } from './support/context.ts';
import {
  type Answer,
  BrandFixture,
  insertOrg,
  insertRecommendationOutcome,
  mintKey,
  times,
} from './support/fixtures.ts';

// Outcomes measured across a window with a known before and after, reproduced with two calls of
// the analytics endpoint; and the lifecycle as an operator runs it from the command line.

let ctx: TestContext;
let db: Db;
let acme: number;
let key: string;

before(async () => {
  ctx = await createTestContext();
  db = ctx.dbs.primary;
  acme = await insertOrg(db, 'acme', { plan: 'pro' });
  key = await mintKey(db, acme);
});
after(() => ctx.close());

/**
 * Brand "Solo" with one prompt, so the brand's mention rate is the prompt's (and an analyst reads
 * it from the brand analytics), and Rival named in every answer. Each run asks the prompt four
 * times with weight 10: 40 samples.
 */
async function solo(org = acme) {
  const b = await BrandFixture.insert(db, org, { name: 'Solo' });
  const category = await b.category();
  const prompt = await b.prompt(category, { text: 'Best tool?' });
  const rival = await b.competitor(category, 'Rival');
  const answers = (mentioned: number): Answer[] => [
    ...times(mentioned, {
      prompt,
      weight: 10,
      mentioned: true,
      rank: 2,
      mentions: [{ competitor: rival, rank: 1 }],
    }),
    ...times(4 - mentioned, { prompt, weight: 10, mentions: [{ competitor: rival, rank: 1 }] }),
  ];
  return { b, category, prompt, answers };
}

describe('outcome measurement', () => {
  // Timeline (UTC): a run on 20 Feb with Solo in 0 of 40 samples; generation and implementation
  // on 1 Mar; a run on 15 Mar with Solo in 30 of 40. measurementWindowDays 30, so the baseline
  // is 30 Jan – 28 Feb and the current window 2 Mar – 31 Mar; due from 1 Apr.
  const IMPLEMENTED = new Date('2026-03-01T12:00:00.000Z');

  it('records the baseline on implement and the current value once the window has passed', async () => {
    const s = await solo();
    await s.b.run({ category: s.category, finishedAt: '2026-02-20T10:00:00.000Z', answers: s.answers(0) });
    const [rec] = (await generateRecommendations(db, { orgId: acme, brandId: s.b.brandId }, IMPLEMENTED))
      .created;
    assert.equal(rec?.rec_type, 'content_gap');
    const id = rec?.id as string;
    const change = await changeStatus(db, acme, id, 'implement', { at: IMPLEMENTED, now: IMPLEMENTED });
    assert.deepEqual(change.baseline, {
      metricName: 'prompt_mention_rate',
      metricSubject: `prompt:${s.prompt}`,
      value: 0,
      sampleSize: 40,
    });
    await s.b.run({ category: s.category, finishedAt: '2026-03-15T10:00:00.000Z', answers: s.answers(3) });

    // On the window's last day it is not due yet.
    assert.deepEqual(
      await measureOutcomes(db, { orgId: acme, at: new Date('2026-03-31T23:00:00.000Z') }),
      [],
    );
    const measuredAt = new Date('2026-04-01T00:30:00.000Z');
    const measured = await measureOutcomes(db, { orgId: acme, at: measuredAt });
    // 30 of 40 = 0.75 after, 0 of 40 before; both sides ≥ 30 samples and nothing else touched
    // the prompt: high.
    assert.deepEqual(
      measured.map((m) => ({ ...m, outcomeId: '' })),
      [
        {
          outcomeId: '',
          recommendationId: id,
          metricName: 'prompt_mention_rate',
          baselineValue: 0,
          currentValue: 0.75,
          baselineSampleSize: 40,
          currentSampleSize: 40,
          attributionConfidence: 'high',
        },
      ],
    );
    // Measured once: a second pass finds nothing due.
    assert.deepEqual(await measureOutcomes(db, { orgId: acme, at: measuredAt }), []);

    // The API serves the outcome, and two analytics calls reproduce its two values.
    const { app } = await appWithClock(ctx, measuredAt.toISOString());
    try {
      const get = async (url: string) => (await app.inject({ url, headers: bearer(key) })).json();
      const list = await get(`/api/brands/${s.b.brandId}/recommendations/`);
      const [outcome] = list.results[0].outcomes;
      assert.deepEqual(
        { ...outcome, id: '' },
        {
          id: '',
          metricName: 'prompt_mention_rate',
          metricSubject: `prompt:${s.prompt}`,
          baselineValue: 0,
          currentValue: 0.75,
          baselineAt: IMPLEMENTED.toISOString(),
          measuredAt: measuredAt.toISOString(),
          measurementWindowDays: 30,
          attributionConfidence: 'high',
          isMeasured: true,
          notes:
            'Baseline over range=custom&start=2026-01-30&end=2026-02-28 (40 samples), current over ' +
            'range=custom&start=2026-03-02&end=2026-03-31 (40 samples); no other recommendation on this ' +
            'subject was started or implemented in between.',
        },
      );
      const analytics = (start: string, end: string) =>
        get(`/api/brands/${s.b.brandId}/analytics/?range=custom&start=${start}&end=${end}`);
      const baseline = await analytics('2026-01-30', '2026-02-28');
      const current = await analytics('2026-03-02', '2026-03-31');
      assert.deepEqual([baseline.metrics.mentionRate.value, baseline.metrics.sampleCount], [0, 40]);
      assert.deepEqual([current.metrics.mentionRate.value, current.metrics.sampleCount], [0.75, 40]);
    } finally {
      await app.close();
    }
  });

  it('lowers the attribution when another recommendation on the same prompt overlapped, and with few samples', async () => {
    const s = await solo();
    await s.b.run({ category: s.category, finishedAt: '2026-02-20T10:00:00.000Z', answers: s.answers(0) });
    const id = (await generateRecommendations(db, { orgId: acme, brandId: s.b.brandId }, IMPLEMENTED))
      .created[0]?.id as string;
    // A hand-made recommendation on the same prompt, started on 10 Mar: inside 30 Jan – 31 Mar.
    await s.b.recommendation('00000000-0000-4000-8000-000000000001', {
      rec_type: 'content_gap',
      subject_kind: 'prompt',
      subject: String(s.prompt),
      status: 'in_progress',
      started_at: '2026-03-10T09:00:00.000Z',
    });
    await changeStatus(db, acme, id, 'implement', { at: IMPLEMENTED, now: IMPLEMENTED });
    // Only one answer of weight 5 after: 5 of 5 mentioned, 5 samples (< 10) → low, and the
    // overlap could only lower it further.
    await s.b.run({
      category: s.category,
      finishedAt: '2026-03-15T10:00:00.000Z',
      answers: [{ prompt: s.prompt, weight: 5, mentioned: true, rank: 1 }],
    });
    const [low] = await measureOutcomes(db, { orgId: acme, at: new Date('2026-04-02T00:00:00.000Z') });
    assert.deepEqual([low?.currentValue, low?.currentSampleSize, low?.attributionConfidence], [1, 5, 'low']);
    const notes = await db
      .selectFrom('recommendation_outcomes')
      .select('notes')
      .where('recommendation_id', '=', id)
      .executeTakeFirstOrThrow();
    assert.match(
      notes.notes,
      /also started or implemented on this subject in between: 00000000-0000-4000-8000-000000000001\.$/,
    );
  });

  it('one step lower with an overlap: 40 and 40 samples give medium instead of high', async () => {
    const s = await solo();
    await s.b.run({ category: s.category, finishedAt: '2026-02-20T10:00:00.000Z', answers: s.answers(0) });
    const id = (await generateRecommendations(db, { orgId: acme, brandId: s.b.brandId }, IMPLEMENTED))
      .created[0]?.id as string;
    await s.b.recommendation('00000000-0000-4000-8000-000000000002', {
      subject_kind: 'prompt',
      subject: String(s.prompt),
      status: 'implemented',
      implemented_at: '2026-02-10T09:00:00.000Z',
    });
    await changeStatus(db, acme, id, 'implement', { at: IMPLEMENTED, now: IMPLEMENTED });
    await s.b.run({ category: s.category, finishedAt: '2026-03-15T10:00:00.000Z', answers: s.answers(3) });
    const [m] = await measureOutcomes(db, { orgId: acme, at: new Date('2026-04-02T00:00:00.000Z') });
    assert.equal(m?.attributionConfidence, 'medium');
  });

  it('says in its notes that a window without samples has no value (its recorded 0 stands for none)', async () => {
    const s = await solo();
    await s.b.run({ category: s.category, finishedAt: '2026-02-20T10:00:00.000Z', answers: s.answers(0) });
    const id = (await generateRecommendations(db, { orgId: acme, brandId: s.b.brandId }, IMPLEMENTED))
      .created[0]?.id as string;
    await changeStatus(db, acme, id, 'implement', { at: IMPLEMENTED, now: IMPLEMENTED });
    // No run after the implementation: the current window (2 – 31 Mar) holds no sample.
    const [m] = await measureOutcomes(db, { orgId: acme, at: new Date('2026-04-02T00:00:00.000Z') });
    assert.deepEqual([m?.currentValue, m?.currentSampleSize, m?.attributionConfidence], [0, 0, 'low']);
    const { notes } = await db
      .selectFrom('recommendation_outcomes')
      .select('notes')
      .where('recommendation_id', '=', id)
      .executeTakeFirstOrThrow();
    assert.equal(
      notes,
      'Baseline over range=custom&start=2026-01-30&end=2026-02-28 (40 samples), current over ' +
        'range=custom&start=2026-03-02&end=2026-03-31 (0 samples: no value, the 0 recorded stands for none); ' +
        'no other recommendation on this subject was started or implemented in between.',
    );
  });

  it('leaves hand-written recommendations alone: no baseline on implement, their outcomes not measured', async () => {
    const s = await solo();
    await s.b.run({ category: s.category, finishedAt: '2026-02-20T10:00:00.000Z', answers: s.answers(0) });
    const hand = '00000000-0000-4000-8000-000000000003';
    await s.b.recommendation(hand, { rec_type: 'content_gap' });
    const change = await changeStatus(db, acme, hand, 'implement', { at: IMPLEMENTED, now: IMPLEMENTED });
    assert.deepEqual(change, { id: hand, status: 'implemented' });
    await insertRecommendationOutcome(db, acme, {
      id: '00000000-0000-4000-8000-000000000004',
      recommendation_id: hand,
      metric_name: 'mention_rate',
      metric_subject: '',
      baseline_value: 0.1,
      current_value: 0.1,
      baseline_at: '2026-01-01T00:00:00.000Z',
      measured_at: '2026-01-01T00:00:00.000Z',
      measurement_window_days: 30,
      attribution_confidence: '',
      is_measured: 0,
      notes: '',
    });
    assert.deepEqual(
      await measureOutcomes(db, { orgId: acme, at: new Date('2026-06-01T00:00:00.000Z') }),
      [],
    );
  });
});

const cli = (...args: string[]) => runCli(ctx.config.databaseUrl, ...args);

describe('sightline recommendations (CLI)', () => {
  let brandId: number;
  let ids: string[];
  const status = async (id: string) =>
    db.selectFrom('recommendations').selectAll().where('id', '=', id).executeTakeFirstOrThrow();

  before(async () => {
    await insertOrg(db, 'globex');
    const s = await solo();
    brandId = s.b.brandId;
    // Five days ago: inside the last 30 days whenever the test runs.
    const finishedAt = new Date(Date.now() - 5 * 86_400_000).toISOString();
    await s.b.run({ category: s.category, finishedAt, answers: s.answers(0) });
  });

  it('generate prints the ids of new recommendations, one per line, drafting their artifacts; again, none', async () => {
    const first = await runCliWith(
      ctx.config.databaseUrl,
      { SIGHTLINE_DRAFT_ENGINE: 'simulated' },
      ...['recommendations', 'generate', '--org', 'acme', '--brand', String(brandId)],
    );
    assert.equal(first.status, 0, first.stderr);
    ids = first.stdout.trim().split('\n');
    const stored = await db
      .selectFrom('recommendations')
      .select('id')
      .where('brand_id', '=', brandId)
      .execute();
    assert.deepEqual(
      ids,
      stored.map((r) => r.id),
    );
    // The new content gap's brief, by the drafting engine the environment names.
    const drafted = await db
      .selectFrom('recommendation_artifacts')
      .select([
        'recommendation_id',
        'artifact_type',
        'title',
        'generated_by_model',
        'generation_prompt_version',
      ])
      .where('recommendation_id', 'in', ids)
      .execute();
    assert.deepEqual(
      drafted.map((row) => ({ ...row })),
      [
        {
          recommendation_id: ids[0],
          artifact_type: 'content_brief',
          title: 'Content brief: Best tool?',
          generated_by_model: 'simulated',
          generation_prompt_version: 'content-brief@1',
        },
      ],
    );
    const again = await cli('recommendations', 'generate', '--org', 'acme', '--brand', String(brandId));
    assert.deepEqual([again.status, again.stdout], [0, '']);
  });

  it('list shows them', async () => {
    const list = await cli('recommendations', 'list', '--org', 'acme', '--brand', String(brandId));
    assert.equal(list.status, 0, list.stderr);
    assert.match(list.stdout, new RegExp(`^${ids[0]}\\s+content_gap\\s+open\\s+`, 'm'));
  });

  for (const [label, args, exit, message] of [
    ['an id that is not a UUID', ['start', 'abc', '--org', 'acme'], 2, /expected a recommendation id/],
    ['a moment in the future', ['start', 'ID', '--org', 'acme', '--at', '2999-01-01T00:00:00Z'], 2, /future/],
    ['a date that does not exist', ['start', 'ID', '--org', 'acme', '--at', '2026-02-30'], 2, /ISO-8601/],
    ['dismiss without a reason', ['dismiss', 'ID', '--org', 'acme'], 2, /--reason/],
    [
      'another organization’s id',
      ['start', 'ID', '--org', 'globex'],
      1,
      /does not exist in this organization/,
    ],
    [
      'an unknown organization',
      ['start', 'ID', '--org', 'nobody'],
      1,
      /organization "nobody" does not exist/,
    ],
  ] as const) {
    it(`refuses ${label} and changes nothing`, async () => {
      const id = ids[0] as string;
      const before = await status(id);
      const run = await cli('recommendations', ...args.map((a) => (a === 'ID' ? id : a)));
      assert.equal(run.status, exit, run.stderr);
      assert.match(run.stderr, message);
      assert.equal(run.stderr.trim().split('\n').length, 1, run.stderr);
      assert.deepEqual(await status(id), before);
    });
  }

  it('start, then implement with a baseline; illegal transitions are one line, exit 1, nothing changed', async () => {
    const id = ids[0] as string;
    // Back-dated, but not before the recommendation was created (moments ago).
    const at = new Date(Date.parse(String((await status(id)).created_at)) + 1).toISOString();
    const started = await cli('recommendations', 'start', id, '--org', 'acme', '--at', at);
    assert.deepEqual([started.status, started.stdout], [0, `Recommendation ${id} is in_progress.\n`]);
    assert.equal((await status(id)).started_at, at);

    const twice = await cli('recommendations', 'start', id, '--org', 'acme');
    assert.deepEqual(
      [twice.status, twice.stderr],
      [1, `sightline: recommendation ${id} is in_progress; start needs it open\n`],
    );

    const implemented = await cli('recommendations', 'implement', id, '--org', 'acme');
    assert.equal(implemented.status, 0, implemented.stderr);
    // The run five days ago lies in the 30 days before today: 0 of 40 samples.
    assert.equal(
      implemented.stdout,
      `Recommendation ${id} is implemented; baseline prompt_mention_rate = 0.0000 over 40 samples.\n`,
    );
    const row = await status(id);
    assert.equal(row.status, 'implemented');
    assert.ok(row.implemented_at);
    const before = await status(id);
    for (const args of [
      ['implement', id, '--org', 'acme'],
      ['dismiss', id, '--org', 'acme', '--reason', 'not for us'],
    ]) {
      const refused = await cli('recommendations', ...args);
      assert.equal(refused.status, 1);
      assert.match(
        refused.stderr,
        /^sightline: recommendation .* is implemented; \w+ needs it open or in_progress\n$/,
      );
    }
    assert.deepEqual(await status(id), before);
    const outcomes = await db
      .selectFrom('recommendation_outcomes')
      .select(['is_measured', 'baseline_sample_size'])
      .where('recommendation_id', '=', id)
      .execute();
    assert.deepEqual(
      outcomes.map((o) => ({ ...o })),
      [{ is_measured: 0, baseline_sample_size: 40 }],
    );

    const measure = await cli('recommendations', 'measure', '--org', 'acme');
    assert.deepEqual([measure.status, measure.stdout], [0, 'No outcome is due.\n']);
  });

  it('refuses a back-dated change before the recommendation was created or started, changing nothing', async () => {
    const s = await solo();
    const id = '00000000-0000-4000-8000-000000000098';
    await s.b.recommendation(id); // created 2026-01-01T00:00:00.000Z (the fixtures' CREATED)
    const early = await cli('recommendations', 'start', id, '--org', 'acme', '--at', '2025-12-31T23:59:59Z');
    assert.equal(early.status, 1);
    assert.equal(
      early.stderr,
      `sightline: recommendation ${id} was created at 2026-01-01T00:00:00.000Z; start cannot be dated 2025-12-31T23:59:59.000Z, before that\n`,
    );
    assert.equal((await status(id)).status, 'open');
    const started = await cli('recommendations', 'start', id, '--org', 'acme', '--at', '2026-02-01');
    assert.equal(started.status, 0, started.stderr);
    const beforeStart = await cli('recommendations', 'implement', id, '--org', 'acme', '--at', '2026-01-15');
    assert.equal(beforeStart.status, 1);
    assert.match(
      beforeStart.stderr,
      /was started at 2026-02-01T00:00:00\.000Z; implement cannot be dated 2026-01-15/,
    );
    assert.equal((await status(id)).status, 'in_progress');
  });

  it('dismiss keeps the reason, one without control characters', async () => {
    const s = await solo();
    const id = '00000000-0000-4000-8000-000000000099';
    await s.b.recommendation(id);
    const dismiss = (reason: string) =>
      cli('recommendations', 'dismiss', id, '--org', 'acme', '--reason', reason);
    const escaped = await dismiss('not\u001b[2J ours');
    assert.equal(escaped.status, 2);
    assert.match(
      escaped.stderr,
      /expected a reason without control characters \(line breaks and tabs are fine\)/,
    );
    assert.equal((await status(id)).status, 'open');
    const dismissed = await dismiss('  not our market ');
    assert.equal(dismissed.status, 0, dismissed.stderr);
    const row = await status(id);
    assert.deepEqual(
      [row.status, row.dismissed_reason, row.dismissed_at !== null],
      ['dismissed', 'not our market', true],
    );
  });
});
