import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Organization } from '../db/organizations.ts';
import { databaseReportFileStore, type ReportFile, type ReportFileKind } from '../db/report-files.ts';
import {
  canViewReports,
  findReportArtifact,
  findReportBrand,
  isBrandCategory,
  latestReportArtifact,
  listReportArtifacts,
  REPORT_COMPLETE,
  type ReportArtifact,
  type ReportBrand,
  reportPermissions,
} from '../db/reports.ts';
import { NotFound, ValidationFailed } from '../errors.ts';
import { assertPageExists, pageEnvelope, pageRequest } from '../http/pagination.ts';
import type { App } from '../http/types.ts';
import { rejectInvalidParams, rejectInvalidQuery } from '../http/validation.ts';
import { REPORT_TYPES } from '../reports/catalog.ts';
import { responses } from '../schemas/common.ts';
import {
  ArtifactParams,
  BrandArtifactParams,
  BrandParams,
  LatestReportQuery,
  PdfDownload,
  ReportArtifact as ReportArtifactSchema,
  ReportDownload,
  ReportList,
  ReportListQuery,
} from '../schemas/reports.ts';

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

function baseUrl(app: App, request: FastifyRequest): string {
  return app.config.publicBaseUrl ?? `${request.protocol}://${request.host}`;
}

