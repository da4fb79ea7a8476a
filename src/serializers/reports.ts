import type { FastifyRequest } from 'fastify';
import type { Organization } from '../db/organizations.ts';
import type { ReportFileKind } from '../db/report-files.ts';
import { REPORT_COMPLETE, type ReportArtifact } from '../db/reports.ts';
import { formatDate, localDate } from '../domain/windows.ts';
import { REPORT_TYPES } from '../reports/catalog.ts';

// Response shaping of report artifacts and their downloads.

/**
 * The label the report generator gives the type (src/reports/catalog.ts); a type without one still
 * reads as words: "market_scan_v3" → "Market Scan V3".
 */
function reportTypeLabel(reportType: string): string {
  return (
    REPORT_TYPES.get(reportType)?.label ??
    reportType
      .split(/[_\s.-]+/)
      .filter(Boolean)
      .map((word) => word[0]!.toUpperCase() + word.slice(1))
      .join(' ')
  );
}

/** Where absolute links point: the configured public base, else the request's own host. */
export function baseUrl(request: FastifyRequest): string {
  return request.server.config.publicBaseUrl ?? `${request.protocol}://${request.host}`;
}

export function presentReport(artifact: ReportArtifact, base: string) {
  const view = `${base}/api/reports/${artifact.id}/`;
  return {
    id: String(artifact.id),
    brandId: String(artifact.brandId),
    categoryId: artifact.categoryId === null ? null : String(artifact.categoryId),
    reportType: artifact.reportType,
    reportTypeLabel: reportTypeLabel(artifact.reportType),
    status: artifact.status,
    format: artifact.format,
    createdAt: artifact.createdAt,
    completedAt: artifact.completedAt,
    downloadUrl: artifact.status === REPORT_COMPLETE ? `${view}download/` : '',
    viewUrl: view,
    errorMessage: artifact.errorMessage,
    agentName: artifact.agentName,
    agentVersion: artifact.agentVersion,
    costUsd: artifact.costUsd,
    kgGenerationJob: artifact.kgGenerationJob,
    evidenceRefsCount: artifact.evidenceRefsCount,
    isBranded: artifact.isBranded,
    abortedReason: artifact.abortedReason,
    generatedByEmail: artifact.generatedByEmail,
  };
}

function slug(text: string): string {
  const ascii = text
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase();
  return ascii.replace(/[^a-z0-9]+/g, '-').replace(/^-+|-+$/g, '');
}

/** e.g. acme-analytics-in_depth_report-2026-03-14.pdf: ASCII only, so no RFC 5987 form is needed. */
export function downloadName(artifact: ReportArtifact, org: Organization, kind: ReportFileKind): string {
  const brand = slug(artifact.brandName) || 'brand';
  const type = artifact.reportType.replace(/[^A-Za-z0-9_-]+/g, '-');
  const date = formatDate(localDate(new Date(artifact.completedAt ?? artifact.createdAt), org.timezone));
  return `${brand}-${type}-${date}.${kind}`;
}
