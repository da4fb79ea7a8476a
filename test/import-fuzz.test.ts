import assert from 'node:assert/strict';
import { after, before, it } from 'node:test';
import fc from 'fast-check';
import type { Db } from '../src/db/connect.ts';
import { ImportRejected, importAnswers } from '../src/ingest/import.ts';
import { createTestContext, type TestContext } from './support/context.ts';
import { countRows, IMPORT_TABLES, seedImportCatalog } from './support/fixtures.ts';

// Property-based fuzzing of `importAnswers` (what `sightline runs import` runs): files of a few
// lines, each a valid answer with hostile values put in, fields dropped or added, or no JSON
// object at all, against a real database that keeps what earlier files imported. Whatever
// arrives, the import either succeeds, and importing the same file again adds nothing, or it is
// refused with ImportRejected, each problem on a line of the file (0: the file as a whole), and
// nothing changed. Any other error (a type error, a database constraint) is a bug.
//
//   IMPORT_FUZZ_RUNS  files to import (default 150: the CI-sized run in `npm test`)
//   IMPORT_FUZZ_SEED  fast-check seed (default fixed); `random` picks one and prints it
//   npm run fuzz:import   the long run: 5 000 files, random seed (both can be overridden)

const RUNS = Number(process.env.IMPORT_FUZZ_RUNS || 150);
const SEED =
  process.env.IMPORT_FUZZ_SEED === 'random'
    ? Math.floor(Math.random() * 2 ** 31)
    : Number(process.env.IMPORT_FUZZ_SEED || 20261128);

const NOW = new Date('2026-03-02T00:00:00.000Z');
const counts = (db: Db) => countRows(db, IMPORT_TABLES);

let ctx: TestContext;

before(async () => {
  ctx = await createTestContext();
  await seedImportCatalog(ctx.dbs.primary);
});

after(() => ctx?.close());

// ---- what is imported --------------------------------------------------------------------------

/** Values any field may meet: wrong types, edges of the rules, hostile and odd text. */
const HOSTILE_VALUES: readonly unknown[] = [
  null,
  '',
  ' ',
  0,
  -1,
  1.5,
  1e308,
  10_001,
  true,
  [],
  {},
  { $ne: 1 },
  '\u0000',
  '\ud800',
  'x'.repeat(3000),
  '1',
  '1e3',
  ' 1',
  'NaN',
  '2026-02-30T00:00:00Z',
  '2026-03-01T24:00:00Z',
  '2026-03-01T23:59:60Z',
  '2026-03-01T09:00:00',
  '2026-03-01',
  '+275760-09-13T00:00:00Z',
  '0000-01-01T00:00:00Z',
  '9999-12-31T23:59:59Z',
  '2026-03-01T09:00:00.123456789Z',
  '2026-03-01T09:00:00+14:00',
  'javascript:alert(1)',
  'http://',
  'https://[::1]/x',
  'https://localhost/x',
  'https://例え.jp/パス',
  'https://user:pass@example.com/?q=%ZZ',
  'HTTPS://EXAMPLE.COM',
  "'; drop table responses; --",
  '<script>alert(1)</script>',
  'ünïcødé 🚀',
  'acme',
  'globex',
  'legacy',
  'running',
  'error',
  9007199254740991,
  9007199254740992,
  7.869039180973329e182,
  '\udc00',
  'r1\ud83d',
  '1969-12-31T23:59:59Z',
];

const hostile: fc.Arbitrary<unknown> = fc.oneof(
  fc.constantFrom(...HOSTILE_VALUES),
  fc.string({ maxLength: 40 }),
  fc.string({ unit: 'grapheme', maxLength: 20 }),
  fc.integer(),
  fc.double(),
  fc.array(fc.oneof(fc.string({ maxLength: 30 }), fc.webUrl(), fc.integer()), { maxLength: 4 }),
);

const answerText = fc.constantFrom(
  'Top CRMs:\n\n1. **Globex** – the enterprise pick.\n2. **Acmeflow** – fast.\n3. **Hooli** – new.',
  'Acmeflow is affordable, but Globex Corp is pricier. See https://www.capterra.com/p/1/acmeflow/',
  '| Tool | Verdict |\n|---|---|\n| Acmeflow | great |\n| Globex | fine |',
  'No clear answer.',
  '1.\n2.\n3.',
  '**'.repeat(200),
  `${'- item\n'.repeat(300)}Acmeflow`,
);

/**
 * A valid answer of a CRM run captured at `minute`, its optional fields there or not. Its
 * externalKey names everything that identifies the answer, so that no other answer can hold it.
 */
