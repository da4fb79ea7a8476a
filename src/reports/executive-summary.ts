import type { ReportTypeDefinition } from './report-type.ts';
import * as s from './sections.ts';

// One or two pages for a leader: the headline figures and their movement, who else answers name,
// what changed and the three things to do next.
export const executiveSummary: ReportTypeDefinition = {
  type: 'executive_summary_v2',
  label: 'Executive summary',
  audience: 'team',
  fixedRange: null,
  needs: { categories: false, promptChanges: 'all' },
  sections(data) {
    const { analytics } = data.scope;
    const timeZone = data.organization.timezone;
    return [
      {
        title: 'At a glance',
        blocks: [
          { kind: 'kpis', items: s.headlineKpis(data.scope) },
          {
            kind: 'columns',
            columns: [
              [s.trendBlock(data.scope, timeZone)],
              [s.sentimentBlock(analytics), s.platformTable(analytics)],
            ],
          },
        ],
      },
      {
        title: 'Top competitors',
        blocks: [
          s.shareOfVoiceBars(analytics, 6, 'Share of voice: the brand against the competitors named most'),
        ],
      },
      { title: 'What changed', newPage: true, blocks: [{ kind: 'bullets', items: s.whatChanged(data, 6) }] },
      { title: 'Top three recommendations', blocks: s.recommendationBlocks(data, 3, false) },
    ];
  },
};
