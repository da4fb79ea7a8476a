import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import packageJson from '../package.json' with { type: 'json' };
import { buildApp } from '../src/app.ts';
import type { ReportFontFile } from '../src/config.ts';
import { createBrand } from '../src/db/catalog/brands.ts';
import type { App } from '../src/http/types.ts';
import { generateReport } from '../src/reports/generate.ts';
import type { GenerateRequest } from '../src/reports/request.ts';
import { bearer, createTestContext, type TestContext } from './support/context.ts';
import { mintKey } from './support/fixtures.ts';
import { writeBoxFont } from './support/fonts.ts';
import { pdfPages } from './support/pdf.ts';
import { DONE, type Fixture, NOW, seedReportFixture } from './support/report-scenario.ts';

// Each report type generated from the hand-worked fixture (reports-generate-fixture.ts): its PDF
// parses, has the expected pages and carries the brand's figures as text; its HTML carries the
// same figures and references nothing outside itself; and every figure equals the API's for the
// same brand, window and moment.

interface Rendered {
  artifactId: number;
  /** What the generator reported no font had. */
  missingGlyphs: string[];
  /** Text items of each PDF page. */
  pages: string[][];
  html: string;
}

// Independent of src/reports/format.ts: how a reader would write the API's figures.
const pct = (fraction: number) => `${(fraction * 100).toFixed(2)}%`;
const signed = (text: string, value: number) => (value > 0 ? `+${text}` : text);
const ratePts = (delta: number) => `${signed((delta * 100).toFixed(2), delta)} pts`;
const scorePts = (delta: number) => `${signed(delta.toFixed(1), delta)} pts`;

