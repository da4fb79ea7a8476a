import { categorySubject } from '../db/catalog/competitors.ts';
import {
  findBrand,
  findCategory,
  findOrganization,
  findPrompt,
  type OrganizationRef,
  type PromptRecord,
  parseAliases,
} from '../db/catalog/refs.ts';
import type { Db } from '../db/connect.ts';
import { runsByExternalId } from '../db/run-writes.ts';
import { type Analyzer, type AnalyzerSubject, createAnalyzer } from '../domain/analyzer/index.ts';
import type { Ref } from '../domain/catalog.ts';

// What an import needs to know about the names its lines use, each looked up once per import (a
// file of a million answers names a few hundred prompts). Every lookup is scoped to the line's
// organization. `on(trx)` shares the caches with a handle bound to the import's transaction.

export interface ExistingRun {
  id: number;
  brandId: number;
  categoryId: number;
  status: string;
  methodology: string;
  isLegacy: number;
  publishedAt: string | null;
}

/** A category's analyzer and the ids its mentions are stored under. */
export interface CategoryContext {
  analyzer: Analyzer;
  /** What the analyzer was built from, for analysis threads to build their own. */
  subject: AnalyzerSubject;
  brandName: string;
  competitorIds: Map<string, number>;
}

class Caches {
  organizations = new Map<string, OrganizationRef | undefined>();
  prompts = new Map<string, PromptRecord | undefined>();
  brands = new Map<string, number | undefined>();
  categories = new Map<string, number | undefined>();
  runs = new Map<string, ExistingRun | undefined>();
  contexts = new Map<number, CategoryContext>();
}

const refKey = (orgId: number, ref: Ref) => `${orgId}:${typeof ref}:${ref}`;
const runCacheKey = (orgId: number, externalId: string) => `${orgId}:${externalId}`;
const PREFETCH_CHUNK = 500;

async function cached<T>(cache: Map<string, T>, key: string, load: () => Promise<T>): Promise<T> {
  if (cache.has(key)) return cache.get(key) as T;
  const value = await load();
  cache.set(key, value);
  return value;
}

export class Lookups {
  private readonly db: Db;
  private readonly caches: Caches;

  constructor(db: Db, caches = new Caches()) {
    this.db = db;
    this.caches = caches;
  }

  on(db: Db): Lookups {
    return new Lookups(db, this.caches);
  }

  organization(ref: Ref): Promise<OrganizationRef | undefined> {
    return cached(this.caches.organizations, `${typeof ref}:${ref}`, () => findOrganization(this.db, ref));
  }

  prompt(orgId: number, ref: Ref): Promise<PromptRecord | undefined> {
    return cached(this.caches.prompts, refKey(orgId, ref), () => findPrompt(this.db, orgId, ref));
  }

  async brandId(orgId: number, ref: Ref): Promise<number | undefined> {
    return cached(
      this.caches.brands,
      refKey(orgId, ref),
      async () => (await findBrand(this.db, orgId, ref))?.id,
    );
  }

  async categoryId(orgId: number, ref: Ref): Promise<number | undefined> {
    return cached(
      this.caches.categories,
      refKey(orgId, ref),
      async () => (await findCategory(this.db, orgId, ref))?.id,
    );
  }

  run(orgId: number, externalId: string): Promise<ExistingRun | undefined> {
    return cached(
      this.caches.runs,
      runCacheKey(orgId, externalId),
      async () => (await runsByExternalId(this.db, orgId, [externalId]))[0],
    );
  }

  /**
   * Looks up in one query the runs of an organization that `run` has not seen yet, so an input
   * naming thousands of runs does not cost a round trip each.
   */
  async prefetchRuns(orgId: number, externalIds: readonly string[]): Promise<void> {
    const unseen = [...new Set(externalIds)].filter((id) => !this.caches.runs.has(runCacheKey(orgId, id)));
    for (let i = 0; i < unseen.length; i += PREFETCH_CHUNK) {
      const chunk = unseen.slice(i, i + PREFETCH_CHUNK);
      const rows = await runsByExternalId(this.db, orgId, chunk);
      const found = new Map(rows.map((row) => [row.externalId, row]));
      for (const id of chunk) this.caches.runs.set(runCacheKey(orgId, id), found.get(id));
    }
  }

  async context(orgId: number, categoryId: number): Promise<CategoryContext> {
    const known = this.caches.contexts.get(categoryId);
    if (known) return known;
    const { brand, competitors } = await categorySubject(this.db, orgId, categoryId);
    const subject: AnalyzerSubject = {
      brand: { name: brand.name, aliases: parseAliases(brand.aliases), website: brand.website },
      competitors: competitors.map((c) => ({
        name: c.canonical_name,
        key: c.canonical_key,
        aliases: [c.name, ...parseAliases(c.aliases)],
      })),
    };
    const context: CategoryContext = {
      analyzer: createAnalyzer(subject),
      subject,
      brandName: brand.name,
      competitorIds: new Map(competitors.map((c) => [c.canonical_key, c.id])),
    };
    this.caches.contexts.set(categoryId, context);
    return context;
  }
}
