import type { Section } from './document.ts';
import * as f from './format.ts';
import type { ReportTypeDefinition } from './report-type.ts';
import * as s from './sections.ts';

// The full picture: the brand overall, then each category and each answer engine, the sources
// answers cite, prompt-level changes, and every open recommendation with its evidence.
export const inDepthReport: ReportTypeDefinition = {
  type: 'in_depth_report',
  label: 'In-depth report',
  audience: 'team',
  fixedRange: null,
  needs: { categories: true, promptChanges: 'all' },
  sections(data) {
    const { analytics } = data.scope;
    const timeZone = data.organization.timezone;
    const overview: Section[] = [
      {
        title: 'Overview',
        blocks: [
          { kind: 'kpis', items: s.headlineKpis(data.scope) },
          { kind: 'columns', columns: [[s.trendBlock(data.scope, timeZone)], [s.sentimentBlock(analytics)]] },
          s.shareOfVoiceBars(analytics, 10),
        ],
      },
      { title: 'Answer engines', blocks: [s.platformTable(analytics), s.surfaceTable(analytics)] },
      { title: 'Sources answers cite', blocks: [s.sourcesTable(analytics, 15)] },
    ];
    const categories: Section[] = data.categories.map((category) => ({
      title: `Category: ${category.name}`,
      newPage: true,
      blocks: [
        { kind: 'kpis', items: s.headlineKpis(category) },
        {
          kind: 'columns',
          columns: [[s.trendBlock(category, timeZone)], [s.shareOfVoiceBars(category.analytics, 6)]],
        },
        s.sourcesTable(category.analytics, 6),
        s.platformTable(category.analytics),
      ],
    }));
    const changed = s.changedPrompts(data);
    const unchanged = data.promptChanges.length - changed.length;
    return [
      ...overview,
      ...categories,
      {
        title: 'Prompt-level changes',
        newPage: true,
        blocks: [
          s.promptChangesTable(data, changed),
          {
            kind: 'paragraph',
            text:
              `${f.count(changed.length)} of ${f.counted(data.promptChanges.length, 'monitored prompt')} ` +
              `changed between their last two scored runs` +
              (unchanged > 0 ? `; ${f.count(unchanged)} did not change or had only one scored run.` : '.'),
            muted: true,
          },
        ],
      },
      {
        title: 'Open recommendations',
        newPage: true,
        blocks: s.recommendationBlocks(data, Number.POSITIVE_INFINITY, true),
      },
      {
        title: 'About these figures',
        blocks: [
          s.coverageTable(analytics),
          {
            kind: 'paragraph',
            text:
              'Every figure in this report is the one the Sightline API returns for the same brand, window and ' +
              'moment (analytics, score history and prompt changes endpoints). Scores run from 0 to 100; rates and ' +
              'shares are shown as percentages; changes compare with the previous period of the same length.',
            muted: true,
          },
        ],
      },
    ];
  },
};
