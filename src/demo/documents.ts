// The rendered bytes of a demo report: one short document, as a PDF and as a self-contained HTML
// page. The wording summarises the brand's monitoring set-up; the figures of a real report come
// with report generation, a later piece of work.
import { registrableDomain } from '../domain/analytics.ts';
import type { BrandSpec } from './catalog.ts';
import { modelSpec } from './catalog.ts';
import { buildPdf } from './pdf.ts';

export const REPORT_TYPE_TITLES: Record<string, string> = {
  in_depth_report: 'In-depth AI visibility report',
  executive_summary_v2: 'Executive summary',
  lead_gen_exec_v1: 'Lead generation executive brief',
  weekly_ai_visibility_update: 'Weekly AI visibility update',
};

export interface ReportDocument {
  title: string;
  sections: { heading: string; lines: string[] }[];
}

export function reportDocument(
  brand: BrandSpec,
  reportType: string,
  categoryIndex: number | null,
  completedAt: string,
): ReportDocument {
  const categories =
    categoryIndex === null
      ? brand.categories.filter((c) => !c.isArchived)
      : brand.categories.slice(categoryIndex, categoryIndex + 1);
  const competitors = [
    ...new Set(categories.flatMap((c) => c.competitors.slice(0, 3).map((x) => x.canonicalName))),
  ];
  const sources = [...new Set(categories.flatMap((c) => c.sources.slice(0, 2).map(registrableDomain)))];
  return {
    title: `${REPORT_TYPE_TITLES[reportType] ?? reportType}: ${brand.name}`,
    sections: [
      {
        heading: 'Scope',
        lines: [
          `Generated ${completedAt.slice(0, 10)} for ${brand.name} (${brand.website}).`,
          `Categories: ${categories.map((c) => c.name).join(', ')}.`,
          `Answer engines: ${brand.models.map((m) => modelSpec(m).label).join(', ')}.`,
        ],
      },
      {
        heading: 'Summary',
        lines: [
          brand.executiveSummary ||
            `${brand.name} is tracked across ${categories.length} categories; this report lists where answers name it and where they do not.`,
        ],
      },
      {
        heading: 'Who answers name instead',
        lines: [`Competitors named most often: ${competitors.join(', ')}.`],
      },
      {
        heading: 'Most cited sources',
        lines: [`${sources.join(', ')}.`],
      },
    ],
  };
}

export function renderPdf(doc: ReportDocument): Buffer {
  return buildPdf(
    doc.title,
    doc.sections.flatMap((s) => [s.heading.toUpperCase(), ...s.lines, '']),
  );
}

function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (ch) => `&#${ch.charCodeAt(0)};`);
}

export function renderHtml(doc: ReportDocument): Buffer {
  const sections = doc.sections
    .map(
      (s) =>
        `<section><h2>${escapeHtml(s.heading)}</h2>${s.lines.map((l) => `<p>${escapeHtml(l)}</p>`).join('')}</section>`,
    )
    .join('\n');
  const html = `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(doc.title)}</title>
<style>
body { font-family: system-ui, sans-serif; max-width: 44rem; margin: 3rem auto; padding: 0 1rem; color: #1f2933; line-height: 1.5; }
h1 { font-size: 1.6rem; border-bottom: 2px solid #3b82f6; padding-bottom: .4rem; }
h2 { font-size: 1.1rem; margin-top: 2rem; color: #1e40af; }
footer { margin-top: 3rem; font-size: .8rem; color: #6b7280; }
</style>
</head>
<body>
<h1>${escapeHtml(doc.title)}</h1>
${sections}
<footer>Sightline demo report</footer>
</body>
</html>
`;
  return Buffer.from(html, 'utf8');
}
