import type { Selectable } from 'kysely';
import type { Ref } from '../../domain/catalog.ts';
import type { Db } from '../connect.ts';
import type { PromptsTable } from '../types.ts';

// Looking up what an operator or an import line names — by Sightline id or by the operator's own
// external key — always inside one organization.

export class CatalogError extends Error {
  override name = 'CatalogError';
}

export interface OrganizationRef {
  id: number;
  slug: string;
}

export interface BrandRecord {
  id: number;
  orgId: number;
  name: string;
  website: string;
  aliases: string[];
  status: string;
  externalKey: string | null;
}

export interface CategoryRecord {
  id: number;
  orgId: number;
  brandId: number;
  name: string;
  isArchived: boolean;
  externalKey: string | null;
}

export interface PromptRecord {
  id: number;
  orgId: number;
  brandId: number;
  categoryId: number;
  text: string;
  externalKey: string | null;
  isMonitored: boolean;
  isArchived: boolean;
}

/** How a reference reads in a message: `brand 12` or `brand "acme-cloud"`. */
export function describeRef(what: string, ref: Ref): string {
  return typeof ref === 'number' ? `${what} ${ref}` : `${what} "${ref}"`;
}

export function parseAliases(json: string): string[] {
  const value: unknown = JSON.parse(json);
  return Array.isArray(value) ? value.filter((a): a is string => typeof a === 'string') : [];
}

/** An organization by slug or id; not scoped (it is the scope). */
export async function findOrganization(db: Db, ref: Ref): Promise<OrganizationRef | undefined> {
  const query = db.selectFrom('organizations').select(['id', 'slug']);
  return (
    typeof ref === 'number' ? query.where('id', '=', ref) : query.where('slug', '=', ref)
  ).executeTakeFirst();
}

export async function requireOrganization(db: Db, slug: string): Promise<OrganizationRef> {
  const org = await findOrganization(db, slug);
  if (!org) throw new CatalogError(`organization "${slug}" does not exist (see: sightline orgs list)`);
  return org;
}

export async function findBrand(db: Db, orgId: number, ref: Ref): Promise<BrandRecord | undefined> {
  const query = db
    .selectFrom('brands')
    .select(['id', 'org_id', 'name', 'website', 'aliases', 'status', 'external_key'])
    .where('org_id', '=', orgId);
  const row = await (typeof ref === 'number'
    ? query.where('id', '=', ref)
    : query.where('external_key', '=', ref)
  ).executeTakeFirst();
  return row
    ? {
        id: row.id,
        orgId: row.org_id,
        name: row.name,
        website: row.website,
        aliases: parseAliases(row.aliases),
        status: row.status,
        externalKey: row.external_key,
      }
    : undefined;
}

export async function findCategory(db: Db, orgId: number, ref: Ref): Promise<CategoryRecord | undefined> {
  const query = db
    .selectFrom('categories')
    .select(['id', 'org_id', 'brand_id', 'name', 'is_archived', 'external_key'])
    .where('org_id', '=', orgId);
  const row = await (typeof ref === 'number'
    ? query.where('id', '=', ref)
    : query.where('external_key', '=', ref)
  ).executeTakeFirst();
  return row
    ? {
        id: row.id,
        orgId: row.org_id,
        brandId: row.brand_id,
        name: row.name,
        isArchived: row.is_archived === 1,
        externalKey: row.external_key,
      }
    : undefined;
}

const promptColumns = [
  'id',
  'org_id',
  'brand_id',
  'category_id',
  'text',
  'external_key',
  'is_monitored',
  'is_archived',
] as const;

function promptRecord(row: Pick<Selectable<PromptsTable>, (typeof promptColumns)[number]>): PromptRecord {
  return {
    id: row.id,
    orgId: row.org_id,
    brandId: row.brand_id,
    categoryId: row.category_id,
    text: row.text,
    externalKey: row.external_key,
    isMonitored: row.is_monitored === 1,
    isArchived: row.is_archived === 1,
  };
}

export async function findPrompt(db: Db, orgId: number, ref: Ref): Promise<PromptRecord | undefined> {
  const query = db.selectFrom('prompts').select(promptColumns).where('org_id', '=', orgId);
  const row = await (typeof ref === 'number'
    ? query.where('id', '=', ref)
    : query.where('external_key', '=', ref)
  ).executeTakeFirst();
  return row ? promptRecord(row) : undefined;
}

/** Keys per statement: far under either database's limit on bound parameters. */
const KEYS_PER_LOOKUP = 1_000;

/**
 * The organization's prompts the keys name, by key; a key no prompt has is absent. A file of
 * 10,000 keyed rows looked up one statement a row took 4 s on PostgreSQL before writing anything.
 */
export async function findPromptsByKey(
  db: Db,
  orgId: number,
  keys: readonly string[],
): Promise<Map<string, PromptRecord>> {
  const found = new Map<string, PromptRecord>();
  for (let i = 0; i < keys.length; i += KEYS_PER_LOOKUP) {
    const rows = await db
      .selectFrom('prompts')
      .select(promptColumns)
      .where('org_id', '=', orgId)
      .where('external_key', 'in', keys.slice(i, i + KEYS_PER_LOOKUP))
      .execute();
    for (const row of rows) if (row.external_key !== null) found.set(row.external_key, promptRecord(row));
  }
  return found;
}

export async function requireBrand(db: Db, orgId: number, ref: Ref, orgSlug: string): Promise<BrandRecord> {
  const brand = await findBrand(db, orgId, ref);
  if (!brand)
    throw new CatalogError(`${describeRef('brand', ref)} does not exist in organization ${orgSlug}`);
  return brand;
}

/** A category of the organization; when `brand` is given it must be that brand's. */
export async function requireCategory(
  db: Db,
  orgId: number,
  ref: Ref,
  orgSlug: string,
  brand?: BrandRecord,
): Promise<CategoryRecord> {
  const category = await findCategory(db, orgId, ref);
  if (!category)
    throw new CatalogError(`${describeRef('category', ref)} does not exist in organization ${orgSlug}`);
  if (brand && category.brandId !== brand.id) {
    throw new CatalogError(
      `category ${category.id} (${category.name}) belongs to brand ${category.brandId}, not to brand ${brand.id} (${brand.name})`,
    );
  }
  return category;
}
