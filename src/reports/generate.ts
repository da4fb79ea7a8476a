// Report generation: one artifact moves queued → running → complete, or → failed with its error
// message. Everything is gathered and rendered in memory first; the files and the status change
// to complete are then written in one transaction, so a report is either complete with all its
// files or failed with none.
import packageJson from '../../package.json' with { type: 'json' };
import type { Db } from '../db/connect.ts';
import { createQueuedArtifact, markComplete, markFailed, markRunning } from '../db/report-artifacts.ts';
import { databaseReportFileStore, type NewReportFile, type ReportFileStore } from '../db/report-files.ts';
import { inTransaction } from '../db/transaction.ts';
import { evidenceRefsCount, gatherReportData, type ReportRequestScope } from './data.ts';
import { renderHtml } from './render-html.ts';
import { renderPdf } from './render-pdf.ts';
import { buildDocument, type ReportTypeDefinition } from './report-type.ts';
import { type GenerateRequest, type ReportFormat, validateRequest } from './request.ts';

export const AGENT_NAME = 'sightline-reports';
export const AGENT_VERSION: string = packageJson.version;
/** No model is called: a report is computed and rendered, so it costs nothing to generate. */
export const COST_USD = '0.00';

export interface GenerateOptions {
  /** The moment the figures are as of and the artifact is created; the clock's time by default. */
  now?: Date;
  /** When the artifact completes or fails; the wall clock by default. */
  clock?: () => Date;
  /** Where files go, bound to the transaction that completes the artifact. */
  files?: (db: Db) => ReportFileStore;
}

export interface GeneratedReport {
  artifactId: number;
  status: 'complete' | 'failed';
  errorMessage: string;
}

const CONTENT_TYPES: Record<ReportFormat, string> = {
  pdf: 'application/pdf',
  html: 'text/html; charset=utf-8',
};

async function render(
  definition: ReportTypeDefinition,
  scope: ReportRequestScope,
  request: GenerateRequest,
  db: Db,
) {
  const data = await gatherReportData(db, scope);
  const doc = buildDocument(definition, data, request.branded);
  // A PDF report keeps the HTML it mirrors too (a web view); an HTML report is only that.
  const files: NewReportFile[] = [{ kind: 'html', contentType: CONTENT_TYPES.html, bytes: renderHtml(doc) }];
  if (request.format === 'pdf') {
    const pdf = await renderPdf(doc, { createdAt: new Date(data.generatedAt) });
    files.unshift({ kind: 'pdf', contentType: CONTENT_TYPES.pdf, bytes: pdf });
  }
  return { files, evidence: evidenceRefsCount(data) };
}

/**
 * Generates one report. A request that cannot work (unknown type, brand or category, a bad
 * window) throws InvalidReportRequest before any artifact exists; once the artifact is queued,
 * every failure ends in a failed artifact (returned, not thrown) with its message.
 */
export async function generateReport(
  db: Db,
  request: GenerateRequest,
  options: GenerateOptions = {},
): Promise<GeneratedReport> {
  const clock = options.clock ?? (() => new Date());
  const now = options.now ?? clock();
  const { definition, scope } = await validateRequest(db, request, now);

  const artifactId = await createQueuedArtifact(db, request.orgId, {
    brandId: request.brandId,
    categoryId: request.categoryId,
    reportType: definition.type,
    format: request.format,
    userId: request.userId,
    isBranded: request.branded,
    agentName: AGENT_NAME,
    agentVersion: AGENT_VERSION,
    costUsd: COST_USD,
    createdAt: now.toISOString(),
  });
  await markRunning(db, request.orgId, artifactId);

  try {
    const { files, evidence } = await render(definition, scope, request, db);
    const store = options.files ?? databaseReportFileStore;
    await inTransaction(db, async (trx) => {
      const bound = store(trx);
      for (const file of files) await bound.put(request.orgId, artifactId, file);
      await markComplete(trx, request.orgId, artifactId, {
        completedAt: clock().toISOString(),
        evidenceRefsCount: evidence,
      });
    });
    return { artifactId, status: 'complete', errorMessage: '' };
  } catch (error) {
    // Inside a caller's transaction the failure is the caller's: rethrown, it rolls back the
    // artifact and any file already written with everything else.
    if (db.isTransaction) throw error;
    const message = `Report generation failed: ${error instanceof Error ? error.message : String(error)}`;
    await markFailed(db, request.orgId, artifactId, { completedAt: clock().toISOString(), message });
    return { artifactId, status: 'failed', errorMessage: message };
  }
}
