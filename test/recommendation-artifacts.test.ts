import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { after, before, describe, it } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Insertable } from 'kysely';
import { ConfigError, loadConfig } from '../src/config.ts';
import type { Db } from '../src/db/connect.ts';
import { askUsage, setOrgMonitoring } from '../src/db/monitoring.ts';
import type { RecommendationsTable } from '../src/db/types.ts';
import { InvalidInput } from '../src/domain/catalog.ts';
import type { CitationOutreachEvidence, ContentGapEvidence } from '../src/domain/recommendation-evidence.ts';
import { createEngines, type Engine } from '../src/monitoring/engines/index.ts';
import { artifactId, draftArtifacts, draftEngine, draftInputs } from '../src/recommendations/artifacts.ts';
import { MAIN, runCli } from './support/cli.ts';
import { bearer, createTestContext, type TestContext } from './support/context.ts';
import { ANSWER, type FakeVendor, PAGES, startFakeVendor } from './support/fake-engines.ts';
import { BrandFixture, insertOrg, insertRecommendationArtifact, mintKey } from './support/fixtures.ts';
import { memoryLog } from './support/monitoring.ts';
import { holdingWrites } from './support/write-lock.ts';

// Drafted artifacts of recommendations: the exact text the simulated engine and the templates
// write from a small fixture, a vendor engine through its SDK against a local fake (answers,
// failures, the budget), idempotence, the tenancy of the prompt, the API list and the command.

const AT = new Date('2026-03-31T08:00:00.000Z');
// A draft's ask counts in the month it is sent, whatever month its drafting is dated (AT).
const THIS_MONTH = new Date().toISOString().slice(0, 7);
const LATER = new Date('2026-04-02T09:00:00.000Z');
const CLAUDE_KEY = 'sk-ant-test-artifacts-0123456789';
const uuid = (n: number) => `00000000-0000-4000-8000-${String(n).padStart(12, '0')}`;

const WINDOW = { start: '2026-03-01T00:00:00.000Z', end: '2026-03-31T00:00:00.000Z' };
const QUESTION = 'What is the best CRM for a small startup?';

// Acme CRM's content gap: 4 answers, the brand in 1 (25%), HubSpot CRM in 3, Pipedrive in 2; the
// brand's usual rate on its other prompts 0.6 (60%).
const GAP: ContentGapEvidence = {
  window: WINDOW,
  promptId: 12,
  promptText: QUESTION,
  answers: 4,
  brandAnswers: 1,
  usualMentionRate: 0.6,
  competitors: [
    { name: 'HubSpot CRM', answers: 3 },
    { name: 'Pipedrive', answers: 2 },
  ],
};
// g2.com: 4 of the 10 citations (40%) in answers naming competitors (3 with HubSpot CRM, 1 with
// Pipedrive), 0 of the 3 (0%) in answers naming the brand.
const OUTREACH: CitationOutreachEvidence = {
  window: WINDOW,
  domain: 'g2.com',
  competitorCitations: 4,
  competitorCitationTotal: 10,
  competitorShare: 0.4,
  brandCitations: 0,
  brandCitationTotal: 3,
  brandShare: 0,
  competitors: [
    { name: 'HubSpot CRM', citations: 3 },
    { name: 'Pipedrive', citations: 1 },
  ],
};
// Globex's look-alike finding on the same question: its own brand, rival and figures (9 answers,
// 7 naming Globex CRM), none of which may reach a prompt drafted for Acme.
const GLOBEX_GAP: ContentGapEvidence = {
  ...GAP,
  answers: 9,
  brandAnswers: 7,
  usualMentionRate: 0.9,
  competitors: [{ name: 'Initrode Pipeline', answers: 8 }],
};

/** The content-brief prompt for GAP, filled by hand from content-brief.v1.md. */
const GAP_PROMPT = `You are a content strategist for Acme CRM (https://www.acme.example). Buyers ask answer engines the question below, and the engines' answers name competitors far more often than Acme CRM.

Question: "What is the best CRM for a small startup?"

What answer engines said from 2026-03-01 to 2026-03-31:
- Acme CRM was named in 1 of 4 answers (25%). Across its other monitored prompts it was named in 60% of answers.
- Competitors named in those answers: HubSpot CRM (in 3), Pipedrive (in 2).

Write a content brief for one page on Acme CRM's website that answers this question well enough for an answer engine to quote it:
1. A working title, and the two or three sentences the page opens with: a direct answer to the question.
2. A page outline (H2 and H3 headings), with what each section must say, including a fair comparison with the competitors above.
3. The facts, figures and independent sources the page needs so that an engine can cite it.
4. Five questions for a FAQ section.

Write in Markdown. Do not invent facts about Acme CRM or its competitors: mark anything the team must supply or check as [to confirm].`;

