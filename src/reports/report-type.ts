import type { ReportData, ReportNeeds } from './data.ts';
import type { ReportDocument, Section } from './document.ts';
import * as f from './format.ts';

// What one report type is: its label, what data it needs gathered, and the sections it shows.

export interface ReportTypeDefinition {
  type: string;
  label: string;
  /** A window the type always covers (the weekly update is always 7d); null takes the request's. */
  fixedRange: string | null;
  /** Who the report is for: the organization's own team, or a prospect the organization courts. */
  audience: 'team' | 'prospect';
  /** Gather per-category figures and prompt change feeds only for the types that show them. */
  needs: ReportNeeds;
  sections(data: ReportData): Section[];
}

/** The document of one report: the type's sections under the header every page repeats. */
export function buildDocument(
  definition: ReportTypeDefinition,
  data: ReportData,
  branded: boolean,
): ReportDocument {
  const timeZone = data.organization.timezone;
  const scopeName = data.category ? `${data.brand.name} · ${data.category.name}` : data.brand.name;
  return {
    title: definition.label,
    brandName: scopeName,
    windowLabel: f.windowLabel(data.scope.analytics.window, timeZone),
    generatedLabel: `Generated ${f.dateTime(data.generatedAt, timeZone)}`,
    preparedFor: branded
      ? `Prepared ${definition.audience === 'prospect' ? 'by' : 'for'} ${data.organization.name}`
      : null,
    sections: definition.sections(data),
  };
}
