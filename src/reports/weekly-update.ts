import type { Analytics } from './data.ts';
import type { Block, Change, TableCell } from './document.ts';
import * as f from './format.ts';
import type { ReportTypeDefinition } from './report-type.ts';
import * as s from './sections.ts';

// The last seven days against the seven before: the movement of each headline figure, what
// changed prompt by prompt, and the sources answers started citing.
export const weeklyUpdate: ReportTypeDefinition = {
  type: 'weekly_ai_visibility_update',
  label: 'Weekly AI visibility update',
  audience: 'team',
  fixedRange: '7d',
  needs: { categories: false, promptChanges: 'window' },
  sections(data) {
    const { analytics } = data.scope;
    return [
      {
        title: 'This week',
        blocks: [
          { kind: 'kpis', items: s.headlineKpis(data.scope) },
          {
            kind: 'columns',
            columns: [[s.trendBlock(data.scope, data.organization.timezone)], [s.platformTable(analytics)]],
          },
          weekOnWeek(analytics, data.brand.name),
          s.shareOfVoiceBars(analytics, 6, 'Share of voice this week (change against last week)'),
        ],
      },
      { title: 'What changed', blocks: [{ kind: 'bullets', items: s.whatChanged(data, 6) }] },
      { title: 'Prompt-level changes', blocks: [s.promptChangesTable(data, s.changedPrompts(data))] },
      { title: 'New citations', blocks: [newCitations(analytics)] },
    ];
  },
};

function weekOnWeek(analytics: Analytics, brandName: string): Block {
  const { mentionRate, avgRank, sentiment } = analytics.metrics;
  const own = analytics.shareOfVoice.visible.find((e) => e.isUserBrand);
  const changeCell = (change: Change | null, reason: string | null): TableCell =>
    change ? { text: change.text, tone: change.tone } : { text: f.suppressed(reason ?? 'no_prior') };
  const rows: TableCell[][] = [
    [
      { text: 'Mention rate', strong: true },
      { text: f.percent(mentionRate.value) },
      { text: f.percent(mentionRate.previousValue) },
      changeCell(
        f.worded(f.rateChange(mentionRate.delta), mentionRate.significance),
        mentionRate.suppressedReason,
      ),
    ],
    [
      { text: 'Average rank', strong: true },
      { text: f.rank(avgRank.value) },
      { text: f.rank(avgRank.previousValue) },
      changeCell(f.worded(f.rankChange(avgRank.delta), avgRank.significance), avgRank.suppressedReason),
    ],
  ];
  if (own) {
    rows.push([
      { text: `Share of voice (${brandName})`, strong: true },
      { text: f.percent(own.share) },
      { text: f.percent(own.previousShare) },
      changeCell(
        f.worded(f.rateChange(own.shareDelta), own.shareDeltaSignificance),
        own.shareDeltaSuppressedReason,
      ),
    ]);
  }
  for (const key of ['positive', 'neutral', 'negative'] as const) {
    rows.push([
      { text: `${key[0]!.toUpperCase()}${key.slice(1)} mentions`, strong: true },
      { text: f.count(sentiment[key]) },
      { text: sentiment.previous ? f.count(sentiment.previous[key]) : '–' },
      { text: '' },
    ]);
  }
  return {
    kind: 'table',
    title: 'This week against last week',
    columns: [
      { label: 'Figure', align: 'left', weight: 2.6 },
      { label: 'Last 7 days', align: 'right', weight: 1.2 },
      { label: '7 days before', align: 'right', weight: 1.3 },
      { label: 'Change', align: 'right', weight: 2.3 },
    ],
    rows,
    empty: '',
  };
}

function newCitations(analytics: Analytics): Block {
  return {
    kind: 'table',
    title: 'Domains cited this week that were not cited the week before',
    columns: [
      { label: 'Domain', align: 'left', weight: 3 },
      { label: 'Citations', align: 'right', weight: 1.2 },
      { label: 'Share', align: 'right', weight: 1.2 },
      { label: 'Distinct URLs', align: 'right', weight: 1.2 },
    ],
    rows: s
      .newSources(analytics)
      .map((x) => [
        { text: x.domain, strong: true },
        { text: f.count(x.count) },
        { text: f.percent(x.share) },
        { text: f.count(x.urlCount) },
      ]),
    empty: 'No new domain was cited this week.',
  };
}