const SIMULATED_NOTICE = "Simulated draft: written by Sightline's simulated engine, not by a language model.";

/** What the simulated engine writes for GAP: its fixed form, with the brand and both rivals. */
const SIMULATED_BRIEF = `# What is the best CRM for a small startup?

${SIMULATED_NOTICE}

## Direct answer
Open with a two-sentence answer to "What is the best CRM for a small startup?" that names Acme CRM and the situation it fits best.

## Outline
1. What to look for: the criteria buyers weigh.
2. Acme CRM compared with HubSpot CRM and Pipedrive: a table of price, set-up time and integrations.
3. Questions buyers ask next, each answered in two sentences.

## Evidence to add
Dated figures, customer examples and independent reviews that engines can cite.`;

const SIMULATED_NOTE = `Subject: Acme CRM for g2.com

${SIMULATED_NOTICE}

Hello,

Your coverage of HubSpot CRM and Pipedrive on g2.com is one of the sources buyers read when they compare tools. We would like to offer Acme CRM for your next update: a demo account, current pricing and a customer you can speak to.

Best regards,
The Acme CRM team`;

const NO_ENGINE =
  'Template: no engine is set to draft artifacts (SIGHTLINE_DRAFT_ENGINE), so this is filled from the data; complete the bracketed parts.';

/** content-brief-template.v1.md filled from GAP after `notice`. */
const briefTemplate = (notice: string) => `${notice}

# Content brief: What is the best CRM for a small startup?

## Why this page
From 2026-03-01 to 2026-03-31, answer engines named Acme CRM in 1 of 4 answers (25%) to "What is the best CRM for a small startup?". Across its other monitored prompts it was named in 60% of answers. Competitors named in those answers: HubSpot CRM (in 3), Pipedrive (in 2).

## Opening answer
[Two or three sentences that answer "What is the best CRM for a small startup?" directly and say where Acme CRM fits.]

## Page outline
1. What buyers should look for: [the criteria that decide the question].
2. Acme CRM compared with HubSpot CRM and Pipedrive: [a table of price, set-up time, integrations and who each suits].
3. Where Acme CRM is the better choice, and where it is not: [honest fit].
4. FAQ: [five questions buyers ask next, each answered in two sentences].

## Evidence to include
[Dated figures, customer examples and independent reviews an answer engine can cite.]`;

/** outreach-note-template.v2.md filled from OUTREACH, with no engine. */
const NOTE_TEMPLATE = `${NO_ENGINE}

Subject: Acme CRM for g2.com

Hello g2.com team,

[One sentence on who you are at Acme CRM.] Your coverage is one of the sources buyers read when they compare tools, and we would like Acme CRM to be part of your next update. [Offer: a demo account, current pricing, a customer you can speak to.]

Best regards,
[Name], Acme CRM (https://www.acme.example)

---
Why this note: from 2026-03-01 to 2026-03-31, g2.com had 4 of 10 citations (40%) in the answers of answer engines that named competitors, and 0 of 3 citations (0%) in those that named Acme CRM. Competitors in whose answers it was cited: HubSpot CRM (3 citations), Pipedrive (1 citation).`;

let ctx: TestContext;
let db: Db;
let acme: BrandFixture;
let globex: BrandFixture;
let acmeKey: string;
let claudeFake: FakeVendor;
let claude: Engine;
let simulated: Engine;

async function rec(
  brand: BrandFixture,
  n: number,
  recType: string,
  evidence: object,
  values: Partial<Insertable<RecommendationsTable>> = {},
) {
  await brand.recommendation(uuid(n), { rec_type: recType, evidence: JSON.stringify(evidence), ...values });
  return db.selectFrom('recommendations').selectAll().where('id', '=', uuid(n)).executeTakeFirstOrThrow();
}

