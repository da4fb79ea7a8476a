import type { FastifyReply } from 'fastify';
import type { Organization } from '../db/organizations.ts';
import { databaseReportFileStore, type ReportFile, type ReportFileKind } from '../db/report-files.ts';
import {
  canViewReports,
  countReportArtifacts,
  findReportArtifact,
  findReportBrand,
  isBrandCategory,
  latestReportArtifact,
  REPORT_COMPLETE,
  type ReportArtifact,
  reportArtifactsPage,
  reportPermissions,
} from '../db/reports.ts';
import { NotFound, ValidationFailed } from '../errors.ts';
import { PAGE_ROWS } from '../http/csv.ts';
import { keyedGet } from '../http/endpoint.ts';
import { listPage } from '../http/pagination.ts';
import type { App } from '../http/types.ts';
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
import { baseUrl, contentDisposition, presentReport } from '../serializers/reports.ts';

function sendFile(reply: FastifyReply, file: ReportFile, kind: ReportFileKind, disposition: string) {
  // Stored HTML is UTF-8; saying so keeps a browser from guessing the charset.
  const contentType =
    kind === 'html' && !/charset=/i.test(file.contentType)
      ? `${file.contentType}; charset=utf-8`
      : file.contentType;
  reply
    .header('content-type', contentType)
    .header('content-length', String(file.byteLength))
    .header('content-disposition', disposition)
    .header('x-content-type-options', 'nosniff');
  const body = file.body;
  return reply.send(
    body instanceof Uint8Array ? Buffer.from(body.buffer, body.byteOffset, body.byteLength) : body,
  );
}

export async function reportRoutes(app: App): Promise<void> {
  const db = app.dbs.read;
  const files = databaseReportFileStore(db);
  const scope = 'reports:read';
  const tags = ['reports'];

  // An organization that may not view reports sees none of them, in the list or one by one.
  async function artifactOf(org: Organization, artifactId: number): Promise<ReportArtifact | undefined> {
    return canViewReports(org) ? await findReportArtifact(db, org.id, artifactId) : undefined;
  }

  // Downloads exist only once the artifact is complete.
  async function completeArtifactOf(org: Organization, artifactId: number): Promise<ReportArtifact> {
    const artifact = await artifactOf(org, artifactId);
    if (!artifact) throw new NotFound();
    if (artifact.status !== REPORT_COMPLETE) throw new NotFound('Not found: the report is not complete yet.');
    return artifact;
  }

  keyedGet(app, '/api/brands/:brand_id/reports/', {
    scope,
    // The envelope's permissions stay JSON only (docs/csv.md).
    csv: PAGE_ROWS,
    schema: {
      operationId: 'listBrandReports',
      tags,
      summary: "A brand's report artifacts, newest first, with what the organization may do with them",
      params: BrandParams,
      querystring: ReportListQuery,
      response: responses(ReportList),
    },
    find: (request, caller) => findReportBrand(db, caller.organization.id, request.params.brand_id),
    handler: async (request, { caller, found: brand }) => {
      const org = caller.organization;
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
      const permissions = await reportPermissions(db, org, brand);
      const filter = { categoryId, reportType: reportType ?? type };
      const base = baseUrl(request);
      const page = await listPage(
        request,
        request.query,
        {
          count: async () =>
            permissions.canViewReports ? countReportArtifacts(db, org.id, brand.id, filter) : 0,
          rows: (page) => reportArtifactsPage(db, org.id, brand.id, filter, page),
        },
        (artifact) => presentReport(artifact, base),
      );
      return { ...page, permissions };
    },
  });

  keyedGet(app, '/api/brands/:brand_id/reports/latest/', {
    scope,
    schema: {
      operationId: 'getLatestBrandReport',
      tags,
      summary: 'The newest artifact of a type for the brand, whatever its status',
      params: BrandParams,
      querystring: LatestReportQuery,
      response: responses(ReportArtifactSchema),
    },
    find: (request, caller) => findReportBrand(db, caller.organization.id, request.params.brand_id),
    handler: async (request, { caller, found: brand }) => {
      const org = caller.organization;
      const artifact = canViewReports(org)
        ? await latestReportArtifact(db, org.id, brand.id, request.query.type)
        : undefined;
      if (!artifact) throw new NotFound(`No ${request.query.type} report exists for this brand.`);
      return presentReport(artifact, baseUrl(request));
    },
  });

  keyedGet(app, '/api/brands/:brand_id/reports/:artifact_id/', {
    scope,
    schema: {
      operationId: 'getBrandReport',
      tags,
      summary: 'One report artifact of the brand',
      params: BrandArtifactParams,
      response: responses(ReportArtifactSchema),
    },
    find: async (request, caller) => {
      const artifact = await artifactOf(caller.organization, request.params.artifact_id);
      return artifact?.brandId === request.params.brand_id ? artifact : undefined;
    },
    handler: async (request, { found: artifact }) => presentReport(artifact, baseUrl(request)),
  });

  keyedGet(app, '/api/reports/:artifact_id/', {
    scope,
    schema: {
      operationId: 'getReport',
      tags,
      summary: 'One report artifact: poll it until its status is complete',
      params: ArtifactParams,
      response: responses(ReportArtifactSchema),
    },
    find: (request, caller) => artifactOf(caller.organization, request.params.artifact_id),
    handler: async (request, { found: artifact }) => presentReport(artifact, baseUrl(request)),
  });

  keyedGet(app, '/api/reports/:artifact_id/download/', {
    scope,
    schema: {
      operationId: 'downloadReport',
      tags,
      summary: 'Download the rendered report: the PDF when there is one, otherwise the HTML',
      params: ArtifactParams,
      response: { ...responses(ReportArtifactSchema), 200: ReportDownload },
    },
    find: (request, caller) => completeArtifactOf(caller.organization, request.params.artifact_id),
    handler: async (_request, { caller, found: artifact }, reply) => {
      const org = caller.organization;
      for (const kind of ['pdf', 'html'] as const) {
        const file = await files.get(org.id, artifact.id, kind);
        if (file) return sendFile(reply, file, kind, contentDisposition(artifact, org, kind));
      }
      throw new NotFound('Not found: the report has no rendered file.');
    },
  });

  keyedGet(app, '/api/reports/:artifact_id/download.pdf', {
    scope,
    schema: {
      operationId: 'downloadReportPdf',
      tags,
      summary: 'Download the rendered report as PDF; 404 when it has no PDF',
      params: ArtifactParams,
      response: { ...responses(ReportArtifactSchema), 200: PdfDownload },
    },
    find: (request, caller) => completeArtifactOf(caller.organization, request.params.artifact_id),
    handler: async (_request, { caller, found: artifact }, reply) => {
      const org = caller.organization;
      const file = await files.get(org.id, artifact.id, 'pdf');
      if (!file) throw new NotFound('Not found: the report has no PDF.');
      return sendFile(reply, file, 'pdf', contentDisposition(artifact, org, 'pdf'));
    },
  });
}
