import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createBrand } from '../src/db/catalog/brands.ts';
import { createCategory } from '../src/db/catalog/categories.ts';
import { addCompetitor } from '../src/db/catalog/competitors.ts';
import { createPrompt } from '../src/db/catalog/prompts.ts';
import type { Db } from '../src/db/connect.ts';
import type { Database } from '../src/db/types.ts';
import { normalizeAnswerLine } from '../src/domain/answer-line.ts';
import { answerAnalysis } from '../src/ingest/analysis.ts';
import { importAnswers } from '../src/ingest/import.ts';
import { createTestContext, type TestContext } from './support/context.ts';
import { IMPORT_TABLES, insertOrg } from './support/fixtures.ts';

// An import's analysis may run on worker threads (ingest/analysis.ts). Whatever the number of
// threads, every stored row must be the one the import's own thread would have written: the same
// file goes into two fresh databases, once analysed in-thread and once on three threads.

const NOW = new Date('2026-03-02T00:00:00.000Z');

// 1,300 answers over two categories and 13 runs: more than two batches of 500, so batches and
// their slices must come back in order. Lists, tables, HTML, prose, failures and a legacy run
// without text, naming known competitors, an alias and an unknown name (a candidate).
const PROMPTS = { crm: ['best-crm', 'cheap-crm'], email: ['email-tool'] } as const;
const FORMATS = [
  (n: string[]) => `Top picks:\n\n${n.map((x, i) => `${i + 1}. **${x}** – solid choice.`).join('\n')}`,
  (n: string[]) => `| Tool | Note |\n|---|---|\n${n.map((x) => `| ${x} | fine |`).join('\n')}`,
  (n: string[]) => `${n.join(' is good, and ')} is slow and expensive. See https://www.g2.com/crm`,
];
const NAMES = ['Acmeflow', 'Globex', 'Initech', 'Hooli CRM', 'Vandelay'];

function fixtureLines(): string[] {
  const lines: string[] = [];
  for (let i = 0; i < 1300; i++) {
    const run = Math.floor(i / 100);
    const category = run % 3 === 2 ? 'email' : 'crm';
    const prompts = PROMPTS[category];
    const names = NAMES.slice(i % 3, (i % 3) + 2 + (i % 4));
    const legacy = run === 12;
    const format = FORMATS[i % FORMATS.length] as (n: string[]) => string;
    lines.push(
      JSON.stringify({
        organization: 'acme',
        run: `${category}/${run}`,
        prompt: prompts[i % prompts.length],
        model: ['chatgpt', 'perplexity', 'gemini', 'claude'][i % 4],
        capturedAt: new Date(Date.parse('2026-02-01T00:00:00Z') + run * 86_400_000 + i * 1000).toISOString(),
        sampleCount: 1 + (i % 3),
        ...(legacy ? { methodology: 'legacy' } : {}),
        ...(i % 17 === 5
          ? { outcome: 'error' }
          : legacy && i % 2 === 0
            ? {}
            : i % 11 === 3
              ? {
                  answerText: names.join(', '),
                  answerHtml: `<ol>${names.map((x) => `<li><b>${x}</b></li>`).join('')}</ol>`,
                }
              : {
                  answerText: format(names),
                  citations: ['https://www.capterra.com/crm/', 'https://acmeflow.com/'],
                }),
      }),
    );
  }
  return lines;
}

async function seeded(): Promise<TestContext> {
  const ctx = await createTestContext();
  const db = ctx.dbs.primary;
  const orgId = await insertOrg(db, 'acme');
  const brand = await createBrand(db, orgId, { name: 'Acmeflow', website: 'https://www.acmeflow.com' });
  const crm = await createCategory(db, brand, { name: 'CRM', externalKey: 'crm' });
  const email = await createCategory(db, brand, { name: 'Email', externalKey: 'email' });
  for (const key of PROMPTS.crm) await createPrompt(db, crm, { text: `${key}?`, externalKey: key });
  for (const key of PROMPTS.email) await createPrompt(db, email, { text: `${key}?`, externalKey: key });
  await addCompetitor(db, brand, crm, { name: 'Globex' });
  await addCompetitor(db, brand, crm, { name: 'Initech Suite', aliases: ['Initech'] });
  await addCompetitor(db, brand, email, { name: 'Vandelay' });
  return ctx;
}

/** Every row of the table, in a stable order. */
async function rowsOf(db: Db, table: keyof Database): Promise<string[]> {
  const rows = await db.selectFrom(table).selectAll().execute();
  return rows.map((row) => JSON.stringify(row)).sort();
}

describe('import analysis threads', () => {
  let inThread: TestContext;
  let threaded: TestContext;

  before(async () => {
    inThread = await seeded();
    threaded = await seeded();
  });
  after(async () => {
    await inThread.close();
    await threaded.close();
  });

  it('stores exactly the rows of the in-thread import', async () => {
    const lines = fixtureLines();
    const here = await importAnswers(inThread.dbs.primary, lines, {
      now: NOW,
      publish: true,
      analysisThreads: 0,
    });
    const there = await importAnswers(threaded.dbs.primary, lines, {
      now: NOW,
      publish: true,
      analysisThreads: 3,
    });
    assert.deepEqual(there, here);
    // 13 runs of 100 lines each, every line a new answer.
    assert.equal(here.imported, 1300);
    assert.equal(here.runs.length, 13);
    for (const table of IMPORT_TABLES) {
      const expected = await rowsOf(inThread.dbs.primary, table);
      assert.deepEqual(await rowsOf(threaded.dbs.primary, table), expected, table);
    }
    // The fixture reaches every kind of row compared, so none of the comparisons is vacuous.
    for (const table of IMPORT_TABLES) {
      assert.ok((await rowsOf(inThread.dbs.primary, table)).length > 0, `${table} has rows`);
    }
  });

  it('fails the analysis, and every later one, when a thread crashes', async () => {
    const analysis = answerAnalysis(1);
    const parsed = normalizeAnswerLine(JSON.parse(fixtureLines()[0] as string), NOW);
    assert.ok('line' in parsed);
    // A subject the thread cannot build an analyzer from makes it throw.
    const broken = {
      categoryId: 1,
      line: parsed.line,
      context: { analyzer: { analyze: () => assert.fail('analysed in-thread') }, subject: null as never },
    };
    try {
      await assert.rejects(analysis.analyse([broken]));
      await assert.rejects(analysis.analyse([broken]));
    } finally {
      await analysis.close();
    }
  });
});