const artifactsOf = (n: number) =>
  db.selectFrom('recommendation_artifacts').selectAll().where('recommendation_id', '=', uuid(n)).execute();

before(async () => {
  ctx = await createTestContext();
  db = ctx.dbs.primary;
  const acmeOrg = await insertOrg(db, 'acme', { plan: 'pro' });
  acmeKey = await mintKey(db, acmeOrg);
  acme = await BrandFixture.insert(db, acmeOrg, { name: 'Acme CRM', website: 'https://www.acme.example' });
  globex = await BrandFixture.insert(db, await insertOrg(db, 'globex', { plan: 'pro' }), {
    name: 'Globex CRM',
    website: 'https://www.globex.example',
  });
  claudeFake = await startFakeVendor('claude', {
    key: CLAUDE_KEY,
    model: 'claude-sonnet-5-5',
    prompt: GAP_PROMPT,
  });
  const engines = createEngines(
    loadConfig({
      ANTHROPIC_API_KEY: CLAUDE_KEY,
      ANTHROPIC_BASE_URL: claudeFake.baseUrl,
      SIGHTLINE_ENGINE_MAX_ATTEMPTS: '2',
      // The fake reports a search-sized usage per answer: three drafts in a minute would fill
      // Claude's default 30,000 tokens a minute and hold the next one a minute.
      SIGHTLINE_CLAUDE_TOKENS_PER_MINUTE: '0',
    }).engines,
    { backoff: { initialDelayMs: 1, maxDelayMs: 5 } },
  );
  claude = engines.get('claude') as Engine;
  simulated = engines.get('simulated') as Engine;
});
after(async () => {
  await claudeFake.close();
  await ctx.close();
});

describe('SIGHTLINE_DRAFT_ENGINE', () => {
  it('names the drafting engine among the configured ones; unset, there is none', () => {
    const config = loadConfig({ SIGHTLINE_DRAFT_ENGINE: 'simulated' }).engines;
    assert.equal(draftEngine(config, createEngines(config))?.name, 'simulated');
    const unset = loadConfig({}).engines;
    assert.equal(draftEngine(unset, createEngines(unset)), null);
  });

  for (const [value, message] of [
    ['bard', /SIGHTLINE_DRAFT_ENGINE must be one of chatgpt, claude/],
    ['claude', /SIGHTLINE_DRAFT_ENGINE is claude, which is not configured: set ANTHROPIC_API_KEY/],
  ] as const) {
    it(`refuses ${value} at start-up`, () => {
      assert.throws(
        () => loadConfig({ SIGHTLINE_DRAFT_ENGINE: value }),
        (error: Error) => {
          assert.ok(error instanceof ConfigError);
          assert.match(error.message, message);
          return true;
        },
      );
    });
  }
});