function serialise(artifact: ReportArtifact, base: string) {
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

/** The calendar date of an instant in the organization's time zone, as YYYY-MM-DD. */
function localDate(instant: string, timeZone: string): string {
  const format = new Intl.DateTimeFormat('en-US', {
    timeZone,
    year: 'numeric',
    month: '2-digit',
    day: '2-digit',
  });
  const parts = Object.fromEntries(
    format.formatToParts(new Date(instant)).map((part) => [part.type, part.value]),
  );
  return `${parts.year}-${parts.month}-${parts.day}`;
}

/** e.g. acme-analytics-in_depth_report-2026-03-14.pdf: ASCII only, so no RFC 5987 form is needed. */
function downloadName(artifact: ReportArtifact, org: Organization, kind: ReportFileKind): string {
  const brand = slug(artifact.brandName) || 'brand';
  const type = artifact.reportType.replace(/[^A-Za-z0-9_-]+/g, '-');
  const date = localDate(artifact.completedAt ?? artifact.createdAt, org.timezone);
  return `${brand}-${type}-${date}.${kind}`;
}

function sendFile(reply: FastifyReply, file: ReportFile, kind: ReportFileKind, filename: string) {
  // Stored HTML is UTF-8; saying so keeps a browser from guessing the charset.
  const contentType =
    kind === 'html' && !/charset=/i.test(file.contentType)
      ? `${file.contentType}; charset=utf-8`
      : file.contentType;
  reply
    .header('content-type', contentType)
    .header('content-length', String(file.byteLength))
    .header('content-disposition', `attachment; filename="${filename}"`)
    .header('x-content-type-options', 'nosniff');
  const body = file.body;
  return reply.send(
    body instanceof Uint8Array ? Buffer.from(body.buffer, body.byteOffset, body.byteLength) : body,
  );
}

export async function reportRoutes(app: App): Promise<void> {
  const db = app.dbs.read;
  const files = databaseReportFileStore(db);
  const config = { access: { scope: 'reports:read' } } as const;
  const tags = ['reports'];

  async function brandOf(org: Organization, brandId: number): Promise<ReportBrand> {
    const brand = await findReportBrand(db, org.id, brandId);
    if (!brand) throw new NotFound();
    return brand;
  }

  // An organization that may not view reports sees none of them, in the list or one by one.
  async function artifactOf(org: Organization, artifactId: number): Promise<ReportArtifact> {
    const artifact = canViewReports(org) ? await findReportArtifact(db, org.id, artifactId) : undefined;
    if (!artifact) throw new NotFound();
    return artifact;
  }

  // Downloads exist only once the artifact is complete.
  async function completeArtifactOf(org: Organization, artifactId: number): Promise<ReportArtifact> {
    const artifact = await artifactOf(org, artifactId);
    if (artifact.status !== REPORT_COMPLETE) throw new NotFound('Not found: the report is not complete yet.');
    return artifact;
  }

  app.get(
    '/api/brands/:brand_id/reports/',
    {
      config,
      schema: {
        tags,
        summary: "A brand's report artifacts, newest first, with what the organization may do with them",
        params: BrandParams,
        querystring: ReportListQuery,
        response: responses(ReportList),
      },
    },
    async (request) => {
      rejectInvalidParams(request);
      const org = request.caller!.organization;
      const brand = await brandOf(org, request.params.brand_id);
      rejectInvalidQuery(request);
      const { categoryId, reportType, type } = request.query;
      if (reportType !== undefined && type !== undefined && reportType !== type) {
        throw ValidationFailed.field(
          'non_field_errors',
          'reportType and type are aliases: give one, or the same value.',
        );
      }
      if (categoryId !== undefined && !(await isBrandCategory(db, org.id, brand.id, categoryId))) {
        throw ValidationFailed.field(
          'categoryId',
          `Select a valid choice. ${categoryId} is not a category of this brand.`,
        );
      }
      const page = pageRequest(request.query);
      const permissions = await reportPermissions(db, org, brand);
      const { count, artifacts } = permissions.canViewReports
        ? await listReportArtifacts(
            db,
            org.id,
            brand.id,
            { categoryId, reportType: reportType ?? type },
            page,
          )
        : { count: 0, artifacts: [] };
      assertPageExists(page, count);
      const base = baseUrl(app, request);
      return {
        ...pageEnvelope(request, app.config.publicBaseUrl, page, count),
        results: artifacts.map((artifact) => serialise(artifact, base)),
        permissions,
      };
    },
  );

  app.get(
    '/api/brands/:brand_id/reports/latest/',
    {
      config,
      schema: {
        tags,
        summary: 'The newest artifact of a type for the brand, whatever its status',
        params: BrandParams,
        querystring: LatestReportQuery,
        response: responses(ReportArtifactSchema),
      },
    },
    async (request) => {
      rejectInvalidParams(request);
      const org = request.caller!.organization;
      const brand = await brandOf(org, request.params.brand_id);
      rejectInvalidQuery(request);
      const artifact = canViewReports(org)
        ? await latestReportArtifact(db, org.id, brand.id, request.query.type)
        : undefined;
      if (!artifact) throw new NotFound(`No ${request.query.type} report exists for this brand.`);
      return serialise(artifact, baseUrl(app, request));
    },
  );

  app.get(
    '/api/brands/:brand_id/reports/:artifact_id/',
    {
      config,
      schema: {
        tags,
        summary: 'One report artifact of the brand',
        params: BrandArtifactParams,
        response: responses(ReportArtifactSchema),
      },
    },
    async (request) => {
      rejectInvalidParams(request);
      const org = request.caller!.organization;
      const artifact = await artifactOf(org, request.params.artifact_id);
      if (artifact.brandId !== request.params.brand_id) throw new NotFound();
      rejectInvalidQuery(request);
      return serialise(artifact, baseUrl(app, request));
    },
  );

  app.get(
    '/api/reports/:artifact_id/',
    {
      config,
      schema: {
        tags,
        summary: 'One report artifact: poll it until its status is complete',
        params: ArtifactParams,
        response: responses(ReportArtifactSchema),
      },
    },
    async (request) => {
      rejectInvalidParams(request);
      const artifact = await artifactOf(request.caller!.organization, request.params.artifact_id);
      rejectInvalidQuery(request);
      return serialise(artifact, baseUrl(app, request));
    },
  );

  app.get(
    '/api/reports/:artifact_id/download/',
    {
      config,
      schema: {
        tags,
        summary: 'Download the rendered report: the PDF when there is one, otherwise the HTML',
        params: ArtifactParams,
        response: { ...responses(ReportArtifactSchema), 200: ReportDownload },
      },
    },
    async (request, reply) => {
      rejectInvalidParams(request);
      const org = request.caller!.organization;
      const artifact = await completeArtifactOf(org, request.params.artifact_id);
      rejectInvalidQuery(request);
      for (const kind of ['pdf', 'html'] as const) {
        const file = await files.get(org.id, artifact.id, kind);
        if (file) return sendFile(reply, file, kind, downloadName(artifact, org, kind));
      }
      throw new NotFound('Not found: the report has no rendered file.');
    },
  );

  app.get(
    '/api/reports/:artifact_id/download.pdf',
    {
      config,
      schema: {
        tags,
        summary: 'Download the rendered report as PDF; 404 when it has no PDF',
        params: ArtifactParams,
        response: { ...responses(ReportArtifactSchema), 200: PdfDownload },
      },
    },
    async (request, reply) => {
      rejectInvalidParams(request);
      const org = request.caller!.organization;
      const artifact = await completeArtifactOf(org, request.params.artifact_id);
      rejectInvalidQuery(request);
      const file = await files.get(org.id, artifact.id, 'pdf');
      if (!file) throw new NotFound('Not found: the report has no PDF.');
      return sendFile(reply, file, 'pdf', downloadName(artifact, org, 'pdf'));
    },
  );
}