const validFields = (minute: number) =>
  fc
    .record(
      {
        prompt: fc.constantFrom('best-crm', 'cheap-crm'),
        run: fc.constantFrom('r1', 'r2', 'r3'),
        model: fc.constantFrom('chatgpt', 'perplexity', 'gemini', 'some-new-engine'),
        surface: fc.constantFrom('api', 'ui_scrape', 'ai_overview'),
        answer: fc.oneof(
          { weight: 5, arbitrary: answerText.map((text) => ({ outcome: 'ok', answerText: text })) },
          { weight: 1, arbitrary: fc.constantFrom({ outcome: 'error' }, { outcome: 'no_result' }) },
        ),
        sampleCount: fc.option(fc.integer({ min: 1, max: 10_000 }), { nil: undefined }),
        citations: fc.option(
          fc.array(fc.webUrl({ withQueryParameters: true, withFragments: true }), { maxLength: 4 }),
          {
            nil: undefined,
          },
        ),
        answerHtml: fc.option(fc.constantFrom('<ol><li>Globex</li><li>Acmeflow</li></ol>', '<p>'), {
          nil: undefined,
        }),
        modelLabel: fc.option(fc.constantFrom('ChatGPT', 'GPT-5'), { nil: undefined }),
        named: fc.boolean(),
        keyed: fc.boolean(),
      },
      { noNullPrototype: true },
    )
    .map(({ prompt, run, model, surface, answer, named, keyed, citations, answerHtml, ...optional }) => {
      const capturedAt = `2026-03-01T09:${String(minute).padStart(2, '0')}:00Z`;
      const fields: Record<string, unknown> = {
        organization: 'acme',
        prompt,
        run,
        model,
        surface,
        capturedAt,
        ...answer,
      };
      for (const [name, value] of Object.entries(optional)) if (value !== undefined) fields[name] = value;
      // Citations and HTML belong to an answer; a failed capture has neither.
      if (answer.outcome === 'ok')
        Object.assign(fields, citations && { citations }, answerHtml && { answerHtml });
      if (named) Object.assign(fields, { brand: 'acmeflow', category: 'crm' });
      if (keyed) fields.externalKey = [run, prompt, model, surface, capturedAt].join('|');
      return fields;
    });

/** A line spoiled: some values made hostile, a field dropped or one added; or no object at all. */
const spoiled = (fields: Record<string, unknown>): fc.Arbitrary<string> =>
  fc.oneof(
    {
      weight: 4,
      arbitrary: fc
        .tuple(
          fc.array(fc.tuple(fc.nat(), hostile), { maxLength: 2 }),
          fc.array(fc.nat(), { maxLength: 1 }),
          fc.option(fc.tuple(fc.constantFrom('colour', '__proto__', 'constructor', 'Prompt'), hostile)),
        )
        .map(([values, dropped, added]) => {
          const entries = Object.entries(fields);
          for (const [at, value] of values) {
            const entry = entries[at % entries.length];
            if (entry) entry[1] = value;
          }
          for (const at of dropped) entries.splice(at % entries.length, 1);
          const object = Object.fromEntries(entries);
          if (added) Object.defineProperty(object, added[0], { value: added[1], enumerable: true });
          return JSON.stringify(object);
        }),
    },
    {
      weight: 1,
      arbitrary: fc.oneof(
        fc.constantFrom(
          '',
          '[]',
          'null',
          '1',
          '"acme"',
          '{',
          '{"organization": "acme", oops',
          '['.repeat(5000),
          '{"a":'.repeat(2000),
          '\u0000',
          '\ufeff{}',
        ),
        fc.string({ maxLength: 60 }),
      ),
    },
  );

/**
 * A file of one to four answers, each captured at a minute of its own: all valid (a file that
 * must go in, unless it clashes with what earlier files stored: a run's category or status) or
 * with some lines spoiled.
 */
const answerFile: fc.Arbitrary<string[]> = fc
  .uniqueArray(fc.integer({ min: 0, max: 59 }), { minLength: 1, maxLength: 4 })
  .chain((minutes) => fc.tuple(...minutes.map(validFields)))
  .chain((answers) =>
    fc.oneof(
      fc.constant(answers.map((fields) => JSON.stringify(fields))),
      fc.tuple(...answers.map((fields) => fc.oneof(fc.constant(JSON.stringify(fields)), spoiled(fields)))),
    ),
  );

// ---- what is checked ---------------------------------------------------------------------------

