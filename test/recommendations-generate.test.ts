import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { after, before, describe, it } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Selectable } from 'kysely';
import pg from 'pg';
import { loadConfig } from '../src/config.ts';
import type { Db } from '../src/db/connect.ts';
import { findBrandMonitoring, findMonitorRun } from '../src/db/monitoring.ts';
import { countRecommendations } from '../src/db/recommendations.ts';
import type { RecommendationsTable } from '../src/db/types.ts';
import { readDraftEvidence } from '../src/domain/recommendation-evidence.ts';
import { ahead } from '../src/domain/recommendations/rules.ts';
import { createEngines, type Engine } from '../src/monitoring/engines/index.ts';
import { planRuns } from '../src/monitoring/plan.ts';
import { runAsks } from '../src/monitoring/runner.ts';
import { afterRunPublished, publicationFollowUp } from '../src/recommendations/after-publish.ts';
import { artifactId, draftArtifacts } from '../src/recommendations/artifacts.ts';
import { generateRecommendations } from '../src/recommendations/generate.ts';
import { runCli } from './support/cli.ts';
import { createTestContext, type TestContext } from './support/context.ts';
import { type Answer, BrandFixture, insertOrg, times } from './support/fixtures.ts';
import { askDeps, memoryLog, monitoredBrand } from './support/monitoring.ts';

// The generator over hand-worked histories: per type, one brand where the finding must appear
// with exact numbers and one near miss where it must not; then idempotence, supersession,
// concurrency and tenancy.
//
// Every generation runs as of AT: the analytics window is the API's range=30d then, i.e.
// [2026-01-30T12:00Z, 2026-03-01T12:00Z), and the previous window the 30 days before it. Runs
// finish at NOW_RUN (inside the window) or BEFORE_RUN (inside the previous one).
//
// Confidence = 1 − 2 × the half-width of Wilson's 95 % interval (z = 1.959964) over the
// finding's samples; the widths below are worked from Wilson's formula:
//   0 of 4:  [0, 0.489891]            → 1 − 0.489891 = 0.5101 → 0.51
//   3 of 4:  [0.300642, 0.954413]     → 1 − 0.653771 = 0.3462 → 0.35
//   2 of 5:  [0.117621, 0.769276]     → 1 − 0.651655 = 0.3483 → 0.35
//   4 of 10: [0.168180, 0.687326]     → 1 − 0.519146 = 0.4809 → 0.48
//   p = ½, n = 2: [0.094531, 0.905469] → 1 − 0.810938 = 0.1891 → 0.19
// Score = 100 × impact × confidence × (1 − effort / 2); priority high ≥ 40, medium ≥ 20.

const AT = new Date('2026-03-01T12:00:00.000Z');
const NOW_RUN = '2026-02-20T10:00:00.000Z';
const BEFORE_RUN = '2026-01-15T10:00:00.000Z';
const WINDOW = { start: '2026-01-30T12:00:00.000Z', end: '2026-03-01T12:00:00.000Z' };
const LATER = new Date('2026-03-02T12:00:00.000Z');

/** The simulated engine, the drafter of the demo and the tests. */
const simulated = () => createEngines(loadConfig({}).engines).get('simulated') as Engine;

let ctx: TestContext;
let db: Db;
let orgId: number;
let brands = 0;

before(async () => {
  ctx = await createTestContext();
  db = ctx.dbs.primary;
  orgId = await insertOrg(db, 'acme');
});
after(() => ctx.close());

interface Setup {
  b: BrandFixture;
  category: number;
  prompts: number[];
  rival: number;
}

/** A brand "Acme" (website acme.example) with one category, `prompts` prompts and the competitor Rival. */
async function acme(prompts = 2, org = orgId): Promise<Setup> {
  brands++;
  const b = await BrandFixture.insert(db, org, { name: 'Acme', website: 'https://acme.example' });
  const category = await b.category(`Category ${brands}`);
  const ids: number[] = [];
  for (let i = 1; i <= prompts; i++) ids.push(await b.prompt(category, { text: `Best tool ${i}?` }));
  return { b, category, prompts: ids, rival: await b.competitor(category, 'Rival') };
}

const run = (s: Setup, finishedAt: string, answers: Answer[]) =>
  s.b.run({ category: s.category, finishedAt, answers });

const generate = (s: Setup, at = AT) =>
  generateRecommendations(db, { orgId: s.b.orgId, brandId: s.b.brandId }, at);

async function rows(s: Setup): Promise<Selectable<RecommendationsTable>[]> {
  return db
    .selectFrom('recommendations')
    .selectAll()
    .where('org_id', '=', s.b.orgId)
    .where('brand_id', '=', s.b.brandId)
    .orderBy('created_at')
    .orderBy('finding_key')
    .execute();
}

async function ofType(s: Setup, type: string) {
  return (await rows(s)).filter((r) => r.rec_type === type);
}

