import { type Insertable, sql } from 'kysely';
import { brandNames, canonicalKey } from '../../domain/analyzer/index.ts';
import { InvalidInput, validAliases, validName } from '../../domain/catalog.ts';
import type { Db } from '../connect.ts';
import type { CompetitorCandidatesTable } from '../types.ts';
import { type BrandRecord, CatalogError, type CategoryRecord } from './refs.ts';
import { inCatalogTransaction } from './serialized.ts';

// A category's tracked competitors. The canonical key (analyzer/names.ts) is the competitor's
// identity: "Monday.com" and "monday.com inc" are one competitor. Adding a competitor retires it
// from the category's candidate suggestions.

export interface CompetitorRecord {
  id: number;
  categoryId: number;
  name: string;
  canonicalKey: string;
  aliases: string[];
}

export interface CandidateRecord {
  name: string;
  canonicalKey: string;
  answers: number;
  firstSeenAt: string;
  lastSeenAt: string;
}

export async function addCompetitor(
  db: Db,
  brand: BrandRecord,
  category: CategoryRecord,
  input: { name: string; aliases?: readonly string[] },
): Promise<CompetitorRecord> {
  if (category.isArchived) throw new CatalogError(`category ${category.id} (${category.name}) is archived`);
  const name = validName(input.name, 'competitor name');
  const aliases = validAliases(input.aliases ?? [], name);
  const key = canonicalKey(name);
  // A rule of the value (exit 2), not a conflict with the data.
  if (!key) throw new InvalidInput(`"${name}" has no letters or digits to identify it by`);
  // Any name the analyzer reads as the brand (its name, an alias, its website's domain), given as
  // the competitor's name or one of its aliases: stored, it would never be matched.
  const own = new Set(brandKeys(brand));
  const itself = [name, ...aliases].find((given) => own.has(canonicalKey(given)));
  if (itself !== undefined) throw new CatalogError(`"${itself}" is the brand itself, not a competitor`);
  const row = await inCatalogTransaction(db, category.orgId, async (trx) => {
    const clash = await trx
      .selectFrom('competitors')
      .select(['id', 'canonical_name'])
      .where('org_id', '=', category.orgId)
      .where('category_id', '=', category.id)
      .where('canonical_key', '=', key)
      .executeTakeFirst();
    if (clash) {
      throw new CatalogError(
        `category ${category.id} already tracks "${clash.canonical_name}" (competitor ${clash.id})`,
      );
    }
    const inserted = await trx
      .insertInto('competitors')
      .values({
        org_id: category.orgId,
        brand_id: category.brandId,
        category_id: category.id,
        name,
        canonical_key: key,
        canonical_name: name,
        aliases: JSON.stringify(aliases),
        created_at: new Date().toISOString(),
      })
      .returning('id')
      .executeTakeFirstOrThrow();
    await trx
      .deleteFrom('competitor_candidates')
      .where('org_id', '=', category.orgId)
      .where('category_id', '=', category.id)
      .where('canonical_key', '=', key)
      .execute();
    return inserted;
  });
  return { id: row.id, categoryId: category.id, name, canonicalKey: key, aliases };
}

/** The canonical keys of every name the analyzer reads as the brand (its name, aliases, website's domain). */
const brandKeys = (brand: BrandRecord) => [
  ...new Set(
    brandNames(brand)
      .map(canonicalKey)
      .filter((k) => k !== ''),
  ),
];

/**
 * The brand's tracked competitors that go by a name the analyzer reads as the brand: answers
 * naming them count for the brand, and they are never matched.
 */
export async function competitorsNamedAsBrand(
  db: Db,
  brand: BrandRecord,
): Promise<Array<{ id: number; name: string; categoryId: number }>> {
  const rows = await db
    .selectFrom('competitors')
    .select(['id', 'name', 'category_id'])
    .where('org_id', '=', brand.orgId)
    .where('brand_id', '=', brand.id)
    .where('canonical_key', 'in', brandKeys(brand))
    .orderBy('id')
    .execute();
  return rows.map((r) => ({ id: r.id, name: r.name, categoryId: r.category_id }));
}

/** Untracked names answers in the category ranked, most frequent first. */
export async function listCandidates(
  db: Db,
  category: CategoryRecord,
  limit = 50,
): Promise<CandidateRecord[]> {
  const rows = await db
    .selectFrom('competitor_candidates')
    .select(['name', 'canonical_key', 'answers', 'first_seen_at', 'last_seen_at'])
    .where('org_id', '=', category.orgId)
    .where('category_id', '=', category.id)
    .orderBy('answers', 'desc')
    .orderBy('canonical_key')
    .limit(limit)
    .execute();
  return rows.map((r) => ({
    name: r.name,
    canonicalKey: r.canonical_key,
    answers: r.answers,
    firstSeenAt: r.first_seen_at,
    lastSeenAt: r.last_seen_at,
  }));
}

/** What the analyzer of a category is built from: its brand's names and its competitors. */
export async function categorySubject(db: Db, orgId: number, categoryId: number) {
  const brand = await db
    .selectFrom('categories as c')
    .innerJoin('brands as b', 'b.id', 'c.brand_id')
    .select(['b.name', 'b.aliases', 'b.website'])
    .where('c.org_id', '=', orgId)
    .where('b.org_id', '=', orgId)
    .where('c.id', '=', categoryId)
    .executeTakeFirstOrThrow();
  const competitors = await db
    .selectFrom('competitors')
    .select(['id', 'name', 'canonical_key', 'canonical_name', 'aliases'])
    .where('org_id', '=', orgId)
    .where('category_id', '=', categoryId)
    .orderBy('id')
    .execute();
  return { brand, competitors };
}

/** Adds answers seen naming untracked competitors to their tallies, widening the seen span. */
export async function tallyCandidates(db: Db, rows: readonly Insertable<CompetitorCandidatesTable>[]) {
  if (rows.length === 0) return;
  await db
    .insertInto('competitor_candidates')
    .values(rows)
    .onConflict((oc) =>
      oc.columns(['category_id', 'canonical_key']).doUpdateSet({
        answers: sql`competitor_candidates.answers + excluded.answers`,
        first_seen_at: sql`case when excluded.first_seen_at < competitor_candidates.first_seen_at then excluded.first_seen_at else competitor_candidates.first_seen_at end`,
        last_seen_at: sql`case when excluded.last_seen_at > competitor_candidates.last_seen_at then excluded.last_seen_at else competitor_candidates.last_seen_at end`,
      }),
    )
    .execute();
}
