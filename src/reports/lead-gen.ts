import type { ReportData } from './data.ts';
import * as f from './format.ts';
import type { ReportTypeDefinition } from './report-type.ts';
import * as s from './sections.ts';

// A prospect-facing teaser: where the brand stands against the competitors answers name, and the
// biggest openings, each stated with the figure behind it.
export const leadGenBrief: ReportTypeDefinition = {
  type: 'lead_gen_exec_v1',
  label: 'Lead-gen executive brief',
  audience: 'prospect',
  fixedRange: null,
  needs: { categories: false, promptChanges: 'none' },
  sections(data) {
    const { analytics } = data.scope;
    return [
      {
        title: `Where ${data.brand.name} stands in AI answers`,
        blocks: [
          { kind: 'kpis', items: s.headlineKpis(data.scope) },
          s.shareOfVoiceBars(analytics, 8, 'Share of voice against named competitors'),
          s.competitorTable(analytics, 8),
          { kind: 'paragraph', text: s.COMPETITOR_SCORE_NOTE, muted: true },
        ],
      },
      { title: 'Biggest opportunities', blocks: [{ kind: 'bullets', items: opportunities(data) }] },
      {
        title: 'Across answer engines',
        blocks: [
          {
            kind: 'columns',
            columns: [[s.platformTable(analytics)], [s.trendBlock(data.scope, data.organization.timezone)]],
          },
          {
            kind: 'paragraph',
            text:
              `Sightline asks answer engines the questions ${data.brand.name}'s buyers ask, every day, and measures ` +
              'who they name, in what order and on which sources. The in-depth report breaks these figures down ' +
              'by category, engine and prompt, with the evidence behind every recommendation.',
            muted: true,
          },
        ],
      },
    ];
  },
};

function opportunities(data: ReportData): string[] {
  const { analytics } = data.scope;
  const lines: string[] = [];
  const visible = analytics.shareOfVoice.visible;
  const own = visible.find((e) => e.isUserBrand);
  const ahead = own
    ? visible.filter((e) => !e.isUserBrand && (e.share ?? 0) > (own.share ?? 0)).slice(0, 3)
    : [];
  if (own && ahead.length > 0) {
    lines.push(
      `${ahead.map((e) => `${e.name} (${f.percent(e.share)})`).join(', ')} ` +
        `${ahead.length === 1 ? 'holds' : 'hold'} more share of voice than ${own.name} (${f.percent(own.share)}): ` +
        'answers recommend them first.',
    );
  }
  const engines = analytics.platforms.apiPlatforms.filter((p) => p.mentionRate !== null);
  const sorted = [...engines].sort((a, b) => (a.mentionRate ?? 0) - (b.mentionRate ?? 0));
  const weakest = sorted[0];
  const strongest = sorted[sorted.length - 1];
  if (weakest && strongest && weakest !== strongest) {
    lines.push(
      `${weakest.modelLabel} mentions ${data.brand.name} in ${f.percent(weakest.mentionRate)} of answers, ` +
        `against ${f.percent(strongest.mentionRate)} on ${strongest.modelLabel}: the widest gap to close.`,
    );
  }
  const sources = analytics.sources.items.slice(0, 3);
  if (sources.length > 0) {
    lines.push(
      `Answers cite ${sources.map((x) => `${x.domain} (${f.percent(x.share)} of citations)`).join(', ')} most: ` +
        'presence on these sources shapes what answer engines say.',
    );
  }
  for (const rec of data.recommendations.filter((r) => r.priority === 'high').slice(0, 2)) {
    lines.push(`${rec.title}${rec.expectedImpact ? `: ${rec.expectedImpact}` : '.'}`);
  }
  return lines.length > 0 ? lines : ['Not enough answers in this window to point at an opening yet.'];
}
