import { type Insertable, sql } from 'kysely';
import { type Ref, validExternalKey, validPromptText } from '../../domain/catalog.ts';
import type { PromptRow } from '../../domain/prompt-csv.ts';
import { insertRows } from '../bulk-insert.ts';
import type { Db } from '../connect.ts';
import type { PromptsTable } from '../types.ts';
import {
  CatalogError,
  type CategoryRecord,
  describeRef,
  findCategory,
  findPrompt,
  findPromptsByKey,
  type PromptRecord,
} from './refs.ts';
import { inCatalogTransaction } from './serialized.ts';

// Prompts, one at a time or from a file. A file is all or nothing: every row is checked against the
// database first, and only a file without problems is written, in one transaction. Re-importing
// the same file changes nothing: a row with a known key updates that prompt, a row without a key
// whose text its category already has is left alone.

export interface PromptInput {
  text: string;
  externalKey?: string;
  monitored?: boolean;
}

export class RowsRejected extends CatalogError {
  readonly errors: string[];
  constructor(errors: string[]) {
    super(`${errors.length} problem(s) found; nothing was written`);
    this.errors = errors;
  }
}

function assertLive(category: CategoryRecord): void {
  if (category.isArchived) {
    throw new CatalogError(
      `category ${category.id} (${category.name}) is archived; prompts can only be added to a live category`,
    );
  }
}

async function findPromptByText(
  db: Db,
  category: CategoryRecord,
  text: string,
): Promise<{ id: number } | undefined> {
  return db
    .selectFrom('prompts')
    .select('id')
    .where('org_id', '=', category.orgId)
    .where('category_id', '=', category.id)
    .where('text', '=', text)
    .executeTakeFirst();
}

function newPrompt(category: CategoryRecord, text: string, key: string | null, monitored: boolean) {
  return {
    org_id: category.orgId,
    brand_id: category.brandId,
    category_id: category.id,
    text,
    external_key: key,
    is_monitored: monitored ? 1 : 0,
    is_archived: 0,
    created_at: new Date().toISOString(),
  } satisfies Insertable<PromptsTable>;
}

export async function createPrompt(
  db: Db,
  category: CategoryRecord,
  input: PromptInput,
): Promise<PromptRecord> {
  assertLive(category);
  const text = validPromptText(input.text);
  const key = input.externalKey === undefined ? null : validExternalKey(input.externalKey);
  const monitored = input.monitored ?? true;
  const row = await inCatalogTransaction(db, category.orgId, async (trx) => {
    const same = await findPromptByText(trx, category, text);
    if (same) throw new CatalogError(`category ${category.id} already has this prompt (id ${same.id})`);
    if (key) {
      const used = await findPrompt(trx, category.orgId, key);
      if (used) throw new CatalogError(`the key "${key}" is already used by prompt ${used.id}`);
    }
    return trx
      .insertInto('prompts')
      .values(newPrompt(category, text, key, monitored))
      .returning('id')
      .executeTakeFirstOrThrow();
  });
  return {
    id: row.id,
    orgId: category.orgId,
    brandId: category.brandId,
    categoryId: category.id,
    text,
    externalKey: key,
    isMonitored: monitored,
    isArchived: false,
  };
}

export interface PromptImportResult {
  created: number;
  updated: number;
  unchanged: number;
}

type Planned =
  | { kind: 'create'; category: CategoryRecord; row: PromptRow }
  | { kind: 'update'; id: number; row: PromptRow }
  | { kind: 'unchanged' };

interface Intent {
  row: PromptRow;
  category: CategoryRecord;
  /** The prompt the row's key names, when it exists. */
  existing?: PromptRecord;
}

/**
 * Plans every row against the database; any problem rejects the whole file. Texts are checked
 * against the category as the file leaves it, not as it was: the keyed rows' new texts replace
 * their prompts' old ones first, so a file may swap two prompts' texts, or give a prompt a new
 * text and its old one to a new row, in any order of its lines.
 */