const figures = (r: Selectable<RecommendationsTable>) => ({
  key: r.finding_key,
  impact: r.impact,
  effort: r.effort,
  confidence: r.confidence,
  score: r.score,
  priority: r.priority,
});

describe('content_gap', () => {
  it('finds a prompt where Rival is named and the brand is not, quoting the numbers', async () => {
    const s = await acme();
    const [p1, p2] = s.prompts as [number, number];
    // P1: Rival in 3 of 4 answers, Acme in none; P2: Acme in all 4.
    await run(s, NOW_RUN, [
      ...times(3, { prompt: p1, mentions: [{ competitor: s.rival, rank: 1 }] }),
      { prompt: p1 },
      ...times(4, { prompt: p2, mentioned: true, rank: 1 }),
    ]);
    const generation = await generate(s);
    const [gap] = await ofType(s, 'content_gap');
    assert.ok(gap);
    assert.deepEqual(
      generation.created.map((c) => c.id),
      [gap.id],
    );
    // Acme's usual rate (its other prompt, P2) 4/4 = 1; on P1 0/4 = 0 ≤ 0.5 × 1; Rival 3/4 = 0.75 ≥ 0.3.
    // impact = 0.75 − 0 = 0.75; confidence (0 of 4) 0.51; effort 0.4;
    // score = 100 × 0.75 × 0.51 × 0.8 = 30.6 → medium.
    assert.deepEqual(figures(gap), {
      key: `content_gap:prompt:${p1}`,
      impact: 0.75,
      effort: 0.4,
      confidence: 0.51,
      score: 30.6,
      priority: 'medium',
    });
    assert.deepEqual(
      [gap.status, gap.subject_kind, gap.subject, gap.category_id],
      ['open', 'prompt', String(p1), s.category],
    );
    assert.deepEqual(JSON.parse(gap.evidence), {
      window: WINDOW,
      promptId: p1,
      promptText: 'Best tool 1?',
      answers: 4,
      brandAnswers: 0,
      brandRate: 0,
      usualMentionRate: 1,
      usualAnswers: 4,
      competitor: 'rival',
      competitorAnswers: 3,
      competitorRate: 0.75,
      competitors: [{ name: 'Rival', answers: 3 }],
    });
    assert.equal(
      gap.why,
      'In the 30 days to 2026-03-01, Rival was named in 3 of 4 answers (75%) to "Best tool 1?" and Acme in 0 (0%), ' +
        'against 100% across its other prompts (4 of 4 answers).',
    );
    // The evidence holds what the artifact drafter reads.
    assert.equal(readDraftEvidence('content_gap', gap.evidence)?.recType, 'content_gap');
    assert.match(gap.measurement_plan, /prompt's brand mention rate over the 30 days before/);
  });

  it('near miss: Rival in 1 of 4 answers (25 %) is under the 30 % a gap needs', async () => {
    const s = await acme();
    const [p1, p2] = s.prompts as [number, number];
    await run(s, NOW_RUN, [
      { prompt: p1, mentions: [{ competitor: s.rival, rank: 1 }] },
      ...times(3, { prompt: p1 }),
      ...times(4, { prompt: p2, mentioned: true, rank: 1 }),
    ]);
    await generate(s);
    assert.deepEqual(await ofType(s, 'content_gap'), []);
  });
});

describe('citation_outreach', () => {
  // P1: four answers naming Rival, three citing g2.com and one other.example; P2: two answers
  // naming Acme, citing acme.example and blog.example.
  const history = (s: Setup, brandCitesG2: boolean) => {
    const [p1, p2] = s.prompts as [number, number];
    return run(s, NOW_RUN, [
      ...times(3, {
        prompt: p1,
        mentions: [{ competitor: s.rival, rank: 1 }],
        citations: ['https://g2.com/crm'],
      }),
      { prompt: p1, mentions: [{ competitor: s.rival, rank: 1 }], citations: ['https://other.example/a'] },
      { prompt: p2, mentioned: true, rank: 1, citations: ['https://acme.example/p'] },
      {
        prompt: p2,
        mentioned: true,
        rank: 1,
        citations: [brandCitesG2 ? 'https://g2.com/acme' : 'https://blog.example/b'],
      },
    ]);
  };

  it('finds a domain cited with Rival and never with the brand', async () => {
    const s = await acme();
    await history(s, false);
    await generate(s);
    const outreach = await ofType(s, 'citation_outreach');
    // g2.com: 3 of 4 competitor citations (0.75 ≥ 0.1), 0 of 2 brand citations (0 ≤ 0.25 × 0.75);
    // other.example has 1 < 3 citations. impact = (0.75 − 0) / 0.5 = 1.5 → 1;
    // confidence (3 of 4) 0.35; effort 0.6; score = 100 × 1 × 0.35 × 0.7 = 24.5 → medium.
    assert.deepEqual(outreach.map(figures), [
      {
        key: 'citation_outreach:domain:g2.com',
        impact: 1,
        effort: 0.6,
        confidence: 0.35,
        score: 24.5,
        priority: 'medium',
      },
    ]);
    const [row] = outreach;
    assert.deepEqual(JSON.parse(row?.evidence ?? '{}'), {
      window: WINDOW,
      domain: 'g2.com',
      competitorCitations: 3,
      competitorCitationTotal: 4,
      competitorShare: 0.75,
      brandCitations: 0,
      brandCitationTotal: 2,
      brandShare: 0,
      // All three g2.com citations are in answers naming Rival.
      competitors: [{ name: 'Rival', citations: 3 }],
    });
    assert.equal(
      row?.why,
      'In the 30 days to 2026-03-01, g2.com had 3 of the 4 citations (75%) in answers naming a competitor ' +
        '(a citation counted once for each competitor its answer names), ' +
        'but 0 of 2 (0%) in answers naming Acme.',
    );
  });

  it('says so when the answers naming the brand cite nothing, rather than "0 of 0 (0%)"', async () => {
    const s = await acme();
    const [p1, p2] = s.prompts as [number, number];
    await run(s, NOW_RUN, [
      ...times(3, {
        prompt: p1,
        mentions: [{ competitor: s.rival, rank: 1 }],
        citations: ['https://g2.com/crm'],
      }),
      ...times(2, { prompt: p2, mentioned: true, rank: 1 }),
    ]);
    await generate(s);
    const [row] = await ofType(s, 'citation_outreach');
    assert.equal(
      row?.why,
      'In the 30 days to 2026-03-01, g2.com had 3 of the 3 citations (100%) in answers naming a competitor ' +
        '(a citation counted once for each competitor its answer names), and answers naming Acme cited no source.',
    );
  });

  it('is drafted from its evidence: by the simulated engine, or from the template', async () => {
    const s = await acme();
    await history(s, false);
    // P1 is a content gap as well; the outreach is the other new recommendation.
    const created = (await generate(s)).created.find((r) => r.rec_type === 'citation_outreach');
    assert.ok(created);
    const [template] = await draftArtifacts(db, created, null, AT);
    const [note] = await db
      .selectFrom('recommendation_artifacts')
      .selectAll()
      .where('recommendation_id', '=', created.id)
      .execute();
    assert.deepEqual(
      [template?.generationPromptVersion, note?.title, note?.target_url],
      ['outreach-note-template@2', 'Outreach note to g2.com', 'https://g2.com/'],
    );
    // The figures of the evidence above, in the template's words (outreach-note-template.v2.md).
    assert.ok(
      note?.body.endsWith(
        'Why this note: from 2026-01-30 to 2026-03-01, g2.com had 3 of 4 citations (75%) in the answers of ' +
          'answer engines that named competitors, and 0 of 2 citations (0%) in those that named Acme. ' +
          'Competitors in whose answers it was cited: Rival (3 citations).',
      ),
      note?.body,
    );
    const [engine] = await draftArtifacts(db, created, simulated(), LATER);
    assert.deepEqual(
      [engine?.action, engine?.generatedByModel, engine?.generationPromptVersion],
      ['updated', 'simulated', 'outreach-note@2'],
    );
  });

  it('near miss: g2.com also holds 1 of the brand’s 2 citations (50 % > 0.25 × 75 %)', async () => {
    const s = await acme();
    await history(s, true);
    await generate(s);
    assert.deepEqual(await ofType(s, 'citation_outreach'), []);
  });
});

describe('sentiment_risk', () => {
  const mention = (sentiment: string): Answer => ({ prompt: 0, mentioned: true, rank: 1, sentiment });
  const on = (prompt: number, answers: Answer[]) => answers.map((a) => ({ ...a, prompt }));

  it('finds an engine whose negative share rose', async () => {
    const s = await acme(1);
    const [p1] = s.prompts as [number];
    // Before: 0 of 5 mentions negative; now: 2 of 5.
    await run(s, BEFORE_RUN, on(p1, times(5, mention('positive'))));
    await run(s, NOW_RUN, on(p1, [...times(2, mention('negative')), ...times(3, mention('neutral'))]));
    await generate(s);
    const risks = await ofType(s, 'sentiment_risk');
    // 2/5 = 0.4 ≥ 0.2, rise 0.4 − 0 ≥ 0.1. impact 0.4; confidence (2 of 5) 0.35; effort 0.5;
    // score = 100 × 0.4 × 0.35 × 0.75 = 10.5 → low.
    assert.deepEqual(risks.map(figures), [
      {
        key: 'sentiment_risk:platform:chatgpt',
        impact: 0.4,
        effort: 0.5,
        confidence: 0.35,
        score: 10.5,
        priority: 'low',
      },
    ]);
    assert.equal(
      risks[0]?.why,
      'In the 30 days to 2026-03-01, 2 of 5 mentions of Acme on ChatGPT were negative (40%), ' +
        'up from 0 of 5 (0%) in the window before.',
    );
    assert.deepEqual(JSON.parse(risks[0]?.evidence ?? '{}'), {
      window: WINDOW,
      model: 'chatgpt',
      mentions: 5,
      negative: 2,
      negativeShare: 0.4,
      previousMentions: 5,
      previousNegative: 0,
      previousNegativeShare: 0,
    });
  });

  it('near miss: 1 of 5 negative before, 2 of 7 now (a rise of 8.6 points < 10)', async () => {
    const s = await acme(1);
    const [p1] = s.prompts as [number];
    await run(s, BEFORE_RUN, on(p1, [mention('negative'), ...times(4, mention('positive'))]));
    await run(s, NOW_RUN, on(p1, [...times(2, mention('negative')), ...times(5, mention('neutral'))]));
    await generate(s);
    assert.deepEqual(await ofType(s, 'sentiment_risk'), []);
  });
});

describe('engine_gap', () => {
  const history = (s: Setup, perplexityMentions: { p1: boolean; weight: [number, number] }) => {
    const [p1, p2] = s.prompts as [number, number];
    const [w1, w2] = perplexityMentions.weight;
    return run(s, NOW_RUN, [
      { prompt: p1, weight: 5, mentioned: true },
      { prompt: p2, weight: 5, mentioned: true },
      {
        prompt: p1,
        weight: w1,
        model: 'perplexity',
        modelLabel: 'Perplexity',
        mentioned: perplexityMentions.p1,
      },
      { prompt: p2, weight: w2, model: 'perplexity', modelLabel: 'Perplexity', mentioned: true },
    ]);
  };

  it('finds an engine where the brand is named far less often than elsewhere', async () => {
    const s = await acme();
    // ChatGPT: 10 of 10 samples mention Acme; Perplexity: 4 of 10 (P1 weight 6 silent, P2 weight 4).
    await history(s, { p1: false, weight: [6, 4] });
    await generate(s);
    const gaps = await ofType(s, 'engine_gap');
    // 0.4 ≤ 0.5 × 1.0 and the others' 1.0 ≥ 0.2; ChatGPT's 1.0 is no gap. Two prompts give no
    // clustered interval, so confidence is Wilson's over 4 of 10: 0.48. impact = 1 − 0.4 = 0.6;
    // effort 0.5; score = 100 × 0.6 × 0.48 × 0.75 = 21.6 → medium.
    assert.deepEqual(gaps.map(figures), [
      {
        key: 'engine_gap:platform:perplexity',
        impact: 0.6,
        effort: 0.5,
        confidence: 0.48,
        score: 21.6,
        priority: 'medium',
      },
    ]);
    assert.equal(
      gaps[0]?.why,
      'In the 30 days to 2026-03-01, Acme was named in 4 of 10 answers (40%) on Perplexity against 10 of 10 (100%) on ChatGPT.',
    );
    assert.equal(JSON.parse(gaps[0]?.evidence ?? '{}').basis, 'mention_rate');
  });

  it('near miss: 6 of 10 on Perplexity is more than half of 100 %', async () => {
    const s = await acme();
    await history(s, { p1: true, weight: [6, 4] });
    await generate(s);
    assert.deepEqual(await ofType(s, 'engine_gap'), []);
  });
});

describe('engine_gap by rank', () => {
  it('finds an engine where the brand ranks far lower than elsewhere', async () => {
    const s = await acme(1);
    const [p1] = s.prompts as [number];
    // Both engines name Acme in 5 of 5 samples (no rate gap); rank 1 on ChatGPT, 4 on Perplexity.
    await run(s, NOW_RUN, [
      { prompt: p1, weight: 5, mentioned: true, rank: 1 },
      { prompt: p1, weight: 5, model: 'perplexity', modelLabel: 'Perplexity', mentioned: true, rank: 4 },
    ]);
    await generate(s);
    const gaps = await ofType(s, 'engine_gap');
    // Rank gap 4 − 1 = 3 ≥ 2 over 5 ranked mentions each: impact 3 / 5 = 0.6; confidence p = ½
    // over 5: Wilson [0.170424, 0.829576] → 1 − 0.659153 = 0.3408 → 0.34; effort 0.5;
    // score = 100 × 0.6 × 0.34 × 0.75 = 15.3 → low.
    assert.deepEqual(gaps.map(figures), [
      {
        key: 'engine_gap:platform:perplexity',
        impact: 0.6,
        effort: 0.5,
        confidence: 0.34,
        score: 15.3,
        priority: 'low',
      },
    ]);
    assert.equal(
      gaps[0]?.why,
      "In the 30 days to 2026-03-01, Acme's average rank was 4 over 5 ranked mentions on Perplexity against 1 over 5 elsewhere.",
    );
    assert.equal(JSON.parse(gaps[0]?.evidence ?? '{}').basis, 'rank');
  });
});

describe('competitor_displacement', () => {
  it('finds a prompt where Rival took the brand’s rank since the previous window', async () => {
    const s = await acme(1);
    const [p1] = s.prompts as [number];
    // Before: Acme rank 1, Rival rank 2 (two answers); now: Rival rank 1, Acme rank 3.
    await run(
      s,
      BEFORE_RUN,
      times(2, { prompt: p1, mentioned: true, rank: 1, mentions: [{ competitor: s.rival, rank: 2 }] }),
    );
    await run(
      s,
      NOW_RUN,
      times(2, { prompt: p1, mentioned: true, rank: 3, mentions: [{ competitor: s.rival, rank: 1 }] }),
    );
    await generate(s);
    const taken = await ofType(s, 'competitor_displacement');
    // One prompt: impact 0.35; confidence p = ½ over Rival's 2 ranked mentions: 0.19; effort 0.5;
    // score = 100 × 0.35 × 0.19 × 0.75 = 4.9875 → 5 → low.
    assert.deepEqual(taken.map(figures), [
      {
        key: 'competitor_displacement:competitor:rival',
        impact: 0.35,
        effort: 0.5,
        confidence: 0.19,
        score: 5,
        priority: 'low',
      },
    ]);
    assert.deepEqual(JSON.parse(taken[0]?.evidence ?? '{}'), {
      window: WINDOW,
      competitor: 'rival',
      competitorRankedMentions: 2,
      prompts: [
        { promptId: p1, previousBrandRank: 1, previousCompetitorRank: 2, brandRank: 3, competitorRank: 1 },
      ],
    });
    assert.equal(
      taken[0]?.why,
      'Average rank, Acme vs Rival, in the window before and in the 30 days to 2026-03-01 (2 ranked mentions of Rival): ' +
        '"Best tool 1?": Acme 1 vs 2 before, 3 vs 1 now.',
    );
    assert.equal(taken[0]?.title, "Rival took Acme's rank on 1 prompt");
  });

  it('near miss: ranks apart by less than the two decimals a finding shows are not ahead', () => {
    // 2001 / 1000 = 2.001 and 2004 / 1000 = 2.004 both show as 2.00; 2.01 is ahead of 2.02.
    const ranked = (rankWeighted: number) => ({ mentions: 1000, rankedWeight: 1000, rankWeighted });
    assert.equal(ahead(ranked(2001), ranked(2004)), false);
    assert.equal(ahead(ranked(2010), ranked(2020)), true);
  });

  it('near miss: Rival ranked ahead in only 1 answer (2 are needed)', async () => {
    const s = await acme(1);
    const [p1] = s.prompts as [number];
    await run(
      s,
      BEFORE_RUN,
      times(2, { prompt: p1, mentioned: true, rank: 1, mentions: [{ competitor: s.rival, rank: 2 }] }),
    );
    await run(s, NOW_RUN, [
      { prompt: p1, mentioned: true, rank: 3, mentions: [{ competitor: s.rival, rank: 1 }] },
      { prompt: p1, mentioned: true, rank: 1 },
    ]);
    await generate(s);
    assert.deepEqual(await ofType(s, 'competitor_displacement'), []);
  });
});

/** The content-gap history of the first test: one finding on P1. */
async function gapBrand(org = orgId): Promise<Setup> {
  const s = await acme(2, org);
  const [p1, p2] = s.prompts as [number, number];
  await run(s, NOW_RUN, [
    ...times(3, { prompt: p1, mentions: [{ competitor: s.rival, rank: 1 }] }),
    { prompt: p1 },
    ...times(4, { prompt: p2, mentioned: true, rank: 1 }),
  ]);
  return s;
}

describe('re-generation', () => {
  it('is idempotent: the same data keeps the same recommendation and adds no row', async () => {
    const s = await gapBrand();
    const first = await generate(s);
    const before = await rows(s);
    const second = await generate(s, new Date('2026-03-01T12:05:00.000Z'));
    assert.deepEqual(second.created, []);
    assert.deepEqual(second.kept, [first.created[0]?.id]);
    assert.deepEqual(second.superseded, []);
    // Five minutes later the window still holds the same run: nothing changed, not even updated_at.
    assert.deepEqual(await rows(s), before);
  });

  it('supersedes an open recommendation whose finding no longer holds, once', async () => {
    const s = await gapBrand();
    const [p1] = s.prompts as [number];
    const first = await generate(s);
    const id = first.created[0]?.id as string;
    // Five more answers to P1, all naming Acme: P1 5/9 = 0.556 > 0.5 × (P2's 4/4 = 1).
    await run(s, '2026-03-02T10:00:00.000Z', times(5, { prompt: p1, mentioned: true, rank: 1 }));
    const later = new Date('2026-03-03T12:00:00.000Z');
    const second = await generate(s, later);
    assert.deepEqual([second.created, second.superseded], [[], [id]]);
    const [row] = await rows(s);
    assert.deepEqual([row?.id, row?.status, row?.superseded_at], [id, 'superseded', later.toISOString()]);
    // The list the API serves leaves it out.
    assert.equal(await countRecommendations(db, s.b.orgId, s.b.brandId), 0);
    // Generating again supersedes nothing more and brings nothing back.
    assert.deepEqual(await generate(s, later), { created: [], kept: [], superseded: [] });
  });

  it('refuses a generation dated before a live recommendation was created, changing nothing', async () => {
    const s = await gapBrand();
    const first = await generate(s);
    const before = await rows(s);
    const created = before[0]?.created_at;
    for (const at of ['0001-01-01T00:00:00.000Z', '2026-02-15T00:00:00.000Z']) {
      await assert.rejects(generate(s, new Date(at)), {
        name: 'GenerationBackdated',
        message: `the brand has a recommendation created at ${new Date(String(created)).toISOString()}; a generation cannot be dated ${at}, before it`,
      });
    }
    assert.deepEqual(await rows(s), before);
    // At its creation or later, the generation runs as before.
    const again = await generate(s, new Date(String(created)));
    assert.deepEqual(again.kept, [first.created[0]?.id]);
  });

  it('refreshes an open recommendation whose figures moved, keeping its id', async () => {
    const s = await gapBrand();
    const [p1] = s.prompts as [number];
    const first = await generate(s);
    const id = first.created[0]?.id as string;
    const [before] = await rows(s);
    // One more P1 answer naming Rival and not Acme: P1 Rival 4 of 5, Acme 0 of 5; P2 still 4/4.
    await run(s, '2026-03-02T10:00:00.000Z', [{ prompt: p1, mentions: [{ competitor: s.rival, rank: 1 }] }]);
    const later = new Date('2026-03-03T12:00:00.000Z');
    assert.deepEqual(await generate(s, later), { created: [], kept: [id], superseded: [] });
    const [row] = await rows(s);
    // impact = 0.8 − 0 = 0.8; confidence (0 of 5): Wilson's upper limit 3.8415 / 8.8415 = 0.4345,
    // so 1 − 0.4345 = 0.5655 → 0.57; effort 0.4; score = 100 × 0.8 × 0.57 × 0.8 = 36.48 → 36.5.
    assert.deepEqual(row && figures(row), {
      key: `content_gap:prompt:${p1}`,
      impact: 0.8,
      effort: 0.4,
      confidence: 0.57,
      score: 36.5,
      priority: 'medium',
    });
    assert.equal(
      row?.why,
      'In the 30 days to 2026-03-03, Rival was named in 4 of 5 answers (80%) to "Best tool 1?" and Acme in 0 (0%), ' +
        'against 100% across its other prompts (4 of 4 answers).',
    );
    assert.deepEqual(
      [row?.id, row?.status, row?.created_at, row?.updated_at],
      [id, 'open', before?.created_at, later.toISOString()],
    );
  });

  it('keeps an acted-on recommendation when its finding no longer holds', async () => {
    const s = await gapBrand();
    const [p1] = s.prompts as [number];
    const id = (await generate(s)).created[0]?.id as string;
    await db
      .updateTable('recommendations')
      .set({ status: 'in_progress', started_at: AT.toISOString() })
      .where('id', '=', id)
      .execute();
    await run(s, '2026-03-02T10:00:00.000Z', times(5, { prompt: p1, mentioned: true, rank: 1 }));
    const generation = await generate(s, new Date('2026-03-03T12:00:00.000Z'));
    assert.deepEqual(generation.superseded, []);
    assert.equal((await rows(s))[0]?.status, 'in_progress');
  });

  it('two generators at once store one recommendation per finding', async () => {
    const s = await gapBrand();
    const results = await Promise.all([generate(s), generate(s), generate(s)]);
    const live = await rows(s);
    assert.equal(live.length, 1);
    assert.deepEqual(
      results.flatMap((r) => r.created.map((c) => c.id)),
      [live[0]?.id],
    );
  });
});

describe('a generator that waits for the brand lock', () => {
  it('reads the analytics it acts on after the lock, not before', async () => {
    const s = await gapBrand();
    const [p1] = s.prompts as [number];
    const id = (await generate(s)).created[0]?.id as string;
    // Another writer holds the brand's lock while `recommendations generate` (another process)
    // starts; before it lets go, the gap's prompt is archived, so the finding no longer holds.
    const generator = (at: string) =>
      runCli(
        ctx.config.databaseUrl,
        'recommendations',
        'generate',
        '--org',
        'acme',
        '--brand',
        String(s.b.brandId),
        '--at',
        at,
      );
    const archive = `update prompts set is_archived = 1 where id = ${p1}`;
    const lock = `update brands set updated_at = updated_at where id = ${s.b.brandId}`;
    let run: Awaited<ReturnType<typeof generator>>;
    if (ctx.dbs.dialect === 'sqlite') {
      const holder = new DatabaseSync(ctx.config.databaseUrl.slice('sqlite:'.length));
      holder.exec('begin immediate');
      holder.exec(lock);
      const generating = generator('2026-03-01T12:05:00.000Z');
      // Long enough for the process to start and read (well under SQLite's 5 s busy timeout).
      await sleep(1_500);
      holder.exec(archive);
      holder.exec('commit');
      holder.close();
      run = await generating;
    } else {
      const holder = new pg.Client({ connectionString: ctx.config.databaseUrl });
      await holder.connect();
      try {
        await holder.query('begin');
        await holder.query(lock);
        const generating = generator('2026-03-01T12:05:00.000Z');
        // Until the generator's own update of the brand waits for this transaction's lock.
        for (let i = 0; i < 300; i++) {
          const { rows } = await holder.query(
            "select count(*)::int as n from pg_stat_activity where datname = current_database() and wait_event_type = 'Lock'",
          );
          if (rows[0].n > 0) break;
          await sleep(20);
        }
        await holder.query(archive);
        await holder.query('commit');
        run = await generating;
      } finally {
        await holder.end();
      }
    }
    assert.equal(run.status, 0, run.stderr);
    const [row] = await rows(s);
    assert.deepEqual([row?.id, row?.status], [id, 'superseded']);
  });
});

describe('tenancy', () => {
  it('a generator run for one organization never reads another’s rows', async () => {
    // Globex has a brand just like Acme's with a content gap; Acme's own brand has no data.
    const globex = await insertOrg(db, 'globex');
    const theirs = await gapBrand(globex);
    const ours = await acme();
    const generation = await generate(ours);
    assert.deepEqual(generation, { created: [], kept: [], superseded: [] });
    // No row for either brand, under either organization.
    const all = () =>
      db
        .selectFrom('recommendations')
        .select(['org_id', 'brand_id'])
        .where('brand_id', 'in', [ours.b.brandId, theirs.b.brandId])
        .execute();
    assert.deepEqual(await all(), []);
    // Naming Globex's brand under Acme's organization finds nothing to generate for.
    await assert.rejects(generateRecommendations(db, { orgId, brandId: theirs.b.brandId }, AT), /Not found/);
    assert.deepEqual(await all(), []);
  });
});

describe('after a run is published', () => {
  it('stopped by its signal, says so to its caller instead of logging a failure, and drafts nothing', async () => {
    const s = await gapBrand();
    const scope = { orgId, brandId: s.b.brandId, runId: 1 };
    const log = memoryLog();
    const stop = new AbortController();
    stop.abort('SIGINT');
    await assert.rejects(
      afterRunPublished(db, scope, AT, simulated(), log, stop.signal),
      /^DraftInterrupted: interrupted \(SIGINT\) while drafting the artifacts of recommendation [0-9a-f-]+: nothing was written for it$/,
    );
    assert.deepEqual(log.lines, []);
    // The recommendation was generated; its brief is left to the next drafter.
    const [gap] = await ofType(s, 'content_gap');
    assert.ok(gap);
    assert.deepEqual(
      await db
        .selectFrom('recommendation_artifacts')
        .select('id')
        .where('recommendation_id', '=', gap.id)
        .execute(),
      [],
    );
  });

  it('the drafting engine writes the new content gap’s brief; a second publication asks nothing', async () => {
    const s = await gapBrand();
    const engine = simulated();
    const scope = { orgId, brandId: s.b.brandId, runId: 1 };
    const done = await afterRunPublished(db, scope, AT, engine, memoryLog());
    const [gap] = await ofType(s, 'content_gap');
    assert.deepEqual(
      done?.drafted.map((d) => [d.artifactId, d.action, d.generatedByModel, d.generationPromptVersion]),
      [[artifactId(gap?.id ?? '', 'content_brief'), 'created', 'simulated', 'content-brief@1']],
    );
    // The finding is kept, not new: nothing to draft.
    assert.deepEqual((await afterRunPublished(db, scope, LATER, engine, memoryLog()))?.drafted, []);
  });

  it('drafts a kept recommendation that has no artifact, and replaces its template once an engine drafts', async () => {
    const s = await gapBrand();
    // A generation killed after its commit and before its drafting: the recommendation, no artifact.
    const generation = await generate(s);
    const [gap] = await ofType(s, 'content_gap');
    const brief = artifactId(gap?.id ?? '', 'content_brief');
    const scope = { orgId, brandId: s.b.brandId, runId: 1 };
    // The next publication, without an engine: the kept recommendation gets the template.
    const first = await afterRunPublished(db, scope, LATER, null, memoryLog());
    assert.deepEqual(first?.generation.kept, [generation.created[0]?.id]);
    assert.deepEqual(
      first?.drafted.map((d) => [d.artifactId, d.action, d.generatedByModel]),
      [[brief, 'created', '']],
    );
    // With an engine, the next one replaces the template with the engine's draft; then nothing.
    const engine = simulated();
    const second = await afterRunPublished(db, scope, LATER, engine, memoryLog());
    assert.deepEqual(
      second?.drafted.map((d) => [d.artifactId, d.action, d.generatedByModel]),
      [[brief, 'updated', 'simulated']],
    );
    assert.deepEqual((await afterRunPublished(db, scope, LATER, engine, memoryLog()))?.drafted, []);
  });

  it('runs import --publish regenerates the recommendations of the brands whose runs it published', async () => {
    const s = await acme();
    const [p1, p2] = s.prompts as [number, number];
    // The content gap's answers (P1: Rival in 3 of 4, Acme in none; P2: Acme in all 4), captured
    // yesterday: the generation reads the 30 days to now.
    const capturedAt = new Date(Date.now() - 86_400_000).toISOString();
    const line = (prompt: number, answerText: string, i: number) =>
      JSON.stringify({
        organization: 'acme',
        prompt,
        run: `cli-publish-${s.b.brandId}`,
        externalKey: `cli-publish-${s.b.brandId}-${prompt}-${i}`,
        model: 'chatgpt',
        surface: 'api',
        capturedAt,
        answerText,
      });
    const dir = mkdtempSync(join(tmpdir(), 'sightline-publish-'));
    const file = join(dir, 'answers.ndjson');
    writeFileSync(
      file,
      [
        ...[0, 1, 2].map((i) => line(p1, 'Rival is the tool to pick.', i)),
        line(p1, 'There are many tools to pick from.', 3),
        ...[0, 1, 2, 3].map((i) => line(p2, 'Acme is the tool to pick.', i)),
      ].join('\n'),
    );
    try {
      const imported = await runCli(ctx.config.databaseUrl, 'runs', 'import', file, '--publish');
      assert.equal(imported.status, 0, imported.stderr);
      const [gap] = await ofType(s, 'content_gap');
      assert.equal(gap?.finding_key, `content_gap:prompt:${p1}`);
      assert.equal(gap?.status, 'open');
      // Nothing new to publish the second time: the same one recommendation.
      const again = await runCli(ctx.config.databaseUrl, 'runs', 'import', file, '--publish');
      assert.equal(again.status, 0, again.stderr);
      assert.deepEqual(
        (await rows(s)).map((r) => r.id),
        [gap?.id],
      );
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('a monitoring run that publishes itself regenerates the brand’s recommendations', async () => {
    const brand = await monitoredBrand(db, orgId, 2);
    const test = askDeps(db, {});
    // The follow-up `sightline monitor run` and the worker pass (cli/commands/monitor.ts askDeps).
    const deps = { ...test, afterPublish: publicationFollowUp(db, test.clock, null, test.log) };
    const monitoring = await findBrandMonitoring(db, orgId, brand.brandId);
    assert.ok(monitoring);
    const [planned] = await planRuns(
      db,
      monitoring,
      { engines: ['simulated'], samples: 1 },
      deps.configured,
      new Date(),
    );
    assert.ok(planned);
    await runAsks(deps, {
      runIds: [planned.runId],
      concurrency: 2,
      pollMs: 20,
      done: async () => (await findMonitorRun(db, planned.runId))?.status !== 'running',
    });
    const line = test.log.lines.find((l) => l.fields.event === 'recommendations_generated');
    assert.deepEqual(
      [line?.level, line?.fields.brandId, line?.fields.runId],
      ['info', brand.brandId, planned.runId],
    );
  });

  it('generates and drafts the new content gap’s brief (a template without an engine), and a failure is logged without throwing', async () => {
    const s = await gapBrand();
    const log = memoryLog();
    const done = await afterRunPublished(db, { orgId, brandId: s.b.brandId, runId: 1 }, AT, null, log);
    assert.equal(done?.generation.created.length, 1);
    assert.deepEqual(
      done?.drafted.map((d) => [d.artifactType, d.action, d.generatedByModel, d.generationPromptVersion]),
      [['content_brief', 'created', '', 'content-brief-template@1']],
    );
    assert.equal(log.lines[0]?.fields.event, 'recommendations_generated');
    assert.equal(log.lines[0]?.fields.drafted, 1);

    const failing = memoryLog();
    assert.equal(await afterRunPublished(db, { orgId, brandId: 999_999, runId: 2 }, AT, null, failing), null);
    assert.deepEqual(
      failing.lines.map((l) => [l.level, l.fields.event, l.message]),
      [['error', 'recommendations_failed', 'run 2 is published, but its recommendations were not generated']],
    );
  });
});
