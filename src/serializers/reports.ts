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

// A file name's bytes: most file systems hold 255.
const MAX_FILE_NAME_BYTES = 255;

function slug(text: string): string {
  const ascii = text
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase();
  return ascii.replace(/[^a-z0-9]+/g, '-').replace(/^-+|-+$/g, '');
}

/** The brand's own letters, lower-cased, with what a file name cannot hold (and spaces) as '-'. */
function unicodeSlug(text: string): string {
  return text
    .normalize('NFC')
    .toLowerCase()
    .replace(/[\p{C}\p{Z}\s\\/:*?"<>|'()]+/gu, '-')
    .replace(/^-+|-+$/g, '');
}

/** `stem` cut by whole characters so that `stem + suffix` fits in a file name's bytes. */
function fitted(stem: string, suffix: string): string {
  let room = MAX_FILE_NAME_BYTES - Buffer.byteLength(suffix);
  let end = 0;
  for (const char of stem) {
    room -= Buffer.byteLength(char);
    if (room < 0) break;
    end += char.length;
  }
  return stem.slice(0, end).replace(/-+$/, '');
}

/**
 * The download's Content-Disposition: `filename` in ASCII (e.g.
 * acme-analytics-in_depth_report-2026-03-14.pdf), and where the brand's name has letters ASCII
 * lacks ("Café", "株式会社…") its own spelling too as RFC 6266's `filename*`, which browsers prefer.
 */
export function contentDisposition(
  artifact: ReportArtifact,
  org: Organization,
  kind: ReportFileKind,
): string {
  const type = artifact.reportType.replace(/[^A-Za-z0-9_-]+/g, '-');
  const date = formatDate(localDate(new Date(artifact.completedAt ?? artifact.createdAt), org.timezone));
  const suffix = `-${type}-${date}.${kind}`;
  const ascii = `${fitted(slug(artifact.brandName), suffix) || 'brand'}${suffix}`;
  const own = fitted(unicodeSlug(artifact.brandName), suffix);
  if (!own || `${own}${suffix}` === ascii) return `attachment; filename="${ascii}"`;
  // encodeURIComponent leaves ' ( ) * as they are; RFC 8187's value may not hold them.
  const encoded = encodeURIComponent(`${own}${suffix}`).replace(
    /['()*]/g,
    (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`,
  );
  return `attachment; filename="${ascii}"; filename*=UTF-8''${encoded}`;
}
