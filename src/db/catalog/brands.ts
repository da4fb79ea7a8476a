import {
  type EditableBrandStatus,
  sameName,
  validAliases,
  validExternalKey,
  validName,
  validWebsite,
} from '../../domain/catalog.ts';
import type { Db } from '../connect.ts';
import { type BrandRecord, CatalogError, findBrand } from './refs.ts';
import { inCatalogTransaction } from './serialized.ts';

// Creating and editing brands: validated fields, names unique within the
// organization (ignoring case), external keys unique within it.

export interface BrandInput {
  name: string;
  website?: string;
  aliases?: readonly string[];
  externalKey?: string;
}

export interface BrandChanges extends Partial<BrandInput> {
  status?: EditableBrandStatus;
}

async function assertNameFree(db: Db, orgId: number, name: string, exceptId?: number): Promise<void> {
  let query = db.selectFrom('brands').select(['id', 'name']).where('org_id', '=', orgId);
  if (exceptId !== undefined) query = query.where('id', '!=', exceptId);
  // Compared here, not with SQL's lower(): SQLite's folds ASCII alone ("ÉCOLE" twice passed).
  const clash = (await query.execute()).find((row) => sameName(row.name, name));
  if (clash)
    throw new CatalogError(
      `a brand named "${clash.name}" already exists in this organization (id ${clash.id})`,
    );
}

async function assertKeyFree(db: Db, orgId: number, key: string, exceptId?: number): Promise<void> {
  const clash = await findBrand(db, orgId, key);
  if (clash && clash.id !== exceptId) {
    throw new CatalogError(`the key "${key}" is already used by brand ${clash.id} (${clash.name})`);
  }
}

export async function createBrand(db: Db, orgId: number, input: BrandInput): Promise<BrandRecord> {
  const name = validName(input.name, 'brand name');
  const website = input.website === undefined ? '' : validWebsite(input.website);
  const aliases = validAliases(input.aliases ?? [], name);
  const externalKey = input.externalKey === undefined ? null : validExternalKey(input.externalKey);
  const now = new Date().toISOString();
  const row = await inCatalogTransaction(db, orgId, async (trx) => {
    await assertNameFree(trx, orgId, name);
    if (externalKey) await assertKeyFree(trx, orgId, externalKey);
    return trx
      .insertInto('brands')
      .values({
        org_id: orgId,
        name,
        website,
        aliases: JSON.stringify(aliases),
        status: 'active',
        is_demo: 0,
        executive_summary: '',
        monitoring_interval_hours: 24,
        created_at: now,
        updated_at: now,
        external_key: externalKey,
      })
      .returning('id')
      .executeTakeFirstOrThrow();
  });
  return { id: row.id, orgId, name, website, aliases, status: 'active', externalKey };
}

/** Applies the changes given; a merged brand is read-only (edit the brand it was merged into). */
export async function updateBrand(db: Db, brand: BrandRecord, changes: BrandChanges): Promise<BrandRecord> {
  return inCatalogTransaction(db, brand.orgId, async (trx) => {
    // Read again under the organization's lock: `brand` was read before it, and writing every
    // column from it undid what another command changed meanwhile (a rename beside a pause).
    const current = await findBrand(trx, brand.orgId, brand.id);
    if (!current) throw new CatalogError(`brand ${brand.id} does not exist`);
    if (current.status === 'merged') {
      throw new CatalogError(
        `brand ${current.id} (${current.name}) was merged into another brand; edit that brand instead`,
      );
    }
    const next: BrandRecord = { ...current };
    if (changes.name !== undefined) next.name = validName(changes.name, 'brand name');
    if (changes.website !== undefined)
      next.website = changes.website.trim() === '' ? '' : validWebsite(changes.website);
    if (changes.aliases !== undefined) next.aliases = validAliases(changes.aliases, next.name);
    if (changes.externalKey !== undefined) next.externalKey = validExternalKey(changes.externalKey);
    if (changes.status !== undefined) next.status = changes.status;
    if (changes.name !== undefined) await assertNameFree(trx, current.orgId, next.name, current.id);
    if (next.externalKey !== null && changes.externalKey !== undefined)
      await assertKeyFree(trx, current.orgId, next.externalKey, current.id);
    await trx
      .updateTable('brands')
      .set({
        name: next.name,
        website: next.website,
        aliases: JSON.stringify(next.aliases),
        external_key: next.externalKey,
        status: next.status,
        updated_at: new Date().toISOString(),
      })
      .where('org_id', '=', current.orgId)
      .where('id', '=', current.id)
      .execute();
    return next;
  });
}
