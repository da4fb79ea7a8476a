import assert from 'node:assert/strict';
import {
  appendFileSync,
  createReadStream,
  mkdtempSync,
  readFileSync,
  renameSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { after, before, describe, it } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { createBrand } from '../src/db/catalog/brands.ts';
import { createCategory } from '../src/db/catalog/categories.ts';
import { addCompetitor } from '../src/db/catalog/competitors.ts';
import { createPrompt, importPrompts } from '../src/db/catalog/prompts.ts';
import type { Db } from '../src/db/connect.ts';
import { AnswerLineSchema } from '../src/domain/answer-line.ts';
import { parsePromptCsv } from '../src/domain/prompt-csv.ts';
import { withAnswersFile } from '../src/ingest/answers-file.ts';
import { type ImportProgress, ImportRaced, ImportRejected, importAnswers } from '../src/ingest/import.ts';
import { setRunPublished } from '../src/ingest/runs.ts';
import { createTestContext, type TestContext } from './support/context.ts';
import { countRows, IMPORT_TABLES, insertOrg, seedImportCatalog } from './support/fixtures.ts';

// importAnswers against a real database: all or nothing with line-numbered errors, what it
// derives and stores, idempotence, runs in flight and legacy runs, publishing.

const NOW = new Date('2026-03-02T00:00:00.000Z');
const EMPTY = Object.fromEntries(IMPORT_TABLES.map((table) => [table, 0]));
const counts = (db: Db) => countRows(db, IMPORT_TABLES);

const line = (fields: Record<string, unknown>) =>
  JSON.stringify({ organization: 'acme', run: 'crm/2026-03-01', model: 'chatgpt', ...fields });

// A run of the CRM category: four captures of two prompts.
const RUN_LINES = [
  line({
    prompt: 'best-crm',
    capturedAt: '2026-03-01T09:00:00Z',
    answerText:
      'Top CRMs:\n\n1. **Globex** – the enterprise pick.\n2. **Acmeflow** – fast and intuitive.\n3. **Hooli CRM** – new.',
    citations: ['https://www.g2.com/categories/crm', 'https://acmeflow.com/pricing'],
  }),
  line({
    prompt: 'best-crm',
    model: 'perplexity',
    sampleCount: 3,
    capturedAt: '2026-03-01T09:05:00Z',
    answerText: 'Initech is the most popular choice for small teams.',
  }),
  line({
    prompt: 'cheap-crm',
    sampleCount: 2,
    capturedAt: '2026-03-01T09:10:00Z',
    answerText:
      'Acmeflow is affordable and reliable, but Globex is pricier. See https://www.capterra.com/p/1/acmeflow/',
  }),
  line({ prompt: 'cheap-crm', model: 'gemini', outcome: 'error', capturedAt: '2026-03-01T09:15:00Z' }),
];

describe('answer import', () => {
  let ctx: TestContext;
  let db: Db;
  let orgId: number;
  let brandId: number;
  let crm: number;
  let email: number;

  before(async () => {
    ctx = await createTestContext();
    db = ctx.dbs.primary;
    ({ orgId, brandId, crm, email } = await seedImportCatalog(db));
  });
  after(() => ctx.close());

  /** The problems of a file the import refuses, each "line: message"; it must change nothing. */
  const refused = async (lines: string[]): Promise<string[]> => {
    const before = await counts(db);
    const error = await importAnswers(db, lines, { now: NOW }).then(
      () => assert.fail('the import should have been rejected'),
      (e: unknown) => e,
    );
    assert.ok(error instanceof ImportRejected);
    assert.deepEqual(await counts(db), before);
    return error.errors.map((e) => `${e.line}: ${e.message}`);
  };

  it('rejects the whole file when any line is bad, naming each bad line, and writes nothing', async () => {
    const lines = [
      // A byte-order mark before the first line is no problem of it.
      `\ufeff${RUN_LINES[0]}`,
      line({ prompt: 'no-such-prompt', capturedAt: '2026-03-01T09:00:00Z', answerText: 'x' }),
      '',
      '{"organization": "acme", oops',
      line({ prompt: 'best-crm', capturedAt: 'yesterday', answerText: 'x', colour: 'red' }),
      line({ prompt: 'email-tool', capturedAt: '2026-03-01T09:01:00Z', answerText: 'Acmeflow.' }),
    ] as string[];
    const error = await importAnswers(db, lines, { now: NOW }).then(
      () => assert.fail('the import should have been rejected'),
      (e: unknown) => e,
    );
    assert.ok(error instanceof ImportRejected);
    assert.deepEqual(
      error.errors.map((e) => e.line),
      // Line 3 is blank (skipped); line 5 has two problems; line 6 puts an Email prompt into the CRM run.
      [2, 4, 5, 5, 6],
    );
    assert.match(
      error.errors[0]?.message ?? '',
      /prompt "no-such-prompt" does not exist in organization acme/,
    );
    assert.match(error.errors[1]?.message ?? '', /not valid JSON/);
    assert.match(error.errors[2]?.message ?? '', /"capturedAt" must be an ISO 8601 date-time/);
    assert.match(error.errors[3]?.message ?? '', /unknown field "colour"/);
    assert.match(
      error.errors[4]?.message ?? '',
      new RegExp(`mixes categories: line 1 is in category ${crm}, this line in ${email}`),
    );
    assert.deepEqual(await counts(db), EMPTY);
  });

  it('refuses the NUL character in any text of a line, on both databases alike', async () => {
    const lines = [
      line({ prompt: 'best-crm', capturedAt: '2026-03-01T09:00:00Z', answerText: 'Acmeflow\u0000 leads.' }),
      line({
        prompt: 'cheap-crm',
        capturedAt: '2026-03-01T09:01:00Z',
        answerText: 'Globex.',
        modelLabel: 'Chat\u0000GPT',
        citations: ['https://example.com/a', 'https://example.com/\u0000b'],
      }),
    ];
    assert.deepEqual(await refused(lines), [
      '1: "answerText" must not contain the NUL character (\\u0000)',
      '2: "modelLabel" must not contain the NUL character (\\u0000)',
      '2: "citations" must not contain the NUL character (\\u0000)',
    ]);
  });

  it('refuses a lone surrogate in any text of a line, which no database stores as written', async () => {
    // JSON's escapes make them: a run key "\ud800" was stored as U+FFFD and its answers, naming
    // "\ud800", found no run (a NOT NULL failure from the database instead of a line's error).
    const lines = [
      '{"organization":"acme","prompt":"best-crm","run":"\\ud800","model":"chatgpt","capturedAt":"2026-03-01T09:00:00Z","answerText":"Acmeflow leads."}',
      '{"organization":"acme","prompt":"cheap-crm","run":"r1","model":"chatgpt","capturedAt":"2026-03-01T09:01:00Z","answerText":"Globex \\udc00 leads.","citations":["https://example.com/\\ud83d"]}',
      '{"organization":"acme","prompt":"cheap-crm","run":"r1","model":"gemini","capturedAt":"2026-03-01T09:02:00Z","answerText":"A pair is whole: \\ud83d\\ude00."}',
    ];
    assert.deepEqual(await refused(lines), [
      '1: "run" must be valid Unicode (it holds a lone surrogate, \\ud800–\\udfff)',
      '2: "answerText" must be valid Unicode (it holds a lone surrogate, \\ud800–\\udfff)',
      '2: "citations" must be valid Unicode (it holds a lone surrogate, \\ud800–\\udfff)',
    ]);
  });

  it('refuses ids past 2^53 − 1 by field name, on both databases alike', async () => {
    // 7.87e182 is a whole number to JSON and to JavaScript; PostgreSQL refused it as a bigint, an
    // error of the database's instead of the line's. 2^53 − 1 itself is an id, just not this one.
    const lines = [
      '{"organization":7.869039180973329e+182,"prompt":"best-crm","run":"r1","model":"chatgpt","capturedAt":"2026-03-01T09:00:00Z","answerText":"Acmeflow."}',
      '{"organization":"acme","prompt":100000000000000000000,"run":"r1","model":"chatgpt","capturedAt":"2026-03-01T09:01:00Z","answerText":"Acmeflow."}',
      '{"organization":9007199254740991,"prompt":"best-crm","run":"r1","model":"chatgpt","capturedAt":"2026-03-01T09:02:00Z","answerText":"Acmeflow."}',
    ];
    assert.deepEqual(await refused(lines), [
      '1: "organization" must be the organization slug (e.g. "acme") or its id (a whole number from 1 to 2^53 − 1)',
      '2: "prompt" must be a prompt id (a whole number from 1 to 2^53 − 1) or the prompt\'s external key (string)',
      '3: organization 9007199254740991 does not exist',
    ]);
  });

  it('refuses an answer captured before 1970, where the analytics count no days', async () => {
    // Year 0 is a date to JavaScript and none to PostgreSQL, whose error failed the import.
    const lines = ['0000-01-01T00:00:00Z', '1969-12-31T23:59:59Z', '1970-01-01T00:00:00Z'].map(
      (capturedAt, i) =>
        line({
          prompt: 'best-crm',
          model: ['chatgpt', 'gemini', 'claude'][i],
          capturedAt,
          answerText: 'Acmeflow.',
        }),
    );
    assert.deepEqual(await refused(lines), [
      '1: "capturedAt" 0000-01-01T00:00:00Z is before 1970-01-01T00:00:00Z',
      '2: "capturedAt" 1969-12-31T23:59:59Z is before 1970-01-01T00:00:00Z',
    ]);
  });

  it('refuses repeated answers and answers of another organization', async () => {
    const error = await importAnswers(
      db,
      [
        RUN_LINES[0],
        RUN_LINES[0],
        line({
          organization: 'globex',
          prompt: 'best-crm',
          capturedAt: '2026-03-01T09:00:00Z',
          answerText: 'x',
        }),
      ],
      { now: NOW, organization: 'acme' },
    ).catch((e: unknown) => e);
    assert.ok(error instanceof ImportRejected);
    assert.deepEqual(
      error.errors.map((e) => e.line),
      [2, 3],
    );
    assert.match(
      error.errors[0]?.message ?? '',
      /^repeats the answer of line 1 \(same run, prompt, model, surface and capturedAt\)/,
    );
    assert.equal(error.errors[1]?.message, 'the line is for organization globex, not acme');
  });

  it('imports a run: analyses every answer, stores what it derived, describes the run and scores it', async () => {
    const summary = await importAnswers(db, RUN_LINES, { now: NOW });
    assert.equal(summary.imported, 4);
    assert.equal(summary.alreadyPresent, 0);
    assert.equal(summary.candidates, 1);
    assert.equal(summary.runs.length, 1);
    const run = await db.selectFrom('runs').selectAll().executeTakeFirstOrThrow();
    assert.deepEqual(summary.runs[0], {
      id: run.id,
      orgId,
      brandId,
      externalId: 'crm/2026-03-01',
      status: 'completed',
      created: true,
      visible: false,
      published: false,
      answers: 4,
    });
    assert.equal(run.category_id, crm);
    assert.equal(run.status, 'completed');
    assert.equal(run.published_at, null);
    assert.equal(run.started_at, '2026-03-01T09:00:00.000Z');
    assert.equal(run.finished_at, '2026-03-01T09:15:00.000Z');
    assert.equal(run.completed_prompts, 2);
    assert.equal(run.total_prompts, 2);

    const responses = await db
      .selectFrom('responses')
      .select([
        'model',
        'outcome',
        'sample_count',
        'mentioned',
        'rank',
        'sentiment',
        'has_mention_data',
        'text_length',
      ])
      .orderBy('captured_at')
      .execute();
    assert.deepEqual(
      responses.map((r) => [
        r.model,
        r.outcome,
        r.sample_count,
        r.mentioned,
        r.rank,
        r.sentiment,
        r.has_mention_data,
      ]),
      [
        // Listed second after Globex; "fast" and "intuitive" are praise.
        ['chatgpt', 'ok', 1, 1, 2, 'positive'],
        // Only Initech (an alias of Initech Suite) is named.
        ['perplexity', 'ok', 3, 0, null, null],
        // Named first in prose; the clause before "but" praises it.
        ['chatgpt', 'ok', 2, 1, 1, 'positive'],
        ['gemini', 'error', 1, 0, null, null],
      ].map((r) => [...r, 1]),
    );
    const mentions = await db
      .selectFrom('response_mentions')
      .select(['name', 'is_brand', 'rank'])
      .orderBy('id')
      .execute();
    assert.deepEqual(
      mentions.map((m) => [m.name, m.is_brand, m.rank]),
      [
        ['Acmeflow', 1, 2],
        ['Globex', 0, 1],
        ['Initech Suite', 0, 1],
        ['Acmeflow', 1, 1],
        ['Globex', 0, 2],
      ],
    );
    const citations = await db
      .selectFrom('response_citations')
      .select(['domain', 'position'])
      .orderBy('id')
      .execute();
    assert.deepEqual(
      citations.map((c) => [c.domain, c.position]),
      [
        ['g2.com', 1],
        ['acmeflow.com', 2],
        ['capterra.com', 1],
      ],
    );
    const scores = await db
      .selectFrom('run_prompt_scores as s')
      .innerJoin('prompts as p', 'p.id', 's.prompt_id')
      .select(['p.external_key', 's.score'])
      .orderBy('p.external_key')
      .execute();
    assert.deepEqual(
      scores.map((s) => [s.external_key, s.score]),
      [
        // best-crm: weights 1 and 3; rank 2 is worth 1 − 0.15 = 0.85, not mentioned 0:
        // 100 · (1 · 0.85 + 3 · 0) / 4 = 21.25.
        ['best-crm', 21.25],
        // cheap-crm: one usable answer of weight 2 at rank 1 (worth 1); the error is not usable: 100.
        ['cheap-crm', 100],
      ],
    );
    const candidates = await db
      .selectFrom('competitor_candidates')
      .select(['name', 'canonical_key', 'answers'])
      .execute();
    assert.deepEqual(
      candidates.map((c) => [c.name, c.canonical_key, c.answers]),
      [['Hooli CRM', 'hooli-crm', 1]],
    );
  });

  it('adds nothing when the same file is imported again', async () => {
    const before = await counts(db);
    const summary = await importAnswers(db, RUN_LINES, { now: NOW });
    assert.equal(summary.imported, 0);
    assert.equal(summary.alreadyPresent, 4);
    assert.deepEqual(await counts(db), before);
    const candidate = await db
      .selectFrom('competitor_candidates')
      .select('answers')
      .executeTakeFirstOrThrow();
    assert.equal(candidate.answers, 1);
  });

  it('refuses an external key that already names another answer', async () => {
    const stored = await db
      .selectFrom('responses')
      .select('external_key')
      .orderBy('id')
      .executeTakeFirstOrThrow();
    const error = await importAnswers(
      db,
      [
        line({
          run: 'crm/2026-03-02',
          prompt: 'best-crm',
          externalKey: stored.external_key,
          capturedAt: '2026-03-01T10:00:00Z',
          answerText: 'x',
        }),
      ],
      { now: NOW },
    ).catch((e: unknown) => e);
    assert.ok(error instanceof ImportRejected);
    assert.match(
      error.errors[0]?.message ?? '',
      /is already used by an answer of run "crm\/2026-03-01", prompt \d+/,
    );
  });

  it('publishes with --publish; publish and unpublish switch it and say whether anything changed', async () => {
    const summary = await importAnswers(db, RUN_LINES, { now: NOW, publish: true });
    assert.equal(summary.runs[0]?.visible, true);
    const run = await db.selectFrom('runs').select(['id', 'published_at']).executeTakeFirstOrThrow();
    assert.equal(run.published_at, NOW.toISOString());
    const unpublished = await setRunPublished(db, orgId, run.id, null);
    assert.deepEqual([unpublished.changed, unpublished.publishedAt], [true, null]);
    const again = await setRunPublished(db, orgId, run.id, null);
    assert.equal(again.changed, false);
    const republished = await setRunPublished(db, orgId, run.id, '2026-03-02T01:00:00.000Z');
    assert.deepEqual([republished.changed, republished.publishedAt], [true, '2026-03-02T01:00:00.000Z']);
    await assert.rejects(
      setRunPublished(db, orgId + 1000, run.id, null),
      /does not exist in this organization/,
    );
  });

  it('keeps a run in flight open, then completes it from a later file', async () => {
    const live = (fields: Record<string, unknown>) =>
      line({ run: 'crm/live', runStatus: 'running', ...fields });
    await importAnswers(
      db,
      [live({ prompt: 'best-crm', capturedAt: '2026-03-01T12:00:00Z', answerText: 'Acmeflow.' })],
      {
        now: NOW,
        publish: true,
      },
    );
    const running = await db
      .selectFrom('runs')
      .selectAll()
      .where('external_id', '=', 'crm/live')
      .executeTakeFirstOrThrow();
    // One prompt answered of the category's two monitored ones (api-crm is not monitored); not published.
    assert.deepEqual(
      [
        running.status,
        running.finished_at,
        running.completed_prompts,
        running.total_prompts,
        running.published_at,
      ],
      ['running', null, 1, 2, null],
    );
    await importAnswers(
      db,
      [
        live({
          runStatus: 'completed',
          prompt: 'cheap-crm',
          capturedAt: '2026-03-01T12:30:00Z',
          answerText: 'Globex.',
        }),
      ],
      { now: NOW },
    );
    const done = await db
      .selectFrom('runs')
      .selectAll()
      .where('external_id', '=', 'crm/live')
      .executeTakeFirstOrThrow();
    assert.deepEqual(
      [done.status, done.started_at, done.finished_at, done.completed_prompts, done.total_prompts],
      ['completed', '2026-03-01T12:00:00.000Z', '2026-03-01T12:30:00.000Z', 2, 2],
    );
    const reopened = await importAnswers(
      db,
      [live({ prompt: 'best-crm', model: 'claude', capturedAt: '2026-03-01T12:40:00Z', answerText: 'x' })],
      { now: NOW },
    ).catch((e: unknown) => e);
    assert.ok(reopened instanceof ImportRejected);
    assert.match(
      reopened.errors[0]?.message ?? '',
      /already completed; its lines must say runStatus "completed"/,
    );
  });

  it('imports legacy runs as visible, keeping text-less answers as unreconstructable', async () => {
    const legacy = (fields: Record<string, unknown>) =>
      line({ run: 'crm/legacy', methodology: 'legacy', ...fields });
    await importAnswers(
      db,
      [
        legacy({ prompt: 'best-crm', capturedAt: '2025-12-01T09:00:00Z', answerText: 'Acmeflow is good.' }),
        legacy({ prompt: 'cheap-crm', capturedAt: '2025-12-01T09:01:00Z' }),
      ],
      { now: NOW },
    );
    const run = await db
      .selectFrom('runs')
      .selectAll()
      .where('external_id', '=', 'crm/legacy')
      .executeTakeFirstOrThrow();
    assert.deepEqual([run.is_legacy, run.methodology, run.published_at], [1, 'legacy', null]);
    const rows = await db
      .selectFrom('responses')
      .select(['methodology', 'has_mention_data', 'mentioned'])
      .where('run_id', '=', run.id)
      .orderBy('captured_at')
      .execute();
    assert.deepEqual(
      rows.map((r) => [r.methodology, r.has_mention_data, r.mentioned]),
      [
        ['legacy', 1, 1],
        ['legacy', 0, 0],
      ],
    );
  });

  it('reports its phases: the answers it writes, then the runs it refreshes, across organizations', async () => {
    const globex = await db
      .selectFrom('organizations')
      .select('id')
      .where('slug', '=', 'globex')
      .executeTakeFirstOrThrow();
    const brand = await createBrand(db, Number(globex.id), {
      name: 'Globex',
      website: 'https://globex.example',
    });
    const category = await createCategory(db, brand, { name: 'Sales', externalKey: 'sales' });
    await createPrompt(db, category, { text: 'Best sales tool?', externalKey: 'sales-tool' });
    // Two runs of acme's, then one of globex's: four answer lines.
    const lines = [
      line({
        run: 'crm/progress-1',
        prompt: 'best-crm',
        capturedAt: '2026-03-01T10:00:00Z',
        answerText: 'Globex.',
      }),
      line({
        run: 'crm/progress-1',
        prompt: 'cheap-crm',
        capturedAt: '2026-03-01T10:01:00Z',
        answerText: 'Acmeflow.',
      }),
      line({
        run: 'crm/progress-2',
        prompt: 'best-crm',
        capturedAt: '2026-03-01T11:00:00Z',
        answerText: 'Initech.',
      }),
      line({
        organization: 'globex',
        run: 'sales/progress',
        prompt: 'sales-tool',
        capturedAt: '2026-03-01T12:00:00Z',
        answerText: 'Globex.',
      }),
    ];
    const heard = async () => {
      const progress: ImportProgress[] = [];
      await importAnswers(db, lines, { now: NOW, onProgress: (p) => progress.push({ ...p }) });
      return progress;
    };
    // The writing starts, one batch of four answers; then acme's two runs (none done, then both),
    // then globex's one, counted on from acme's.
    assert.deepEqual(await heard(), [
      { phase: 'writing', done: 0, total: 4 },
      { phase: 'writing', done: 4, total: 4 },
      { phase: 'refreshing', done: 0, total: 3 },
      { phase: 'refreshing', done: 2, total: 3 },
      { phase: 'refreshing', done: 2, total: 3 },
      { phase: 'refreshing', done: 3, total: 3 },
    ]);
    // Again: nothing to write and no run changed, so nothing to refresh.
    assert.deepEqual(await heard(), [{ phase: 'writing', done: 0, total: 0 }]);
  });

  it('documents its line format as exactly this JSON Schema', () => {
    const documented = JSON.parse(readFileSync('docs/ingest.schema.json', 'utf8'));
    delete documented.$schema;
    assert.deepEqual(documented, JSON.parse(JSON.stringify(AnswerLineSchema)));
  });
});

describe('two imports of the same answers at once', () => {
  let ctx: TestContext;
  before(async () => {
    ctx = await createTestContext();
    const orgId = await insertOrg(ctx.dbs.primary, 'acme');
    const brand = await createBrand(ctx.dbs.primary, orgId, { name: 'Acmeflow', externalKey: 'acmeflow' });
    const crm = await createCategory(ctx.dbs.primary, brand, { name: 'CRM', externalKey: 'crm' });
    await createPrompt(ctx.dbs.primary, crm, { text: 'Best CRM for startups?', externalKey: 'best-crm' });
    await createPrompt(ctx.dbs.primary, crm, { text: 'Cheapest good CRM?', externalKey: 'cheap-crm' });
  });
  after(() => ctx.close());

  it('the one that loses says so in one sentence, writes nothing, and a rerun adds nothing', async () => {
    // The race needs both imports to check before either writes; on a busy machine the first may
    // commit before the second checks, which is a plain rerun. Each attempt imports a run of its
    // own, until one of them races; every attempt must store its answers exactly once.
    let raced = false;
    for (let attempt = 1; attempt <= 20 && !raced; attempt++) {
      const lines = RUN_LINES.map((l) => l.replace('"crm/2026-03-01"', `"crm/attempt-${attempt}"`));
      const before = await counts(ctx.dbs.primary);
      const outcomes = await Promise.allSettled([
        importAnswers(ctx.dbs.primary, lines, { now: NOW }),
        importAnswers(ctx.dbs.primary, lines, { now: NOW }),
      ]);
      const won = outcomes.flatMap((o) => (o.status === 'fulfilled' ? [o.value] : []));
      const lost = outcomes.flatMap((o) => (o.status === 'rejected' ? [o.reason] : []));
      if (lost.length > 0) {
        raced = true;
        assert.equal(won.length, 1, `one import wins: ${lost.map(String)}`);
        assert.equal(lost.length, 1);
        assert.ok(lost[0] instanceof ImportRaced, String(lost[0]));
        assert.equal(
          lost[0].message,
          'another import, a publish or monitoring wrote some of the same runs or answers first; nothing was imported. Run it again: it is idempotent',
        );
      } else {
        // One after the other: the second found every answer stored.
        assert.deepEqual(
          won.map((r) => r.imported).sort((a, b) => a - b),
          [0, lines.length],
        );
      }
      const counted = await counts(ctx.dbs.primary);
      assert.equal(
        (counted.responses ?? 0) - (before.responses ?? 0),
        lines.length,
        'the winner’s answers, once',
      );
      assert.equal((counted.runs ?? 0) - (before.runs ?? 0), 1);

      const rerun = await importAnswers(ctx.dbs.primary, lines, { now: NOW });
      assert.deepEqual([rerun.imported, rerun.alreadyPresent], [0, lines.length]);
    }
    assert.ok(raced, 'no attempt raced');
  });

  it('two imports of different answers into one existing run both succeed, one after the other', async () => {
    const db = ctx.dbs.primary;
    const inShared = (key: string) =>
      line({
        run: 'crm/shared',
        prompt: 'best-crm',
        runStatus: 'running',
        externalKey: key,
        capturedAt: '2026-03-01T10:00:00Z',
        answerText: 'Globex.',
      });
    await importAnswers(db, [inShared('first')], { now: NOW });
    // Each writes its answers (taking the run's key-share lock through their foreign key), then waits
    // until the other has too, before it describes the run.
    let arrived = 0;
    const bothWritten = Promise.withResolvers<void>();
    const source = (prefix: string) => {
      let reads = 0;
      return async function* () {
        reads++;
        for (let i = 0; i < 600; i++) yield inShared(`${prefix}-${i}`);
        if (reads === 2 && ++arrived === 2) bothWritten.resolve();
        // SQLite writes one transaction at a time: the second cannot arrive while the first waits.
        if (reads === 2) await Promise.race([bothWritten.promise, sleep(1_000)]);
      };
    };
    const outcomes = await Promise.allSettled([
      importAnswers(db, source('a'), { now: NOW }),
      importAnswers(db, source('b'), { now: NOW }),
    ]);
    assert.deepEqual(
      outcomes.map((o) => (o.status === 'fulfilled' ? o.value.imported : String(o.reason))),
      [600, 600],
    );
  });

  it('a run completed and published after the check is not reopened by the running answers checked before', async () => {
    const db = ctx.dbs.primary;
    const inRun = (prompt: string, minute: number, runStatus: string) =>
      line({
        run: 'crm/race',
        prompt,
        runStatus,
        capturedAt: `2026-03-01T10:${minute}:00Z`,
        answerText: 'Globex.',
      });
    await importAnswers(db, [inRun('best-crm', 10, 'running')], { now: NOW });
    // The run's line is checked with the first 500; the rest (another run's answers) keep the check
    // going while another import completes and publishes the run.
    const others = Array.from({ length: 600 }, (_, i) =>
      line({
        run: 'crm/other',
        prompt: 'cheap-crm',
        externalKey: `o-${i}`,
        capturedAt: '2026-03-01T11:00:00Z',
        answerText: 'Initech.',
      }),
    );
    let reads = 0;
    let completed = {};
    const racing = async function* () {
      reads++;
      yield inRun('cheap-crm', 20, 'running');
      yield* others;
      if (reads === 1) {
        await importAnswers(db, [inRun('best-crm', 30, 'completed')], { now: NOW, publish: true });
        completed = await counts(db);
      }
    };
    await assert.rejects(importAnswers(db, racing, { now: NOW }), ImportRaced);
    assert.deepEqual(await counts(db), completed, 'nothing written past the other import');
    const run = await db
      .selectFrom('runs')
      .select(['status', 'finished_at', 'published_at'])
      .where('external_id', '=', 'crm/race')
      .executeTakeFirstOrThrow();
    assert.equal(run.status, 'completed');
    assert.ok(run.finished_at !== null && run.published_at !== null, JSON.stringify(run));
    // Run again, it is checked against the completed run, as any import after it would be.
    await assert.rejects(importAnswers(db, racing, { now: NOW }), (error) => {
      assert.ok(error instanceof ImportRejected);
      assert.deepEqual(error.errors, [
        { line: 1, message: 'run "crm/race" is already completed; its lines must say runStatus "completed"' },
      ]);
      return true;
    });
  });
});

describe('documented example (docs/ingest.md)', () => {
  let ctx: TestContext;
  before(async () => {
    ctx = await createTestContext();
  });
  after(() => ctx.close());

  it('imports docs/examples/prompts.csv and docs/examples/answers.ndjson as the walkthrough does', async () => {
    const db = ctx.dbs.primary;
    const org = await insertOrg(ctx.dbs.primary, 'acme');
    const brand = await createBrand(db, org, {
      name: 'Linear',
      website: 'https://linear.app',
      aliases: ['Linear.app'],
    });
    const category = await createCategory(db, brand, { name: 'Project management', externalKey: 'pm-tools' });
    const prompts = parsePromptCsv(readFileSync('docs/examples/prompts.csv', 'utf8'));
    assert.deepEqual(prompts.errors, []);
    assert.equal((await importPrompts(db, org, prompts.rows, category)).created, 4);
    await addCompetitor(db, brand, category, { name: 'Jira', aliases: ['Atlassian Jira'] });
    await addCompetitor(db, brand, category, { name: 'Asana' });
    const read = () => createInterface({ input: createReadStream('docs/examples/answers.ndjson', 'utf8') });
    const summary = await importAnswers(db, read, { publish: true, now: new Date('2026-11-02T00:00:00Z') });
    assert.deepEqual(
      [summary.answers, summary.imported, summary.runs.length, summary.runs[0]?.visible],
      [7, 7, 1, true],
    );
  });
});

describe('an answers file that changes while it is imported', () => {
  let ctx: TestContext;
  let dir: string;
  before(async () => {
    ctx = await createTestContext();
    await seedImportCatalog(ctx.dbs.primary);
    dir = mkdtempSync(join(tmpdir(), 'sightline-answers-'));
  });
  after(async () => {
    rmSync(dir, { recursive: true, force: true });
    await ctx.close();
  });

  /** Imports `path`, doing `meanwhile` to the file once the check has read it (before the writing). */
  const importChanging = (path: string, meanwhile: () => void) =>
    withAnswersFile(path, (lines) => {
      let reads = 0;
      return importAnswers(
        ctx.dbs.primary,
        () => {
          reads += 1;
          if (reads === 2) meanwhile();
          return lines();
        },
        { now: NOW },
      );
    });

  it('imports the file as it was opened: lines appended after the check wait for the next import', async () => {
    const path = join(dir, 'grows.ndjson');
    writeFileSync(path, `${RUN_LINES[0]}\n${RUN_LINES[1]}\n`);
    const summary = await importChanging(path, () => appendFileSync(path, `${RUN_LINES[2]}\n`));
    assert.equal(summary.imported, 2);
    assert.equal((await counts(ctx.dbs.primary)).responses, 2);
    // The next import reads the whole file: the appended line, once.
    const next = await withAnswersFile(path, (lines) => importAnswers(ctx.dbs.primary, lines, { now: NOW }));
    assert.deepEqual([next.imported, next.alreadyPresent], [1, 2]);
  });

  it('imports the file it opened when another is moved into its place', async () => {
    const path = join(dir, 'replaced.ndjson');
    writeFileSync(path, `${RUN_LINES[3]}\n`);
    const other = join(dir, 'other.ndjson');
    writeFileSync(
      other,
      `${line({ prompt: 'best-crm', run: 'crm/other', capturedAt: '2026-03-01T10:00:00Z', answerText: 'x' })}\n`,
    );
    const responses = async () => (await counts(ctx.dbs.primary)).responses ?? 0;
    const first = await responses();
    const summary = await importChanging(path, () => renameSync(other, path));
    assert.equal(summary.imported, 1);
    assert.equal(await responses(), first + 1);
    const runs = await ctx.dbs.primary.selectFrom('runs').select('external_id').execute();
    assert.ok(!runs.some((r) => r.external_id === 'crm/other'), 'nothing of the file moved in');
  });

  it('writes nothing when the lines it checked are rewritten before they are written', async () => {
    const path = join(dir, 'rewritten.ndjson');
    const original = `${line({ prompt: 'cheap-crm', run: 'crm/rewritten', capturedAt: '2026-03-01T11:00:00Z', answerText: 'Acmeflow.' })}\n`;
    writeFileSync(path, original);
    const unchanged = await counts(ctx.dbs.primary);
    await assert.rejects(
      importChanging(path, () => writeFileSync(path, original.replace('Acmeflow.', 'Globex!!!'))),
      {
        name: 'AnswersFileChanged',
        message:
          'the file changed while it was imported; nothing was imported: import it again once it is complete',
      },
    );
    assert.deepEqual(await counts(ctx.dbs.primary), unchanged);
    // Read before the whole file is hashed: a line naming a run the check never met stops at once.
    await assert.rejects(
      importChanging(path, () => writeFileSync(path, original.replace('crm/rewritten', 'crm/rewrittem'))),
      { message: 'line 1 changed while importing; nothing was imported' },
    );
    assert.deepEqual(await counts(ctx.dbs.primary), unchanged);
  });
});
