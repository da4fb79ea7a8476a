// Report generation: one artifact moves queued → running → complete, or → failed with its error
// message, or → aborted when its caller's signal stops it. Everything is gathered and rendered in
// memory first; the files and the status change to complete are then written in one transaction,
// so a report is either complete with all its files or failed or aborted with none. A process
// killed outright cannot say so: the next generation in the organization, or `sightline serve`'s
// sweep, aborts what it left (`abandoned.ts`).
import { setImmediate } from 'node:timers/promises';
import packageJson from '../../package.json' with { type: 'json' };
import type { ReportFontFile } from '../config.ts';
import type { Db } from '../db/connect.ts';
import {
  createQueuedArtifact,
  markAborted,
  markComplete,
  markFailed,
  markRunning,
} from '../db/report-artifacts.ts';
import { databaseReportFileStore, type NewReportFile, type ReportFileStore } from '../db/report-files.ts';
import { inTransaction } from '../db/transaction.ts';
import { AGENT_NAME, abortAbandonedReports } from './abandoned.ts';
import { evidenceRefsCount, gatherReportData, type ReportRequestScope } from './data.ts';
import { type ReportFonts, reportFonts } from './fonts.ts';
import { renderHtml } from './render-html.ts';
import { renderPdf } from './render-pdf.ts';
import { buildDocument, type ReportTypeDefinition } from './report-type.ts';
import { type GenerateRequest, type ReportFormat, validateRequest } from './request.ts';

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
  /** Stops the generation (its reason, e.g. "SIGINT", is recorded); the artifact is then aborted. */
  signal?: AbortSignal;
  /** The PDF's fallback fonts (REPORT_FONTS). */
  fonts?: readonly ReportFontFile[];
}

export interface GeneratedReport {
  artifactId: number;
  status: 'complete' | 'failed' | 'aborted';
  errorMessage: string;
  /** For the operator only: the failed step and the error's own words (`while …: …`). */
  failureDetail: string;
  abortedReason: string;
  /** Characters of a complete PDF that no font had, drawn as empty boxes (REPORT_FONTS). */
  missingGlyphs: string[];
}

/**
 * Throws the signal's reason once it is aborted. It waits for the event loop first: a signal's
 * handler runs there, and the database's answers and the rendering alone never let it in.
 */
async function checkpoint(signal: AbortSignal | undefined): Promise<void> {
  if (!signal) return;
  await setImmediate();
  signal.throwIfAborted();
}

function interrupted(reason: unknown): string {
  return typeof reason === 'string'
    ? `Interrupted (${reason}) before it was finished.`
    : 'Interrupted before it was finished.';
}

// What a failed artifact's `errorMessage` tells the API's callers: the step that failed, never the
// error's own words, which name the store's or the database's hosts, paths and objects. The
// generating command prints those to its operator.
const FAILED = {
  render: 'while gathering the figures and drawing the report',
  store: "while storing the report's files",
} as const;

const CONTENT_TYPES: Record<ReportFormat, string> = {
  pdf: 'application/pdf',
  html: 'text/html; charset=utf-8',
};

async function render(
  definition: ReportTypeDefinition,
  scope: ReportRequestScope,
  request: GenerateRequest,
  db: Db,
  /** The PDF's fonts; null for an HTML report, which has no PDF. */
  fonts: ReportFonts | null,
  signal: AbortSignal | undefined,
) {
  const data = await gatherReportData(db, scope);
  await checkpoint(signal);
  const doc = buildDocument(definition, data, request.branded);
  // A PDF report keeps the HTML it mirrors too (a web view); an HTML report is only that.
  const files: NewReportFile[] = [{ kind: 'html', contentType: CONTENT_TYPES.html, bytes: renderHtml(doc) }];
  let missingGlyphs: string[] = [];
  if (fonts) {
    const pdf = await renderPdf(doc, fonts, { createdAt: new Date(data.generatedAt) });
    files.unshift({ kind: 'pdf', contentType: CONTENT_TYPES.pdf, bytes: pdf.bytes });
    missingGlyphs = pdf.missingGlyphs;
  }
  return { files, evidence: evidenceRefsCount(data), missingGlyphs };
}

/**
 * Generates one report. A request that cannot work (unknown type, brand or category, a bad
 * window) throws InvalidReportRequest before any artifact exists; once the artifact is queued,
 * every failure ends in a failed artifact (returned, not thrown) with its message, and a stop by
 * `signal` in an aborted one with its reason. Before queuing, the organization's artifacts a
 * killed generation left are aborted (`abandoned.ts`).
 */
export async function generateReport(
  db: Db,
  request: GenerateRequest,
  options: GenerateOptions = {},
): Promise<GeneratedReport> {
  const clock = options.clock ?? (() => new Date());
  const now = options.now ?? clock();
  const { definition, scope } = await validateRequest(db, request, now);
  // A REPORT_FONTS entry that is not a font fails here, before there is an artifact to fail; an
  // HTML report draws no text itself and reads none.
  const fonts = request.format === 'pdf' ? reportFonts(options.fonts) : null;
  const { signal } = options;
  await checkpoint(signal);

  const started = clock();
  await abortAbandonedReports(db, started, request.orgId);
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

  let stage: keyof typeof FAILED = 'render';
  try {
    await checkpoint(signal);
    const { files, evidence, missingGlyphs } = await render(definition, scope, request, db, fonts, signal);
    await checkpoint(signal);
    stage = 'store';
    const store = options.files ?? databaseReportFileStore;
    await inTransaction(db, async (trx) => {
      const bound = store(trx);
      for (const file of files) await bound.put(request.orgId, artifactId, file);
      await checkpoint(signal);
      await markComplete(trx, request.orgId, artifactId, {
        completedAt: clock().toISOString(),
        evidenceRefsCount: evidence,
      });
    });
    return {
      artifactId,
      status: 'complete',
      errorMessage: '',
      failureDetail: '',
      abortedReason: '',
      missingGlyphs,
    };
  } catch (error) {
    // Inside a caller's transaction the failure is the caller's: rethrown, it rolls back the
    // artifact and any file already written with everything else.
    if (db.isTransaction) throw error;
    const completedAt = clock().toISOString();
    if (signal?.aborted) {
      const reason = interrupted(signal.reason);
      await markAborted(db, request.orgId, artifactId, { completedAt, reason });
      return {
        artifactId,
        status: 'aborted',
        errorMessage: '',
        failureDetail: '',
        abortedReason: reason,
        missingGlyphs: [],
      };
    }
    const message = `Report generation failed ${FAILED[stage]}.`;
    await markFailed(db, request.orgId, artifactId, { completedAt, message });
    return {
      artifactId,
      status: 'failed',
      errorMessage: message,
      failureDetail: `${FAILED[stage]}: ${error instanceof Error ? error.message : String(error)}`,
      abortedReason: '',
      missingGlyphs: [],
    };
  }
}