type Outcome = 'imported' | 'refused';

/**
 * Imports a file: either it goes in, and importing it again adds nothing, or it is refused with
 * ImportRejected, each problem on one line of the file, and nothing changed. Anything else fails.
 */
async function importedOrRefused(db: Db, lines: string[]): Promise<Outcome> {
  const what = lines.map((l) => l.slice(0, 200)).join('\n');
  const before = await counts(db);
  const outcome = await importAnswers(db, lines, { now: NOW, analysisThreads: 0 }).then(
    (summary) => ({ summary }),
    (error: unknown) => ({ error }),
  );
  if ('error' in outcome) {
    const { error } = outcome;
    assert.ok(error instanceof ImportRejected, `${what}\n→ ${(error as Error)?.stack ?? String(error)}`);
    assert.ok(error.errors.length > 0, what);
    for (const problem of error.errors) {
      assert.ok(Number.isInteger(problem.line) && problem.line >= 0 && problem.line <= lines.length, what);
      assert.match(problem.message, /^[^\n]+$/, what);
    }
    assert.deepEqual(await counts(db), before, `a refused file changed the database:\n${what}`);
    return 'refused';
  }
  const { summary } = outcome;
  assert.equal(summary.answers, lines.filter((l) => l.trim() !== '').length, what);
  assert.equal(summary.imported + summary.alreadyPresent, summary.answers, what);
  const stored = await counts(db);
  const again = await importAnswers(db, lines, { now: NOW, analysisThreads: 0 });
  assert.equal(again.imported, 0, what);
  assert.equal(again.alreadyPresent, summary.answers, what);
  assert.deepEqual(await counts(db), stored, `importing the file again changed the database:\n${what}`);
  return 'imported';
}

it(`${RUNS} hostile answer files: imported once and idempotent, or refused line by line with nothing changed`, async (t) => {
  t.diagnostic(`fast-check seed ${SEED} (IMPORT_FUZZ_SEED=${SEED} to replay), ${RUNS} runs`);
  const outcomes = { imported: 0, refused: 0 };
  await fc.assert(
    fc.asyncProperty(answerFile, async (lines) => {
      outcomes[await importedOrRefused(ctx.dbs.primary, lines)]++;
    }),
    { numRuns: RUNS, seed: SEED, endOnFailure: true },
  );
  t.diagnostic(`imported ${outcomes.imported}, refused ${outcomes.refused}`);
  // A fuzz that refuses everything proves little: some files must have gone in.
  assert.ok(outcomes.imported > 0 && outcomes.refused > 0, JSON.stringify(outcomes));
});

// The random files meet a given value in a given field only now and then: a lone surrogate in a
// run key, an id past 2^53, a capture in year 0 each failed an import with the database's error
// before a random seed found them. Here every listed value goes into every field of one valid line,
// one file each, on whichever database the pass runs.
it('every listed hostile value in every field of a line: imported once and idempotent, or refused', async () => {
  const line = (second: number): Record<string, unknown> => ({
    organization: 'acme',
    brand: 'acmeflow',
    category: 'crm',
    prompt: 'best-crm',
    run: 'sweep',
    runStatus: 'completed',
    methodology: 'sample_v1',
    externalKey: `sweep-${second}`,
    model: 'chatgpt',
    modelLabel: 'ChatGPT',
    surface: 'api',
    outcome: 'ok',
    sampleCount: 2,
    capturedAt: new Date(Date.parse('2026-03-01T10:00:00Z') + second * 1000).toISOString(),
    answerText: 'Top CRMs:\n\n1. **Globex** – the enterprise pick.\n2. **Acmeflow** – fast.',
    answerHtml: '<ol><li>Globex</li><li>Acmeflow</li></ol>',
    citations: ['https://www.g2.com/categories/crm'],
  });
  const fields = Object.keys(line(0));
  const outcomes = { imported: 0, refused: 0 };
  let second = 0;
  for (const field of fields) {
    for (const value of HOSTILE_VALUES) {
      const fieldsOf = line(second++);
      fieldsOf[field] = value;
      outcomes[await importedOrRefused(ctx.dbs.primary, [JSON.stringify(fieldsOf)])]++;
    }
  }
  // Each field has values that go in (e.g. "acme" as a label) and values that cannot.
  assert.equal(outcomes.imported + outcomes.refused, fields.length * HOSTILE_VALUES.length);
  assert.ok(outcomes.imported > 0 && outcomes.refused > 0, JSON.stringify(outcomes));
});