describe('the simulated engine drafts', () => {
  it('a content brief, word for word the same every time, and once', async () => {
    const r = await rec(acme, 1, 'content_gap', GAP);
    const first = await draftArtifacts(db, r, simulated, AT);
    assert.deepEqual(first, [
      {
        artifactId: artifactId(uuid(1), 'content_brief'),
        artifactType: 'content_brief',
        action: 'created',
        generatedByModel: 'simulated',
        generationPromptVersion: 'content-brief@1',
      },
    ]);
    // Drafting again keeps it; regenerating writes the same text over it: one row throughout.
    assert.equal((await draftArtifacts(db, r, simulated, LATER))[0]?.action, 'kept');
    assert.equal((await draftArtifacts(db, r, simulated, LATER, { regenerate: true }))[0]?.action, 'updated');
    const rows = await artifactsOf(1);
    assert.equal(rows.length, 1);
    assert.equal(rows[0]?.body, SIMULATED_BRIEF);
    assert.equal(rows[0]?.title, `Content brief: ${QUESTION}`);
    assert.equal(rows[0]?.target_url, '');
    assert.equal(rows[0]?.status, 'draft');
    assert.equal(rows[0]?.created_at, AT.toISOString());
    assert.equal(rows[0]?.updated_at, LATER.toISOString());
  });

  it('an outreach note to the cited domain', async () => {
    const r = await rec(acme, 2, 'citation_outreach', OUTREACH);
    assert.equal((await draftArtifacts(db, r, simulated, AT))[0]?.generationPromptVersion, 'outreach-note@2');
    const [row] = await artifactsOf(2);
    assert.equal(row?.body, SIMULATED_NOTE);
    assert.equal(row?.title, 'Outreach note to g2.com');
    assert.equal(row?.target_url, 'https://g2.com/');
    assert.equal(row?.artifact_type, 'outreach_note');
  });

  it('nothing for the other types', async () => {
    for (const [n, type] of [
      [3, 'engine_gap'],
      [4, 'sentiment_risk'],
      [5, 'competitor_displacement'],
    ] as const) {
      assert.deepEqual(await draftArtifacts(db, await rec(acme, n, type, {}), simulated, AT), []);
      assert.equal((await artifactsOf(n)).length, 0);
    }
  });

  it('one artifact, asked once, when two drafters race', async () => {
    const r = await rec(acme, 6, 'content_gap', GAP);
    const used = await askUsage(db, acme.orgId, THIS_MONTH);
    const both = await Promise.all([
      draftArtifacts(db, r, simulated, AT),
      draftArtifacts(db, r, simulated, AT),
    ]);
    // The other met the claim (nothing), or came after the draft was written (kept).
    assert.deepEqual(
      both.flatMap((o) => o.map((d) => d.action)).filter((action) => action !== 'kept'),
      ['created'],
    );
    assert.equal(await askUsage(db, acme.orgId, THIS_MONTH), used + 1, 'asked once');
    assert.equal((await artifactsOf(6)).length, 1);
    // The claim was let go once the draft was written: drafting again keeps it.
    assert.deepEqual(
      (await draftArtifacts(db, r, simulated, AT)).map((d) => d.action),
      ['kept'],
    );
  });
});

describe('without an engine the artifact is the template', () => {
  it('a content brief filled with the finding’s figures, saying it is a template', async () => {
    const r = await rec(acme, 10, 'content_gap', GAP);
    assert.deepEqual(await draftArtifacts(db, r, null, AT), [
      {
        artifactId: artifactId(uuid(10), 'content_brief'),
        artifactType: 'content_brief',
        action: 'created',
        generatedByModel: '',
        generationPromptVersion: 'content-brief-template@1',
      },
    ]);
    assert.equal((await artifactsOf(10))[0]?.body, briefTemplate(NO_ENGINE));
    // Once an engine is there, the template gives way to its draft (same row).
    assert.equal((await draftArtifacts(db, r, simulated, LATER))[0]?.action, 'updated');
    const rows = await artifactsOf(10);
    assert.equal(rows.length, 1);
    assert.equal(rows[0]?.body, SIMULATED_BRIEF);
    assert.equal(rows[0]?.generated_by_model, 'simulated');
  });

  it('an outreach note with its figures', async () => {
    const r = await rec(acme, 11, 'citation_outreach', OUTREACH);
    await draftArtifacts(db, r, null, AT);
    const [row] = await artifactsOf(11);
    assert.equal(row?.body, NOTE_TEMPLATE);
    assert.equal(row?.generation_prompt_version, 'outreach-note-template@2');
  });

  it('evidence without the figures a draft needs is refused, and nothing is written', async () => {
    const r = await rec(acme, 12, 'content_gap', { ...GAP, promptText: undefined });
    await assert.rejects(draftArtifacts(db, r, null, AT), (error: Error) => {
      assert.ok(error instanceof InvalidInput);
      assert.match(error.message, /content_gap evidence does not hold what a draft needs/);
      return true;
    });
    assert.equal((await artifactsOf(12)).length, 0);
  });
});

