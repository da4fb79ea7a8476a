import { executiveSummary } from './executive-summary.ts';
import { inDepthReport } from './in-depth.ts';
import { leadGenBrief } from './lead-gen.ts';
import type { ReportTypeDefinition } from './report-type.ts';
import { weeklyUpdate } from './weekly-update.ts';

// The report types this generator produces.
export const REPORT_TYPES: ReadonlyMap<string, ReportTypeDefinition> = new Map(
  [executiveSummary, inDepthReport, leadGenBrief, weeklyUpdate].map((d) => [d.type, d]),
);
