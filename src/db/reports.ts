import type { Db } from './connect.ts';
import { type Organization, PLANS } from './organizations.ts';

// Report artifacts of a brand. Every query filters on the caller's organization, including the
// joins, so an id of another organization reads as absent.

export interface ReportBrand {
  id: number;
  name: string;
  isDemo: boolean;
}

export interface ReportArtifact {
  id: number;
  brandId: number;
  /** For download file names: the brand the artifact belongs to. */
  brandName: string;
  /** null: a brand-wide artifact. */
  categoryId: number | null;
  reportType: string;
  status: string;
  format: string;
  createdAt: string;
  completedAt: string | null;
  errorMessage: string;
  agentName: string;
  agentVersion: string;
  costUsd: string;
  kgGenerationJob: string;
  evidenceRefsCount: number;
  isBranded: boolean;
  abortedReason: string;
  generatedByEmail: string;
}

export interface ReportPermissions {
  canViewReports: boolean;
  canGenerate: boolean;
  canGenerateFreeReport: boolean;
  hasFreeReport: boolean;
  reportsReady: boolean;
  isDemo: boolean;
}

export interface ReportFilter {
  /** Artifacts of this category plus the brand-wide ones. */
  categoryId?: number;
  reportType?: string;
}

export const REPORT_COMPLETE = 'complete';

export async function findReportBrand(
  db: Db,
  orgId: number,
  brandId: number,
): Promise<ReportBrand | undefined> {
  const row = await db
    .selectFrom('brands')
    .select(['id', 'name', 'is_demo'])
    .where('org_id', '=', orgId)
    .where('id', '=', brandId)
    .executeTakeFirst();
  return row ? { id: row.id, name: row.name, isDemo: row.is_demo === 1 } : undefined;
}

export async function isBrandCategory(
  db: Db,
  orgId: number,
  brandId: number,
  categoryId: number,
): Promise<boolean> {
  const row = await db
    .selectFrom('categories')
    .select('id')
    .where('org_id', '=', orgId)
    .where('brand_id', '=', brandId)
    .where('id', '=', categoryId)
    .executeTakeFirst();
  return row !== undefined;
}

function artifacts(db: Db, orgId: number) {
  return db
    .selectFrom('report_artifacts as a')
    .innerJoin('brands as b', (join) => join.onRef('b.id', '=', 'a.brand_id').on('b.org_id', '=', orgId))
    .leftJoin('users as u', 'u.id', 'a.generated_by_user_id')
    .where('a.org_id', '=', orgId);
}

function selectArtifact(query: ReturnType<typeof artifacts>) {
  return query.select([
    'a.id',
    'a.brand_id',
    'b.name as brand_name',
    'a.category_id',
    'a.report_type',
    'a.status',
    'a.format',
    'a.created_at',
    'a.completed_at',
    'a.error_message',
    'a.agent_name',
    'a.agent_version',
    'a.cost_usd',
    'a.kg_generation_job',
    'a.evidence_refs_count',
    'a.is_branded',
    'a.aborted_reason',
    'u.email as generated_by_email',
  ]);
}

type ArtifactRow = Awaited<ReturnType<ReturnType<typeof selectArtifact>['executeTakeFirstOrThrow']>>;

function toArtifact(row: ArtifactRow): ReportArtifact {
  return {
    id: row.id,
    brandId: row.brand_id,
    brandName: row.brand_name,
    categoryId: row.category_id,
    reportType: row.report_type,
    status: row.status,
    format: row.format,
    createdAt: row.created_at,
    completedAt: row.completed_at,
    errorMessage: row.error_message,
    agentName: row.agent_name,
    agentVersion: row.agent_version,
    costUsd: row.cost_usd,
    kgGenerationJob: row.kg_generation_job,
    evidenceRefsCount: row.evidence_refs_count,
    isBranded: row.is_branded === 1,
    abortedReason: row.aborted_reason,
    generatedByEmail: row.generated_by_email ?? '',
  };
}

function filtered(db: Db, orgId: number, brandId: number, filter: ReportFilter) {
  let query = artifacts(db, orgId).where('a.brand_id', '=', brandId);
  const { categoryId, reportType } = filter;
  if (categoryId !== undefined) {
    query = query.where((eb) =>
      eb.or([eb('a.category_id', '=', categoryId), eb('a.category_id', 'is', null)]),
    );
  }
  if (reportType !== undefined) query = query.where('a.report_type', '=', reportType);
  return query;
}

/** How many of a brand's artifacts the filter matches. */
export async function countReportArtifacts(
  db: Db,
  orgId: number,
  brandId: number,
  filter: ReportFilter,
): Promise<number> {
  const total = await filtered(db, orgId, brandId, filter)
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .executeTakeFirstOrThrow();
  return Number(total.n);
}

/** One page of a brand's artifacts, newest first. */
export async function reportArtifactsPage(
  db: Db,
  orgId: number,
  brandId: number,
  filter: ReportFilter,
  page: { offset: number; pageSize: number },
): Promise<ReportArtifact[]> {
  const rows = await selectArtifact(filtered(db, orgId, brandId, filter))
    .orderBy('a.created_at', 'desc')
    .orderBy('a.id', 'desc')
    .limit(page.pageSize)
    .offset(page.offset)
    .execute();
  return rows.map(toArtifact);
}

/** The newest artifact of a type for the brand, whatever its status (a poll target as much as a result). */
export async function latestReportArtifact(
  db: Db,
  orgId: number,
  brandId: number,
  reportType: string,
): Promise<ReportArtifact | undefined> {
  const row = await selectArtifact(filtered(db, orgId, brandId, { reportType }))
    .orderBy('a.created_at', 'desc')
    .orderBy('a.id', 'desc')
    .limit(1)
    .executeTakeFirst();
  return row ? toArtifact(row) : undefined;
}

export async function findReportArtifact(
  db: Db,
  orgId: number,
  artifactId: number,
): Promise<ReportArtifact | undefined> {
  const row = await selectArtifact(artifacts(db, orgId).where('a.id', '=', artifactId)).executeTakeFirst();
  return row ? toArtifact(row) : undefined;
}

async function hasCompleteArtifact(db: Db, orgId: number, brandId: number): Promise<boolean> {
  const row = await db
    .selectFrom('report_artifacts')
    .select('id')
    .where('org_id', '=', orgId)
    .where('brand_id', '=', brandId)
    .where('status', '=', REPORT_COMPLETE)
    .limit(1)
    .executeTakeFirst();
  return row !== undefined;
}

/**
 * Whether the organization may see reports at all: any paid plan, or a free organization that has
 * used its one free report. The single-artifact endpoints hide artifacts exactly when the list does.
 */
export function canViewReports(org: Pick<Organization, 'plan' | 'freeReportUsed'>): boolean {
  return org.plan !== 'free' || org.freeReportUsed;
}

/** What this organization may do with this brand's reports (decisions.md, Reports). */
export async function reportPermissions(
  db: Db,
  org: Pick<Organization, 'id' | 'plan' | 'freeReportUsed'>,
  brand: ReportBrand,
): Promise<ReportPermissions> {
  const free = org.plan === 'free';
  return {
    canViewReports: canViewReports(org),
    canGenerate: PLANS.indexOf(org.plan) >= PLANS.indexOf('starter') && !brand.isDemo,
    canGenerateFreeReport: free && !org.freeReportUsed && !brand.isDemo,
    hasFreeReport: org.freeReportUsed,
    reportsReady: await hasCompleteArtifact(db, org.id, brand.id),
    isDemo: brand.isDemo,
  };
}