describe('a vendor engine (Claude, through its SDK)', () => {
  it('is sent the filled prompt alone; its answer and cited pages are the draft, its ask counted', async () => {
    const sent = claudeFake.requests.length;
    const used = await askUsage(db, acme.orgId, THIS_MONTH);
    const r = await rec(acme, 20, 'content_gap', GAP);
    const [outcome] = await draftArtifacts(db, r, claude, AT);
    assert.equal(outcome?.generatedByModel, 'claude-sonnet-5-5-20260915');
    assert.equal(claudeFake.requests.length, sent + 1);
    const body = claudeFake.requests.at(-1)?.body as { messages: Array<{ role: string; content: string }> };
    assert.deepEqual(body.messages, [{ role: 'user', content: GAP_PROMPT }]);
    const [row] = await artifactsOf(20);
    // The fake's answer, then the two pages its citations name (G2 first, as first cited).
    assert.equal(
      row?.body,
      `${ANSWER}\n\n## Sources the engine drew on\n- ${PAGES[0].title}: ${PAGES[0].url}\n- ${PAGES[1].title}: ${PAGES[1].url}`,
    );
    assert.equal(row?.generation_prompt_version, 'content-brief@1');
    // One ask, counted in the organization's month like a monitoring ask: this month, not AT's.
    assert.equal(await askUsage(db, acme.orgId, THIS_MONTH), used + 1);
  });

  it('drops a NUL and mends a lone surrogate in the draft and its model name, as either database stores them', async () => {
    claudeFake.script({ kind: 'answer', text: `${ANSWER}\u0000\ud800`, model: 'claude-sonnet-5-5\u0000' });
    const r = await rec(acme, 25, 'content_gap', GAP);
    const [outcome] = await draftArtifacts(db, r, claude, AT);
    assert.equal(outcome?.generatedByModel, 'claude-sonnet-5-5');
    const [row] = await artifactsOf(25);
    assert.equal(
      row?.body,
      `${ANSWER}\ufffd\n\n## Sources the engine drew on\n- ${PAGES[0].title}: ${PAGES[0].url}\n- ${PAGES[1].title}: ${PAGES[1].url}`,
    );
  });

  it('a failed first draft leaves the template, saying the engine failed', async () => {
    claudeFake.script({ kind: 'status', status: 401 });
    const r = await rec(acme, 21, 'content_gap', GAP);
    const [outcome] = await draftArtifacts(db, r, claude, AT);
    const failure = 'authentication failed (HTTP 401 authentication_error)';
    assert.equal(outcome?.engineFailure, failure);
    assert.equal(outcome?.generatedByModel, '');
    const [row] = await artifactsOf(21);
    assert.equal(
      row?.body,
      briefTemplate(
        `Template: the claude engine could not draft this (${failure}), so this is filled from the data; complete the bracketed parts.`,
      ),
    );
    assert.doesNotMatch(row?.body ?? '', new RegExp(CLAUDE_KEY));
  });

  it('a failed redraft leaves the existing draft as it was', async () => {
    const r = await rec(acme, 22, 'content_gap', GAP);
    await draftArtifacts(db, r, claude, AT);
    const [before] = await artifactsOf(22);
    // Two attempts (SIGHTLINE_ENGINE_MAX_ATTEMPTS 2), both server errors.
    claudeFake.script({ kind: 'status', status: 500 }, { kind: 'status', status: 500 });
    const [outcome] = await draftArtifacts(db, r, claude, LATER, { regenerate: true });
    assert.equal(outcome?.action, 'kept');
    assert.equal(outcome?.engineFailure, 'server error (HTTP 500 api_error)');
    assert.deepEqual(await artifactsOf(22), [before]);
  });

  it('past the monthly ask budget nothing is asked and the template says why', async () => {
    const org = await insertOrg(db, 'initech', { plan: 'pro' });
    const brand = await BrandFixture.insert(db, org, {
      name: 'Acme CRM',
      website: 'https://www.acme.example',
    });
    await setOrgMonitoring(db, org, { monthlyAskBudget: 1 });
    await draftArtifacts(db, await rec(brand, 23, 'content_gap', GAP), claude, AT);
    const sent = claudeFake.requests.length;
    const [outcome] = await draftArtifacts(db, await rec(brand, 24, 'content_gap', GAP), claude, AT);
    assert.equal(claudeFake.requests.length, sent);
    assert.equal(outcome?.engineFailure, `monthly ask budget reached: 1 asks in ${THIS_MONTH} (UTC)`);
    assert.equal(await askUsage(db, org, THIS_MONTH), 1);
    assert.match(
      (await artifactsOf(24))[0]?.body ?? '',
      /^Template: the claude engine could not draft this \(monthly ask budget reached/,
    );
  });
});

describe('tenancy of the prompt', () => {
  it('a prompt for Acme carries Acme’s row and brand, never Globex’s look-alike finding', async () => {
    await rec(globex, 30, 'content_gap', GLOBEX_GAP);
    const inputs = await draftInputs(db, await rec(acme, 31, 'content_gap', GAP));
    assert.equal(inputs?.prompt.text, GAP_PROMPT);
    for (const foreign of ['Globex', 'globex', 'Initrode', '9 answers', '7 of', '90%']) {
      assert.ok(!inputs?.prompt.text.includes(foreign), `prompt carries "${foreign}"`);
    }
  });

  it('a recommendation pointing at another organization’s brand finds no brand: nothing asked or written', async () => {
    const sent = claudeFake.requests.length;
    const forged = await rec(acme, 32, 'content_gap', GAP, { brand_id: globex.brandId });
    await assert.rejects(draftArtifacts(db, forged, claude, AT), /has no brand in its organization/);
    assert.equal(claudeFake.requests.length, sent);
    assert.equal((await artifactsOf(32)).length, 0);
  });
});

describe('the API list', () => {
  it('shows the drafted artifact with its model and prompt version', async () => {
    const response = await ctx.app.inject({
      url: `/api/brands/${acme.brandId}/recommendations/?page_size=100`,
      headers: bearer(acmeKey),
    });
    assert.equal(response.statusCode, 200);
    const listed = response.json().results.find((r: { id: string }) => r.id === uuid(2));
    assert.deepEqual(listed.artifacts, [
      {
        id: artifactId(uuid(2), 'outreach_note'),
        artifactType: 'outreach_note',
        title: 'Outreach note to g2.com',
        body: SIMULATED_NOTE,
        targetUrl: 'https://g2.com/',
        status: 'draft',
        generatedByModel: 'simulated',
        generationPromptVersion: 'outreach-note@2',
        publishedAt: null,
        createdAt: AT.toISOString(),
        updatedAt: AT.toISOString(),
      },
    ]);
  });
});

describe('sightline recommendations draft', () => {
  const cli = (...args: string[]) => runCli(ctx.config.databaseUrl, ...args);

  it('redrafts with the named engine and prints the artifact id last', async () => {
    await rec(acme, 40, 'citation_outreach', OUTREACH);
    const run = await cli('recommendations', 'draft', uuid(40), '--engine', 'simulated');
    assert.equal(run.status, 0, run.stderr);
    const id = artifactId(uuid(40), 'outreach_note');
    assert.equal(
      run.stdout,
      `Drafted the outreach_note of recommendation ${uuid(40)} by simulated (outreach-note@2).\n${id}\n`,
    );
    assert.equal((await artifactsOf(40))[0]?.body, SIMULATED_NOTE);
  });

  it('asks once when two drafters race, the second while the first waits for the engine', async () => {
    const r = await rec(acme, 44, 'content_gap', GAP);
    const sent = claudeFake.requests.length;
    const used = await askUsage(db, acme.orgId, THIS_MONTH);
    claudeFake.script({ kind: 'hold' });
    const first = draftArtifacts(db, r, claude, AT);
    while (claudeFake.held < 1) await sleep(10);
    // The second finds the first's claim: it asks nothing and writes nothing.
    let second: unknown;
    try {
      second = await Promise.race([draftArtifacts(db, r, claude, AT), sleep(10_000).then(() => 'waited')]);
    } finally {
      claudeFake.release();
    }
    assert.deepEqual(second, []);
    assert.deepEqual(
      (await first).map((d) => d.action),
      ['created'],
    );
    assert.equal(claudeFake.requests.length, sent + 1, 'asked once');
    assert.equal(await askUsage(db, acme.orgId, THIS_MONTH), used + 1, 'counted once');
    assert.equal((await artifactsOf(44))[0]?.generated_by_model, 'claude-sonnet-5-5-20260915');
  });

  it('an engine’s draft replaces a template written while the engine was asked', async () => {
    const r = await rec(acme, 47, 'content_gap', GAP);
    const sent = claudeFake.requests.length;
    claudeFake.script({ kind: 'hold' });
    const first = draftArtifacts(db, r, claude, AT);
    while (claudeFake.held < 1) await sleep(10);
    // A drafter without an engine (another process's configuration) writes the template meanwhile.
    let template: Awaited<ReturnType<typeof draftArtifacts>>;
    try {
      template = await draftArtifacts(db, r, null, AT);
    } finally {
      claudeFake.release();
    }
    assert.deepEqual(
      template.map((d) => d.action),
      ['created'],
    );
    // The paid draft is not lost behind it.
    assert.deepEqual(
      (await first).map((d) => [d.action, d.generatedByModel]),
      [['updated', 'claude-sonnet-5-5-20260915']],
    );
    assert.equal(claudeFake.requests.length, sent + 1, 'asked once');
    const [stored] = await artifactsOf(47);
    assert.equal(stored?.generated_by_model, 'claude-sonnet-5-5-20260915');
    assert.match(stored?.body ?? '', /^Here are the CRMs small startups choose most often:/);
  });

  it('gives back to the month a draft the engine’s open circuit refused before sending it', async () => {
    // An engine of its own whose circuit opens at the first failure.
    const fragile = createEngines(
      loadConfig({
        ANTHROPIC_API_KEY: CLAUDE_KEY,
        ANTHROPIC_BASE_URL: claudeFake.baseUrl,
        SIGHTLINE_ENGINE_MAX_ATTEMPTS: '1',
        SIGHTLINE_ENGINE_BREAKER_FAILURES: '1',
      }).engines,
    ).get('claude') as Engine;
    claudeFake.script({ kind: 'status', status: 500 });
    assert.equal((await fragile.ask({ prompt: GAP_PROMPT })).error, 'server error (HTTP 500 api_error)');
    const sent = claudeFake.requests.length;
    const used = await askUsage(db, acme.orgId, THIS_MONTH);
    const r = await rec(acme, 46, 'content_gap', GAP);
    const [drafted] = await draftArtifacts(db, r, fragile, AT);
    assert.equal(drafted?.action, 'created');
    assert.match(drafted?.engineFailure ?? '', /circuit open/);
    assert.equal(claudeFake.requests.length, sent, 'nothing sent');
    assert.equal(await askUsage(db, acme.orgId, THIS_MONTH), used, 'nothing counted');
  });

  it('refuses to redraft an artifact another drafter holds, and leaves it to that one otherwise', async () => {
    const r = await rec(acme, 45, 'content_gap', GAP);
    const id = artifactId(uuid(45), 'content_brief');
    // What a drafter that was killed while it asked leaves behind.
    await db
      .insertInto('artifact_draft_claims')
      .values({ id, org_id: acme.orgId, until: new Date(Date.now() + 600_000).toISOString() })
      .execute();
    const sent = claudeFake.requests.length;
    await assert.rejects(
      draftArtifacts(db, r, claude, AT, { regenerate: true }),
      new RegExp(
        `^InvalidInput: artifact ${id} is being drafted by another process .*: run this again once it has finished$`,
      ),
    );
    const log = memoryLog();
    assert.deepEqual(await draftArtifacts(db, r, claude, AT, { log }), []);
    assert.deepEqual(
      log.lines.map((l) => l.fields.event),
      ['artifact_draft_claimed_elsewhere'],
    );
    assert.equal(claudeFake.requests.length, sent, 'nothing asked');
    assert.deepEqual(await artifactsOf(45), []);
  });

  /** `recommendations draft` of recommendation `n` with Claude, in its own process, once its ask is held. */
  async function draftHeld(n: number) {
    claudeFake.script({ kind: 'hold' });
    const child = spawn(process.execPath, [MAIN, 'recommendations', 'draft', uuid(n), '--engine', 'claude'], {
      env: {
        PATH: process.env.PATH ?? '',
        DATABASE_URL: ctx.config.databaseUrl,
        LOG_LEVEL: 'silent',
        ANTHROPIC_API_KEY: CLAUDE_KEY,
        ANTHROPIC_BASE_URL: claudeFake.baseUrl,
        SIGHTLINE_CLAUDE_TIMEOUT_MS: '600000',
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const output = { stdout: '', stderr: '' };
    child.stdout.on('data', (chunk) => {
      output.stdout += chunk;
    });
    child.stderr.on('data', (chunk) => {
      output.stderr += chunk;
    });
    const exited = once(child, 'exit');
    const deadline = Date.now() + 60_000;
    while (claudeFake.held < 1) {
      assert.ok(Date.now() < deadline, `the draft never reached the engine: ${output.stderr}`);
      await sleep(20);
    }
    return { child, output, exited };
  }

  it("keeps a paid draft that arrives during another process's long write, asking once", async () => {
    await rec(acme, 43, 'content_gap', GAP);
    const sent = claudeFake.requests.length;
    const { output, exited } = await draftHeld(43);
    // The draft arrives while the other write goes on, for longer than SQLite's busy timeout (5 s).
    await holdingWrites(ctx, async () => {
      claudeFake.release();
      await sleep(6_000);
    });
    const [code] = await exited;
    assert.equal(code, 0, output.stderr);
    assert.equal(claudeFake.requests.length, sent + 1, 'asked once');
    assert.match(
      (await artifactsOf(43))[0]?.body ?? '',
      /^Here are the CRMs small startups choose most often:/,
    );
  });

  it('stopped by Ctrl-C while the engine is asked, writes nothing and lets the artifact go at once', async () => {
    await rec(acme, 48, 'content_gap', GAP);
    const id = artifactId(uuid(48), 'content_brief');
    const used = await askUsage(db, acme.orgId, THIS_MONTH);
    const { child, output, exited } = await draftHeld(48);
    try {
      child.kill('SIGINT');
      const [code] = await exited;
      assert.equal(code, 1);
      assert.equal(
        output.stderr,
        `sightline: interrupted (SIGINT) while drafting artifact ${id}: nothing was written for it\n`,
      );
      assert.equal(output.stdout, '');
    } finally {
      claudeFake.release();
    }
    assert.deepEqual(await artifactsOf(48), []);
    // The ask went out and stays counted: the vendor may have been paid for it.
    assert.equal(await askUsage(db, acme.orgId, THIS_MONTH), used + 1);
    // No claim is left to wait out: the next drafter drafts at once.
    assert.deepEqual(
      await db.selectFrom('artifact_draft_claims').select('id').where('id', '=', id).execute(),
      [],
    );
    const again = await cli('recommendations', 'draft', uuid(48), '--engine', 'simulated');
    assert.equal(again.status, 0, again.stderr);
    assert.match(again.stdout, /^Drafted the content_brief of recommendation .* by simulated/);
  });

  it('without an engine fills the template', async () => {
    await rec(acme, 41, 'citation_outreach', OUTREACH);
    const run = await cli('recommendations', 'draft', uuid(41));
    assert.equal(run.status, 0, run.stderr);
    assert.match(run.stdout, /from the template \(outreach-note-template@2\)/);
    assert.equal((await artifactsOf(41))[0]?.body, NOTE_TEMPLATE);
  });

  it('refuses a reviewed artifact, leaving it as it was', async () => {
    await rec(acme, 42, 'content_gap', GAP);
    await insertRecommendationArtifact(db, acme.orgId, {
      id: artifactId(uuid(42), 'content_brief'),
      recommendation_id: uuid(42),
      artifact_type: 'content_brief',
      body: 'Approved by the team.',
      status: 'ready',
    });
    const run = await cli('recommendations', 'draft', uuid(42), '--engine', 'simulated');
    assert.equal(run.status, 1);
    assert.match(
      run.stderr,
      /^sightline: recommendation .+: artifact .+ is ready: a reviewed artifact is not drafted again\n$/,
    );
    assert.equal((await artifactsOf(42))[0]?.body, 'Approved by the team.');
  });

  for (const [label, args, status, message] of [
    ['an unknown recommendation', [uuid(999)], 1, /recommendation .+ does not exist/],
    [
      'a type without an artifact',
      [uuid(3)],
      1,
      /engine_gap recommendation: only content_gap and citation_outreach/,
    ],
    ['an unknown engine', [uuid(40), '--engine', 'bard'], 2, /Allowed choices are chatgpt/],
    [
      'an engine that is not configured',
      [uuid(40), '--engine', 'claude'],
      2,
      /engine claude is not configured: set ANTHROPIC_API_KEY/,
    ],
  ] as const) {
    it(`refuses ${label} with one line, exit ${status}`, async () => {
      const run = await cli('recommendations', 'draft', ...args);
      assert.equal(run.status, status);
      assert.match(run.stderr, message);
      assert.equal(run.stderr.trim().split('\n').length, 1);
    });
  }
});
