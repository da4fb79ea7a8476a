// The demo's report artifacts: every observed type, complete ones with PDF (plus its HTML) or HTML
// only, and the other states a report passes through (queued, running, failed, aborted).

export interface ReportSpec {
  brand: string;
  /** Index into the brand's categories; null for a brand-wide report. */
  category: number | null;
  reportType: string;
  status: 'queued' | 'running' | 'complete' | 'failed' | 'aborted';
  format: 'pdf' | 'html';
  /** Created this many minutes before the seeding day's midnight (UTC). */
  createdMinutesAgo: number;
  /** Minutes from creation to completion, for complete, failed and aborted reports. */
  tookMinutes: number;
  generatedBy: string | null;
  agent: { name: string; version: string };
  costUsd: string;
  evidenceRefs: number;
  isBranded: boolean;
  errorMessage?: string;
  abortedReason?: string;
}

const DAY = 24 * 60;
const IN_DEPTH = { name: 'atlas-report-agent', version: '2.4.0' };
const SUMMARY = { name: 'exec-summary-agent', version: '2.1.3' };
const LEAD_GEN = { name: 'leadgen-brief-agent', version: '1.0.7' };
const WEEKLY = { name: 'weekly-digest', version: '1.3.2' };
const ALICE = 'alice.nguyen@acme.example';
const BOB = 'bob.martinez@acme.example';

function report(
  brand: string,
  reportType: string,
  status: ReportSpec['status'],
  format: ReportSpec['format'],
  createdMinutesAgo: number,
  extra: Partial<ReportSpec> = {},
): ReportSpec {
  const agent =
    reportType === 'in_depth_report'
      ? IN_DEPTH
      : reportType === 'executive_summary_v2'
        ? SUMMARY
        : reportType === 'lead_gen_exec_v1'
          ? LEAD_GEN
          : WEEKLY;
  return {
    brand,
    category: null,
    reportType,
    status,
    format,
    createdMinutesAgo,
    tookMinutes: reportType === 'in_depth_report' ? 38 : 6,
    generatedBy: null,
    agent,
    costUsd:
      reportType === 'in_depth_report'
        ? '4.12'
        : reportType === 'weekly_ai_visibility_update'
          ? '0.21'
          : '0.86',
    evidenceRefs: reportType === 'in_depth_report' ? 42 : 12,
    isBranded: reportType !== 'weekly_ai_visibility_update',
    ...extra,
  };
}

const WEEKLIES = [28, 21, 14, 7].map((days) =>
  report('Brightdesk', 'weekly_ai_visibility_update', 'complete', 'pdf', days * DAY - 7 * 60),
);

export const REPORTS: readonly ReportSpec[] = [
  report('Tallyfield CRM', 'in_depth_report', 'complete', 'pdf', 30 * DAY, {
    generatedBy: 'hana.fischer@globex.example',
  }),
  report('Tallyfield CRM', 'executive_summary_v2', 'queued', 'html', 45, {
    generatedBy: 'hana.fischer@globex.example',
  }),
  report('Ledgerline', 'executive_summary_v2', 'complete', 'html', 12 * DAY, {
    generatedBy: 'peter.gibbons@initech.example',
  }),
  report('Pillpoint Pharmacy', 'weekly_ai_visibility_update', 'complete', 'pdf', 6 * DAY),
  // Hooli's one free report (free plan).
  report('Nestwell', 'in_depth_report', 'complete', 'pdf', 40 * DAY, {
    generatedBy: 'gavin.reyes@hooli.example',
  }),
  report('Copperline Coffee', 'in_depth_report', 'complete', 'pdf', 18 * DAY, { generatedBy: ALICE }),
  report('Copperline Coffee', 'weekly_ai_visibility_update', 'complete', 'html', 4 * DAY, { category: 0 }),
  report('Brightdesk', 'in_depth_report', 'complete', 'pdf', 21 * DAY, { generatedBy: ALICE }),
  report('Brightdesk', 'executive_summary_v2', 'complete', 'html', 14 * DAY, {
    generatedBy: BOB,
    category: 0,
  }),
  ...WEEKLIES,
  report('Brightdesk', 'lead_gen_exec_v1', 'complete', 'pdf', 10 * DAY, { generatedBy: ALICE }),
  report('Brightdesk', 'in_depth_report', 'failed', 'pdf', 3 * DAY, {
    generatedBy: BOB,
    category: 1,
    costUsd: '1.37',
    errorMessage: 'Evidence collection timed out after 900 s; retry with fewer categories.',
  }),
  report('Brightdesk', 'executive_summary_v2', 'aborted', 'html', 2 * DAY, {
    generatedBy: BOB,
    category: 2,
    costUsd: '0.00',
    abortedReason: 'Cancelled by the user before completion.',
  }),
  // Not an in-depth report: the newest in-depth report is the complete retry below, so the
  // README's `latest/?type=in_depth_report` shows a downloadable one; the latest executive
  // summary is this running one.
  report('Brightdesk', 'executive_summary_v2', 'running', 'html', 2 * 60, { generatedBy: BOB }),
  report('Brightdesk', 'lead_gen_exec_v1', 'queued', 'pdf', 30, { generatedBy: ALICE }),
  // Bob's retry of the failed in-depth report, which went through. Last in the list so that the
  // artifacts above keep their ids.
  report('Brightdesk', 'in_depth_report', 'complete', 'pdf', DAY, { generatedBy: BOB, category: 1 }),
];