describe('report generation: documents and figures', () => {
  let ctx: TestContext;
  let api: App;
  let key: string;
  let fx: Fixture;
  const reports = new Map<string, Rendered>();

  async function render(
    reportType: string,
    extra: Partial<GenerateRequest> = {},
    fonts: readonly ReportFontFile[] = [],
  ): Promise<Rendered> {
    const result = await generateReport(
      ctx.dbs.primary,
      {
        orgId: fx.orgId,
        brandId: fx.brandId,
        categoryId: null,
        reportType,
        format: 'pdf',
        userId: fx.userId,
        branded: true,
        ...extra,
      },
      { now: NOW, clock: () => DONE, fonts },
    );
    assert.equal(result.status, 'complete', result.errorMessage);
    const files = await ctx.dbs.primary
      .selectFrom('report_files')
      .select(['kind', 'content'])
      .where('artifact_id', '=', result.artifactId)
      .execute();
    const pdf = files.find((f) => f.kind === 'pdf');
    const html = files.find((f) => f.kind === 'html');
    assert.ok(pdf && html, 'a PDF report stores its PDF and its HTML');
    return {
      artifactId: result.artifactId,
      missingGlyphs: result.missingGlyphs,
      pages: await pdfPages(pdf.content),
      html: Buffer.from(html.content).toString('utf8'),
    };
  }

  const get = async (url: string) => {
    const response = await api.inject({ url, headers: bearer(key) });
    assert.equal(response.statusCode, 200, response.body);
    return response.json();
  };

  before(async () => {
    ctx = await createTestContext();
    fx = await seedReportFixture(ctx.dbs.primary);
    key = await mintKey(ctx.dbs.primary, fx.orgId);
    // The API as of the same moment the reports are generated.
    api = await buildApp(ctx.config, { databases: ctx.dbs, logger: false, clock: () => NOW });
    await api.ready();
    for (const type of [
      'executive_summary_v2',
      'in_depth_report',
      'lead_gen_exec_v1',
      'weekly_ai_visibility_update',
    ]) {
      reports.set(type, await render(type));
    }
  });

  after(async () => {
    await api.close();
    await ctx.close();
  });

  const report = (type: string) => reports.get(type) as Rendered;
  const allItems = (r: Rendered) => r.pages.flat();
  const text = (r: Rendered) => r.pages.map((p) => p.join(' ')).join('\n');

  it('puts the brand, the window and "page N of M" on every page', () => {
    for (const [type, r] of reports) {
      const window =
        type === 'weekly_ai_visibility_update'
          ? 'Last 7 days · 9 Mar 2026 – 16 Mar 2026'
          : 'Last 30 days · 14 Feb 2026 – 16 Mar 2026';
      r.pages.forEach((items, i) => {
        assert.ok(items.includes('Brightdesk'), `${type} page ${i + 1} names the brand`);
        assert.ok(items.includes(window), `${type} page ${i + 1} states the window`);
        assert.ok(items.includes(`Page ${i + 1} of ${r.pages.length}`), `${type} page ${i + 1} is numbered`);
      });
    }
  });

  it('executive summary: two pages with the headline figures worked out by hand', () => {
    const r = report('executive_summary_v2');
    assert.equal(r.pages.length, 2);
    const items = allItems(r);
    // Latest prompt scores: p1 R5 (1 + 1)/2 = 100; p2 R5 (0.85 + 0.55)/2 = 70; p3 R4 (2·1 + 0.5)/3 = 83.33
    // → score (100 + 70 + 83.33)/3 = 84.44 → 84.4. Boundary (last runs at or before 14 Feb: R1, R2):
    // p1 (0 + 0.7)/2 = 35, p2 (0.85 + 0)/2 = 42.5, p3 (1 + 0)/2 = 50 → 42.5; delta 41.94 → +41.9.
    assert.ok(items.includes('84.4'));
    assert.ok(items.includes('+41.9 pts'));
    // Mention rate: R3–R5 weigh 4 + 3 + 4 = 11, mentioning weight 3 + 3 + 4 = 10 → 0.9091;
    // previous (R1, R2) 3/6 = 0.5 → +0.4091.
    assert.ok(items.includes('90.91%'));
    assert.ok(items.includes('+40.91 pts'));
    // Average rank: R3 2+1+3, R4 1·w2, R5 1+1+2+4 → 16/9 = 1.78; previous (3 + 2 + 1)/3 = 2 → -0.22.
    assert.ok(items.includes('1.78'));
    assert.ok(items.includes('-0.22'));
    // Share of voice: brand 10, Zendesk 4 + 3 = 7, Freshdesk 2 + 1 = 3, Intercom 3 → 10/23 = 43.48%;
    // previously brand 3 of 3 + 4 + 1 + 2 = 10 → 30% → +13.48.
    assert.ok(items.includes('43.48%'));
    assert.ok(items.includes('+13.48 pts'));
    assert.ok(items.includes('30.43%'), 'Zendesk 7/23');
    // Engines: ChatGPT values .85 .7 2·1 1 .85 over weight 6 → 90.0, all mentioned; Perplexity
    // 1 0 .5 1 .55 over 5 → 61.0, 4 of 5 mentioned.
    for (const figure of ['ChatGPT', '90.0', '100.00%', 'Perplexity', '61.0', '80.00%']) {
      assert.ok(items.includes(figure), figure);
    }
    const all = text(r);
    assert.match(all, /Positive 6/, 'sentiment: positive 2 + 2 + 2 (R4 ChatGPT weighs 2)');
    assert.match(all, /Negative 2/);
    assert.match(all, /Top three recommendations/);
    for (const title of [
      'Publish a Brightdesk vs Zendesk comparison page',
      'Collect reviews on G2',
      'Add pricing structured data',
    ]) {
      assert.ok(all.includes(title), title);
    }
    assert.ok(!all.includes('Launch the help centre'), 'implemented recommendations are not open');
    // p1: rank (2 + 1)/2 = 1.5 → 2 in R3, 1 in R5.
    assert.match(all, /"Best help desk for startups\?": Rank 2 → 1 \(improved\)/);
  });

  it('in-depth report: categories, prompt changes and every open recommendation with its evidence', () => {
    const r = report('in_depth_report');
    assert.equal(r.pages.length, 6);
    const all = text(r);
    for (const heading of [
      'Category: Help desk software',
      'Category: Live chat',
      'Prompt-level changes',
      'Open recommendations',
    ]) {
      assert.ok(all.includes(heading), heading);
    }
    const items = allItems(r);
    // Help desk software: p1 100, p2 70 → 85.0; boundary R1 (35 + 42.5)/2 = 38.75 → +46.25 → +46.3.
    // Mention rate 7 of 8 = 87.50% against R1's 2 of 4 → +37.50.
    for (const figure of ['85.0', '+46.3 pts', '87.50%', '+37.50 pts'])
      assert.ok(items.includes(figure), figure);
    // Live chat: p3 83.3 against R2's 50 → +33.3; all 3 weight mentioned against R2's 1 of 2 → +50.00.
    for (const figure of ['83.3', '+33.3 pts', '100.00%', '+50.00 pts'])
      assert.ok(items.includes(figure), figure);
    // p1: rank 2 → 1 as above; p2's Perplexity answer: not mentioned in R3, rank 4 in R5.
    assert.ok(items.includes('Rank 2 → 1 (improved)'));
    assert.ok(items.includes('Perplexity started mentioning Brightdesk'));
    assert.ok(all.includes('Comparison page brief (page_brief, ready)'), 'artifacts are evidence');
    assert.ok(
      all.includes('mention_rate (g2.com): 0.4 → 0.55 over 28 days, medium confidence'),
      'outcomes too',
    );
    // Sources: g2.com cited 4 times of 8 (www. folded) over 3 distinct URLs.
    assert.ok(items.includes('g2.com') && items.includes('50.00%'));
    // The brand's 30 days (R3–R5) cite g2.com, brightdesk.io, reddit.com, capterra.com and
    // ycombinator.com; Live chat's only citation is R4's g2.com/c.
    assert.ok(all.includes('Top cited sources (8 citations of 5 domains)'));
    assert.ok(all.includes('Top cited sources (1 citation of 1 domain)'));
    // p1 and p2 changed from R3 to R5, p3 from R2 to R4 (Perplexity started mentioning Brightdesk).
    assert.ok(all.includes('3 of 3 monitored prompts changed between their last two scored runs.'));
  });

  it('lead-gen brief: where the brand stands against named competitors, prepared by the organization', () => {
    const r = report('lead_gen_exec_v1');
    assert.equal(r.pages.length, 2);
    const items = allItems(r);
    assert.ok(items.includes('Prepared by Acme Marketing'));
    assert.ok(items.includes('Brightdesk (you)'));
    // Zendesk: 7 mentions at ranks 1 2 1 1 (R3) and 2 1 1 (R5) → 9/7 = 1.29.
    for (const figure of ['Zendesk', '30.43%', '7', '1.29']) assert.ok(items.includes(figure), figure);
    assert.match(text(r), /Biggest opportunities/);
    // The table's Score is each name's over every answer, not the headline's mean over prompts.
    assert.match(text(r).replace(/\s+/g, ' '), /Score in this table weighs every answer of the window alike/);
    assert.match(
      text(r),
      /Perplexity mentions Brightdesk in 80\.00% of answers, against 100\.00% on ChatGPT/,
    );
  });

  it('weekly update: the last seven days against the seven before, changes and new citations', () => {
    const r = report('weekly_ai_visibility_update');
    assert.equal(r.pages.length, 2);
    const items = allItems(r);
    // Score 84.4 against 70.3 as of R4 (the last run on or before 9 Mar 12:00) → +14.17 → +14.2.
    assert.ok(items.includes('+14.2 pts'));
    // Rank: R5 (1 + 1 + 2 + 4)/4 = 2.00 against R4's 1.00 → +1.00 (worse).
    for (const figure of ['2.00', '1.00', '+1.00']) assert.ok(items.includes(figure), figure);
    const all = text(r);
    // ycombinator.com (news. folded) is cited in R5 only; g2.com was cited in R4 as well.
    assert.match(all, /New citations/);
    assert.ok(items.includes('ycombinator.com'));
    assert.ok(all.includes('Best help desk for startups?'), "p1's latest run (R5) is this week");
    // This week only R5 ran, on p1 and p2: two prompts give no interval, so the week-on-week table
    // words the rank's change as no news.
    assert.match(
      all.replace(/\s+/g, ' '),
      /Average rank 2\.00 1\.00 held steady — within the sampling noise \(\+1\.00\)/,
    );
    assert.ok(!all.includes('Best live chat widget?'), "p3's latest run (R4, 5 Mar) is not");
  });

  it('words a change within the sampling noise as such, with its figure', async () => {
    // Mention rate per prompt now (R3–R5): p1 4 of 4, p2 3 of 4, p3 3 of 3 (R4 ChatGPT weighs 2)
    // → 10/11; before (R1, R2) 1 of 2 each → 0.5. Before, the prompts agree: design effect 1,
    // effective 6 × 0.207503 (t with 2 df) = 1.245018, half-width at ½ 1.959964 /
    // (2·√(1.245018 + 3.841459)) = 0.434520, high 0.934520. Now: residuals 4 − 4·10/11 = 0.363636,
    // 3 − 4·10/11 = −0.636364, 3 − 3·10/11 = 0.272727, squares 0.611570; variance (3/2)·0.611570 /
    // 11² = 0.0075814 over the binomial (10/11)(1/11) / 11 = 0.0075131: design effect 1.009091,
    // effective 11 / 1.009091 × 0.207503 = 2.261970; Wilson low 0.651612 − 0.343964 = 0.307647.
    // The difference 0.409091, its low end 0.409091 − √((0.909091 − 0.307647)² + 0.434520²)
    // = 0.409091 − 0.741985 < 0: a 40.91-point rise that three prompts cannot tell from noise.
    const { metrics } = await get(`/api/brands/${fx.brandId}/analytics/?range=30d`);
    assert.deepEqual([metrics.mentionRate.delta, metrics.mentionRate.significance], [0.4091, 'within_noise']);
    const r = report('executive_summary_v2');
    assert.match(
      text(r),
      /Mention rate held steady — within the sampling noise \(\+40\.91 pts\) vs the previous 30 days, from 50\.00% to 90\.91%\./,
    );
    // The headline card keeps the figure and says why it is no news.
    assert.ok(allItems(r).includes('+40.91 pts'));
    assert.ok(allItems(r).includes('within the sampling noise'));
  });

  it('words a within-noise score change and source share changes as such, in bullets and tables', async () => {
    // Score (the prompt-mean interval, methodology.md "Uncertainty"; t with 2 df: df factor
    // 0.207503). Latest prompt scores 100, 70, 83.33 on 2, 2, 3 samples: mean 0.844444,
    // deviations 0.155556, −0.144444, −0.011111, squares 0.045185, variance (3/2)·0.045185 / 9 =
    // 0.007531 under the binomial 0.844444·0.155556 / (9 / (½ + ½ + ⅓) = 6.75) = 0.019460: design
    // effect 1, effective 6.75 × 0.207503 = 1.400645; Wilson low 0.592030 − 0.399964 = 0.192066.
    // Boundary 35, 42.5, 50 on 2 samples each: 0.425, variance (3/2)·0.01125 / 9 = 0.001875 under
    // 0.425·0.575 / 6 = 0.040729, effective 6 × 0.207503 = 1.245016; Wilson high 0.481645 +
    // 0.433322 = 0.914967. The difference 0.419444, its low end 0.419444 − √((0.844444 −
    // 0.192066)² + (0.914967 − 0.425)²) = 0.419444 − 0.815883 < 0.
    const history = await get(`/api/brands/${fx.brandId}/score-history/?range=30d`);
    assert.deepEqual(
      [history.windowedDelta.delta, history.windowedDelta.significance],
      [41.9, 'within_noise'],
    );
    const summary = text(report('executive_summary_v2'));
    assert.match(
      summary,
      /Visibility score held steady — within the sampling noise \(\+41\.9 pts\) over the last 30 days, from 42\.5 to 84\.4\./,
    );
    // The headline card keeps the figure, uncoloured, and says why it is no news.
    assert.ok(allItems(report('executive_summary_v2')).includes('+41.9 pts'));

    // Sources: g2.com 4 of 8 citations now (R3 www.g2.com/a and g2.com/b, R4 g2.com/c, R5
    // www.g2.com/a) against 2 of 3 before (R1: www.g2.com/a, g2.com/b, capterra.com/x): 0.5 −
    // 0.666667 = −16.67 pts; capterra.com 1 of 8 against 1 of 3: −20.83 pts. Before, only p1 and
    // p2 cited anything: two prompts give no interval, so neither change can show a move.
    const { sources } = await get(`/api/brands/${fx.brandId}/analytics/?range=30d`);
    const g2 = sources.items.find((item: { domain: string }) => item.domain === 'g2.com');
    assert.deepEqual([g2.shareDelta, g2.shareDeltaSignificance], [-0.1667, 'within_noise']);
    // The table cell wraps, so its words are read from the page's text in order.
    const inDepth = text(report('in_depth_report')).replace(/\s+/g, ' ');
    assert.match(inDepth, /g2\.com 4 3 50\.00% held steady — within the sampling noise \(-16\.67 pts\)/);
    assert.match(
      inDepth,
      /capterra\.com 1 1 12\.50% held steady — within the sampling noise \(-20\.83 pts\)/,
    );
  });

  it('says under the share-of-voice bars which changes are within the sampling noise', async () => {
    // Brand share of voice per prompt now (R3–R5), brand mentions of all entities' mentions: p1
    // 4 of 7, p2 3 of 10, p3 3 of 6 → 10 / 23 = 0.434783. Residuals 4 − 3.043478 = 0.956522,
    // 3 − 4.347826 = −1.347826, 3 − 2.608696 = 0.391304, squares 2.884688; variance (3/2)·2.884688 /
    // 23² = 0.008180 under the binomial 0.434783·0.565217 / 23 = 0.010685: design effect 1,
    // effective 23 × 0.207503 = 4.772569; Wilson: z²/n = 0.804904, centre (0.434783 + 0.402452) /
    // 1.804904 = 0.463867, half 1.085911·√(0.245747 / 4.772569 + 3.841459 / (4·4.772569²)) =
    // 0.332323, low 0.131544. Before (R1, R2): p1 1 of 3, p2 1 of 4, p3 1 of 3 → 0.3; residuals
    // 0.1, −0.2, 0.1, variance (3/2)·0.06 / 10² = 0.0009 under 0.21 / 10: effective 10 × 0.207503 =
    // 2.07503; centre (0.3 + 0.925642) / 2.851284 = 0.429861, half 0.687397·√(0.21 / 2.07503 +
    // 3.841459 / (4·2.07503²)) = 0.391422, high 0.821283. The difference 0.134783, its low end
    // 0.134783 − √((0.434783 − 0.131544)² + (0.821283 − 0.3)²) = 0.134783 − 0.603068 < 0.
    const analytics = await get(`/api/brands/${fx.brandId}/analytics/?range=30d`);
    const own = analytics.shareOfVoice.visible.find((e: { isUserBrand: boolean }) => e.isUserBrand);
    assert.deepEqual([own.shareDelta, own.shareDeltaSignificance], [0.1348, 'within_noise']);
    assert.match(
      text(report('executive_summary_v2')).replace(/\s+/g, ' '),
      /Held steady — within the sampling noise: Brightdesk \(\+13\.48 pts\)/,
    );
    assert.ok(
      report('executive_summary_v2').html.includes('Held steady — within the sampling noise: Brightdesk'),
    );
  });

  it('renders HTML with the same figures and nothing fetched from outside', () => {
    for (const [type, r] of reports) {
      assert.ok(r.html.startsWith('<!DOCTYPE html>'), type);
      assert.doesNotMatch(
        r.html,
        /\b(?:src|href|action|poster|srcset)\s*=\s*["']?\s*(?:https?:)?\/\//i,
        type,
      );
      assert.doesNotMatch(r.html, /@import|url\s*\(|<script|<link|<iframe|<img/i, type);
      assert.match(r.html, /@media print/, `${type} is printable`);
      assert.match(r.html, /<svg/, `${type} has inline charts`);
      for (const item of new Set(allItems(r))) {
        if (/^[+-]?\d[\d,.]*(%| pts)?$/.test(item))
          assert.ok(r.html.includes(item), `${type}: ${item} in the HTML`);
      }
    }
  });

  it('fills the artifact: label, agent, cost, evidence, branding, who and when', async () => {
    // Runs cited: score-history points R3, R4, R5 (R5 also the as-of run); prompt changes compare
    // p1 and p2 R5 with R3, p3 R4 with R2 → {R2, R3, R4, R5}. The lead-gen brief shows no prompt
    // changes → {R3, R4, R5}; the weekly update charts R5 and compares p1, p2 (R5 with R3) → 2.
    const expected: Record<string, [string, number]> = {
      executive_summary_v2: ['Executive summary', 4],
      in_depth_report: ['In-depth report', 4],
      lead_gen_exec_v1: ['Lead-gen executive brief', 3],
      weekly_ai_visibility_update: ['Weekly AI visibility update', 2],
    };
    for (const [type, r] of reports) {
      const body = await get(`/api/reports/${r.artifactId}/`);
      const [label, evidence] = expected[type] as [string, number];
      assert.equal(body.status, 'complete');
      assert.equal(body.reportType, type);
      assert.equal(body.reportTypeLabel, label);
      assert.equal(body.format, 'pdf');
      assert.equal(body.agentName, 'sightline-reports');
      assert.equal(body.agentVersion, packageJson.version);
      assert.equal(body.costUsd, '0.00');
      assert.equal(body.evidenceRefsCount, evidence, type);
      assert.equal(body.isBranded, true);
      assert.equal(body.generatedByEmail, fx.userEmail);
      assert.equal(body.createdAt, NOW.toISOString());
      assert.equal(body.completedAt, DONE.toISOString());
      assert.equal(body.errorMessage, '');
      assert.match(body.downloadUrl, new RegExp(`/api/reports/${r.artifactId}/download/$`));
    }
  });

  it('states every figure exactly as the API serves it for the same brand, window and moment', async () => {
    const checks: [string, string, string][] = [
      ['executive_summary_v2', `/api/brands/${fx.brandId}`, '30d'],
      ['in_depth_report', `/api/brands/${fx.brandId}`, '30d'],
      ['lead_gen_exec_v1', `/api/brands/${fx.brandId}`, '30d'],
      ['weekly_ai_visibility_update', `/api/brands/${fx.brandId}`, '7d'],
      ['in_depth_report', `/api/categories/${fx.categories.c1}`, '30d'],
      ['in_depth_report', `/api/categories/${fx.categories.c2}`, '30d'],
    ];
    for (const [type, base, range] of checks) {
      const analytics = await get(`${base}/analytics/?range=${range}`);
      const history = await get(`${base}/score-history/?range=${range}`);
      const items = new Set(allItems(report(type)));
      const expect = (figure: string, what: string) =>
        assert.ok(items.has(figure), `${type} ${base} ${range}: ${what} ${figure} is in the PDF`);

      const { windowedDelta } = history;
      expect(windowedDelta.latestScore.toFixed(1), 'latestScore');
      expect(scorePts(windowedDelta.delta), 'windowed delta');
      const { mentionRate, avgRank } = analytics.metrics;
      expect(pct(mentionRate.value), 'mentionRate');
      expect(ratePts(mentionRate.delta), 'mentionRate delta');
      expect(avgRank.value.toFixed(2), 'avgRank');
      expect(signed(avgRank.delta.toFixed(2), avgRank.delta), 'avgRank delta');
      for (const entry of analytics.shareOfVoice.visible) {
        expect(pct(entry.share), `${entry.name} share`);
        if (entry.shareDelta !== null) expect(ratePts(entry.shareDelta), `${entry.name} shareDelta`);
      }
      for (const engine of analytics.platforms.apiPlatforms) {
        expect(engine.score.toFixed(1), `${engine.modelLabel} score`);
        expect(pct(engine.mentionRate), `${engine.modelLabel} mentionRate`);
      }
      if (type === 'in_depth_report') {
        for (const source of analytics.sources.items) expect(pct(source.share), `${source.domain} share`);
      }
      const lastPoint = history.points.at(-1);
      if (lastPoint) expect(lastPoint.score.toFixed(1), 'the trend line ends on the latest point');
    }
  });

  it('reports on one category when asked, and without the organization when unbranded', async () => {
    const r = await render('executive_summary_v2', {
      categoryId: fx.categories.c2,
      branded: false,
      format: 'pdf',
    });
    const items = allItems(r);
    assert.ok(items.includes('Brightdesk · Live chat'));
    assert.ok(!items.some((item) => item.includes('Acme Marketing')), 'unbranded: no organization name');
    const analytics = await get(`/api/categories/${fx.categories.c2}/analytics/?range=30d`);
    assert.ok(items.includes(pct(analytics.metrics.mentionRate.value)));
    const body = await get(`/api/reports/${r.artifactId}/`);
    assert.equal(body.categoryId, String(fx.categories.c2));
    assert.equal(body.isBranded, false);
  });

  it('lists only the prompt changes whose latest run ended before a past window ends', async () => {
    // 2026-03-02 to 2026-03-10 holds R4 (p3: R2 → R4, Perplexity started mentioning Brightdesk);
    // p1's and p2's latest run is R5 (2026-03-15), after it: their R3 → R5 changes are later news.
    const r = await render('in_depth_report', { range: 'custom', start: '2026-03-02', end: '2026-03-10' });
    const items = allItems(r);
    assert.ok(items.includes('Perplexity started mentioning Brightdesk'));
    assert.ok(!items.includes('Rank 2 → 1 (improved)'), 'R5 is after the window');
  });

  it('renders a brand without any data as empty states, not as zeros or a failure', async () => {
    const r = await render('executive_summary_v2', { brandId: fx.emptyBrandId });
    const items = allItems(r);
    assert.ok(items.includes('Quietdesk'));
    assert.ok(items.includes('–'), 'the score is a dash');
    assert.ok(items.includes('no data in this window'));
    assert.ok(items.includes('No scored runs in this window yet.'));
  });

  it('draws a name DejaVu Sans cannot in a REPORT_FONTS face, where a reader can find it', async () => {
    const db = ctx.dbs.primary;
    const brand = await createBrand(db, fx.orgId, { name: '株式会社' });
    const dir = mkdtempSync(join(tmpdir(), 'sightline-fonts-'));
    try {
      const font = { file: writeBoxFont(join(dir, 'box.otf'), '株式会社'), face: undefined };
      const without = await render('executive_summary_v2', { brandId: brand.id });
      const withFont = await render('executive_summary_v2', { brandId: brand.id }, [font]);
      // The first page's band and every later page's running header name the brand.
      assert.ok(withFont.pages.length > 1);
      for (const page of withFont.pages) assert.ok(page.includes('株式会社'), page.join(' '));
      assert.ok(!allItems(without).some((item) => item.includes('株')), 'DejaVu draws empty boxes');
      // Said so, each character once, in the order the report met them.
      assert.deepEqual(without.missingGlyphs, ['株', '式', '会', '社']);
      assert.deepEqual(withFont.missingGlyphs, []);
      for (const type of reports.keys()) assert.deepEqual(report(type).missingGlyphs, [], type);
      assert.equal(withFont.pages.length, without.pages.length);
      const artifacts = await db
        .selectFrom('report_artifacts')
        .select('id')
        .where('brand_id', '=', brand.id)
        .execute();
      await assert.rejects(
        render('executive_summary_v2', { brandId: brand.id }, [
          { file: join(dir, 'missing.otf'), face: undefined },
        ]),
        { name: 'ConfigError', message: `REPORT_FONTS: ${join(dir, 'missing.otf')} cannot be read (ENOENT)` },
      );
      const after = await db
        .selectFrom('report_artifacts')
        .select('id')
        .where('brand_id', '=', brand.id)
        .execute();
      assert.deepEqual(after, artifacts, 'refused before an artifact was queued');
      // An HTML report draws no text itself: it reads no font, and so is not stopped by one.
      const html = await generateReport(
        db,
        {
          orgId: fx.orgId,
          brandId: brand.id,
          categoryId: null,
          reportType: 'executive_summary_v2',
          format: 'html',
          userId: null,
          branded: true,
        },
        { now: NOW, clock: () => DONE, fonts: [{ file: join(dir, 'missing.otf'), face: undefined }] },
      );
      assert.equal(html.status, 'complete', html.errorMessage);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
