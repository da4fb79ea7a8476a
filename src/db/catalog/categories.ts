import {
  characters,
  hasStrayControl,
  InvalidInput,
  sameName,
  validExternalKey,
  validName,
} from '../../domain/catalog.ts';
import type { Db } from '../connect.ts';
import { type BrandRecord, CatalogError, type CategoryRecord, findBrand, findCategory } from './refs.ts';
import { inCatalogTransaction } from './serialized.ts';

// Creating a category under a brand: the brand must be live (not archived or merged), the name
// unique among the brand's categories (ignoring case), the key unique in the organization.

export interface CategoryInput {
  name: string;
  description?: string;
  externalKey?: string;
}

export async function createCategory(
  db: Db,
  brand: BrandRecord,
  input: CategoryInput,
): Promise<CategoryRecord> {
  const assertLive = (status: string) => {
    if (status === 'archived' || status === 'merged') {
      throw new CatalogError(
        `brand ${brand.id} (${brand.name}) is ${status}; categories can only be added to a live brand`,
      );
    }
  };
  assertLive(brand.status);
  const name = validName(input.name, 'category name');
  const description = (input.description ?? '').trim();
  // Rules of the value, as validName's: usage errors (exit 2), not conflicts with the data.
  if (characters(description) > 2000)
    throw new InvalidInput('the description must be at most 2000 characters');
  if (hasStrayControl(description))
    throw new InvalidInput(
      'the description must not hold control characters (line breaks and tabs are fine)',
    );
  const externalKey = input.externalKey === undefined ? null : validExternalKey(input.externalKey);
  const row = await inCatalogTransaction(db, brand.orgId, async (trx) => {
    // Again under the organization's lock: `brand` was read before it, and an archive meanwhile
    // (`brands update --status archived`) let a category into an archived brand.
    assertLive((await findBrand(trx, brand.orgId, brand.id))?.status ?? 'archived');
    // Compared here, not with SQL's lower(): SQLite's folds ASCII alone.
    const clash = (
      await trx
        .selectFrom('categories')
        .select(['id', 'name'])
        .where('org_id', '=', brand.orgId)
        .where('brand_id', '=', brand.id)
        .execute()
    ).find((row) => sameName(row.name, name));
    if (clash)
      throw new CatalogError(
        `brand ${brand.id} already has a category named "${clash.name}" (id ${clash.id})`,
      );
    if (externalKey) {
      const used = await findCategory(trx, brand.orgId, externalKey);
      if (used)
        throw new CatalogError(
          `the key "${externalKey}" is already used by category ${used.id} (${used.name})`,
        );
    }
    return trx
      .insertInto('categories')
      .values({
        org_id: brand.orgId,
        brand_id: brand.id,
        name,
        description,
        is_archived: 0,
        created_at: new Date().toISOString(),
        external_key: externalKey,
      })
      .returning('id')
      .executeTakeFirstOrThrow();
  });
  return { id: row.id, orgId: brand.orgId, brandId: brand.id, name, isArchived: false, externalKey };
}
