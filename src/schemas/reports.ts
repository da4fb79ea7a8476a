import { Type } from 'typebox';
import { IdParam, Nullable, NullableTimestamp, PageQuery, Paginated, Timestamp } from './common.ts';

// Report types are open-ended identifiers; the pattern keeps control characters and NUL bytes
// (which PostgreSQL refuses in text) out of the database and answers them with a 400 instead.
const reportTypeValue = (description: string) =>
  Type.String({ pattern: '^[A-Za-z0-9_.-]+$', maxLength: 100, description });
const REPORT_TYPE_HELP = 'A report type, e.g. in_depth_report, executive_summary_v2, lead_gen_exec_v1.';

export const ReportArtifact = Type.Object(
  {
    id: Type.String(),
    brandId: Type.String(),
    categoryId: Nullable(Type.String({ description: 'null for a brand-wide artifact.' })),
    reportType: Type.String(),
    reportTypeLabel: Type.String(),
    status: Type.String({ description: 'queued, running, complete, failed or aborted.' }),
    format: Type.String({ description: 'pdf or html.' }),
    createdAt: Timestamp,
    completedAt: NullableTimestamp,
    downloadUrl: Type.String({
      description: 'Absolute URL of the download; empty until the status is complete.',
    }),
    viewUrl: Type.String({ description: 'Absolute URL of this artifact (the poll endpoint).' }),
    errorMessage: Type.String(),
    agentName: Type.String(),
    agentVersion: Type.String(),
    costUsd: Type.String({ description: 'Decimal amount in US dollars, e.g. "1.25".' }),
    kgGenerationJob: Type.String(),
    evidenceRefsCount: Type.Integer(),
    isBranded: Type.Boolean(),
    abortedReason: Type.String(),
    generatedByEmail: Type.String({
      description: 'E-mail of the user who generated it; empty when unknown.',
    }),
  },
  { $id: 'ReportArtifact' },
);

export const ReportPermissions = Type.Object(
  {
    canViewReports: Type.Boolean({ description: 'false: upsell state; the list is empty.' }),
    canGenerate: Type.Boolean({ description: 'false: a demo brand or a read-only tier.' }),
    canGenerateFreeReport: Type.Boolean(),
    hasFreeReport: Type.Boolean(),
    reportsReady: Type.Boolean({ description: 'A complete artifact exists for the brand.' }),
    isDemo: Type.Boolean(),
  },
  { $id: 'ReportPermissions' },
);

export const ReportList = Paginated('ReportList', ReportArtifact, { permissions: ReportPermissions });

export const BrandParams = IdParam('brand_id');
export const ArtifactParams = IdParam('artifact_id');
export const BrandArtifactParams = Type.Object({
  ...BrandParams.properties,
  ...ArtifactParams.properties,
});

export const ReportListQuery = Type.Object({
  categoryId: Type.Optional(
    Type.Integer({
      minimum: 1,
      maximum: Number.MAX_SAFE_INTEGER,
      description: "Only artifacts of this category of the brand, plus the brand's brand-wide artifacts.",
    }),
  ),
  reportType: Type.Optional(reportTypeValue(REPORT_TYPE_HELP)),
  type: Type.Optional(reportTypeValue('Alias of reportType; when both are given they must agree.')),
  ...PageQuery,
});

export const LatestReportQuery = Type.Object({ type: reportTypeValue(REPORT_TYPE_HELP) });

/** The rendered report: binary PDF, or an HTML document when no PDF exists. */
export const ReportDownload = {
  description: 'The rendered report as an attachment.',
  content: {
    'application/pdf': { schema: Type.String({ contentMediaType: 'application/pdf' }) },
    'text/html': { schema: Type.String({ contentMediaType: 'text/html' }) },
  },
};

export const PdfDownload = {
  description: 'The rendered report as a PDF attachment.',
  content: { 'application/pdf': { schema: Type.String({ contentMediaType: 'application/pdf' }) } },
};