async function plan(
  db: Db,
  orgId: number,
  rows: readonly PromptRow[],
  fallback: CategoryRecord | null,
): Promise<Planned[]> {
  const errors: { line: number; message: string }[] = [];
  const categories = new Map<string, CategoryRecord | undefined>();
  // Each category's prompts by text, read once: one lookup a row made a file of n rows into a
  // category of n prompts n² comparisons (10,000 unchanged rows 9.5 s).
  const texts = new Map<number, Map<string, number>>();
  const textsOf = async (category: CategoryRecord) => {
    let known = texts.get(category.id);
    if (!known) {
      const rows = await db
        .selectFrom('prompts')
        .select(['id', 'text'])
        .where('org_id', '=', category.orgId)
        .where('category_id', '=', category.id)
        .execute();
      known = new Map(rows.map((r) => [r.text, r.id]));
      texts.set(category.id, known);
    }
    return known;
  };
  const byKey = await findPromptsByKey(db, orgId, [
    ...new Set(rows.flatMap((row) => (row.key ? [row.key] : []))),
  ]);
  const seenKeys = new Map<string, number>();
  const seenTexts = new Map<string, number>();
  const intents: Intent[] = [];
  for (const row of rows) {
    const fail = (message: string) => errors.push({ line: row.line, message });
    const ref: Ref | null = row.category ?? (fallback ? fallback.id : null);
    if (ref === null) {
      fail('no category: add a "category" column or pass --category');
      continue;
    }
    const cacheKey = `${typeof ref}:${ref}`;
    if (!categories.has(cacheKey)) categories.set(cacheKey, await findCategory(db, orgId, ref));
    const category = categories.get(cacheKey);
    if (!category) {
      fail(`${describeRef('category', ref)} does not exist in this organization`);
      continue;
    }
    if (category.isArchived) {
      fail(`category ${category.id} (${category.name}) is archived`);
      continue;
    }
    const textKey = `${category.id}\u0000${row.text}`;
    const firstText = seenTexts.get(textKey);
    if (firstText !== undefined) {
      fail(`repeats the prompt of line ${firstText}`);
      continue;
    }
    seenTexts.set(textKey, row.line);
    if (!row.key) {
      intents.push({ row, category });
      continue;
    }
    const firstKey = seenKeys.get(row.key);
    if (firstKey !== undefined) {
      fail(`repeats the key "${row.key}" of line ${firstKey}`);
      continue;
    }
    seenKeys.set(row.key, row.line);
    const existing = byKey.get(row.key);
    if (existing && existing.categoryId !== category.id) {
      fail(
        `the key "${row.key}" is prompt ${existing.id} of category ${existing.categoryId}; prompts cannot move between categories`,
      );
      continue;
    }
    intents.push({ row, category, existing });
  }
  const renamed = intents.filter(
    (i): i is Required<Intent> => i.existing !== undefined && i.existing.text !== i.row.text,
  );
  for (const { category, existing } of renamed) {
    const known = await textsOf(category);
    if (known.get(existing.text) === existing.id) known.delete(existing.text);
  }
  for (const { row, category, existing } of renamed) {
    const known = await textsOf(category);
    const holder = known.get(row.text);
    if (holder === undefined) known.set(row.text, existing.id);
    else
      errors.push({
        line: row.line,
        message: `the new text of prompt ${existing.id} ("${row.key}") is prompt ${holder}'s already`,
      });
  }
  const planned: Planned[] = [];
  for (const { row, category, existing } of intents) {
    if (existing) {
      const same = existing.text === row.text && existing.isMonitored === row.monitored;
      planned.push(same ? { kind: 'unchanged' } : { kind: 'update', id: existing.id, row });
      continue;
    }
    const same = (await textsOf(category)).get(row.text);
    if (same !== undefined && row.key)
      errors.push({
        line: row.line,
        message: `category ${category.id} already has this prompt as id ${same}, without the key "${row.key}"`,
      });
    else planned.push(same !== undefined ? { kind: 'unchanged' } : { kind: 'create', category, row });
  }
  if (errors.length > 0)
    throw new RowsRejected(
      errors.sort((a, b) => a.line - b.line).map(({ line, message }) => `line ${line}: ${message}`),
    );
  return planned;
}

/** Rows per statement of `updatePrompts`: three parameters each. */
const UPDATES_PER_STATEMENT = 500;

/**
 * Sets the prompts' texts and monitored flags, hundreds per statement (one statement a prompt
 * took 3.8 s for 10,000 on PostgreSQL). `values` names its columns column1… on both databases;
 * the casts give PostgreSQL the types its parameters lack.
 */
async function updatePrompts(
  db: Db,
  orgId: number,
  updates: readonly { id: number; text: string; monitored: boolean }[],
): Promise<void> {
  for (let i = 0; i < updates.length; i += UPDATES_PER_STATEMENT) {
    const values = updates
      .slice(i, i + UPDATES_PER_STATEMENT)
      .map((u) => sql`(cast(${u.id} as bigint), ${u.text}, cast(${u.monitored ? 1 : 0} as integer))`);
    await sql`update prompts set text = v.column2, is_monitored = v.column3
      from (values ${sql.join(values)}) as v
      where prompts.org_id = ${orgId} and prompts.id = v.column1`.execute(db);
  }
}

export async function importPrompts(
  db: Db,
  orgId: number,
  rows: readonly PromptRow[],
  fallback: CategoryRecord | null,
): Promise<PromptImportResult> {
  return inCatalogTransaction(db, orgId, async (trx) => {
    const planned = await plan(trx, orgId, rows, fallback);
    const created = planned.flatMap((p) =>
      p.kind === 'create' ? [newPrompt(p.category, p.row.text, p.row.key, p.row.monitored)] : [],
    );
    const updated = planned.flatMap((p) =>
      p.kind === 'update' ? [{ id: p.id, text: p.row.text, monitored: p.row.monitored }] : [],
    );
    await insertRows(trx, 'prompts', created);
    await updatePrompts(trx, orgId, updated);
    return {
      created: created.length,
      updated: updated.length,
      unchanged: planned.length - created.length - updated.length,
    };
  });
}
