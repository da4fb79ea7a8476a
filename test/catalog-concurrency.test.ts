import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createBrand, updateBrand } from '../src/db/catalog/brands.ts';
import { createCategory } from '../src/db/catalog/categories.ts';
import { addCompetitor } from '../src/db/catalog/competitors.ts';
import { createPrompt, importPrompts } from '../src/db/catalog/prompts.ts';
import { CatalogError } from '../src/db/catalog/refs.ts';
import { createOrganization } from '../src/db/organizations.ts';
import { parsePromptCsv } from '../src/domain/prompt-csv.ts';
import { runCli } from './support/cli.ts';
import { createTestContext, type TestContext } from './support/context.ts';
import { insertOrg } from './support/fixtures.ts';

// The catalog's names are unique by the writers' own check (a prompt's text is too long for an
// index), so the same name added several times at once, by several promises or several
// processes, must be stored once: the others are refused by name, as a second add after the first
// would be. An organization's slug has an index: the insert itself says it was taken.

let ctx: TestContext;
let orgId: number;

before(async () => {
  ctx = await createTestContext();
  orgId = await insertOrg(ctx.dbs.primary, 'acme');
});
after(() => ctx.close());

/** Runs `add` five times at once: one must be stored, four refused with `refusal`. */
async function onceOfFive<T>(add: () => Promise<T>, refusal: RegExp): Promise<T> {
  const settled = await Promise.allSettled(Array.from({ length: 5 }, add));
  const stored = settled.flatMap((s) => (s.status === 'fulfilled' ? [s.value] : []));
  const refused = settled.flatMap((s) => (s.status === 'rejected' ? [s.reason] : []));
  assert.equal(stored.length, 1, `stored ${stored.length} times; refusals: ${refused.join('; ')}`);
  for (const error of refused) {
    assert.ok(error instanceof CatalogError && refusal.test(error.message), String(error));
  }
  return stored[0] as T;
}

const count = async (table: 'brands' | 'categories' | 'prompts' | 'competitors') =>
  Number(
    (
      await ctx.dbs.primary
        .selectFrom(table)
        .select((eb) => eb.fn.countAll().as('n'))
        .where('org_id', '=', orgId)
        .executeTakeFirstOrThrow()
    ).n,
  );

describe('the same catalog name added several times at once', () => {
  it('stores one brand, category, prompt and competitor, and refuses the rest by name', async () => {
    const db = ctx.dbs.primary;
    const brand = await onceOfFive(
      () => createBrand(db, orgId, { name: 'Linear' }),
      /^a brand named "Linear" already exists/,
    );
    const category = await onceOfFive(
      () => createCategory(db, brand, { name: 'PM tools' }),
      /already has a category named "PM tools"/,
    );
    await onceOfFive(() => createPrompt(db, category, { text: 'Best PM tool?' }), /already has this prompt/);
    await onceOfFive(() => addCompetitor(db, brand, category, { name: 'Jira' }), /already tracks "Jira"/);
    assert.deepEqual(
      [await count('brands'), await count('categories'), await count('prompts'), await count('competitors')],
      [1, 1, 1, 1],
    );
  });

  it('knows a name again in another case of letters outside ASCII, as both databases store it', async () => {
    const db = ctx.dbs.primary;
    const brand = await createBrand(db, orgId, { name: 'École Pro' });
    for (const name of ['École Pro', 'ÉCOLE PRO', 'école pro']) {
      await assert.rejects(
        createBrand(db, orgId, { name }),
        /^CatalogError: a brand named "École Pro" already exists/,
      );
    }
    const other = await createBrand(db, orgId, { name: 'Über' });
    await assert.rejects(updateBrand(db, other, { name: 'ÉCOLE pro' }), /a brand named "École Pro"/);
    await createCategory(db, brand, { name: 'Ärzte' });
    await assert.rejects(
      createCategory(db, brand, { name: 'ÄRZTE' }),
      /already has a category named "Ärzte"/,
    );
  });

  it('refuses the brand itself as a competitor, by any name the analyzer reads as the brand', async () => {
    const db = ctx.dbs.primary;
    const brand = await createBrand(db, orgId, {
      name: 'Linearis',
      aliases: ['Linearis.app', 'LNRS'],
      website: 'https://www.linearis-hq.example',
    });
    const category = await createCategory(db, brand, { name: 'Issue trackers' });
    // By its name, an alias, its website's domain, or as one of the competitor's aliases.
    for (const [name, aliases, itself] of [
      ['linearis', [], 'linearis'],
      ['Linearis.app', [], 'Linearis.app'],
      ['lnrs', [], 'lnrs'],
      ['linearis-hq.example', [], 'linearis-hq.example'],
      ['Jira', ['Linearis'], 'Linearis'],
    ] as const) {
      await assert.rejects(addCompetitor(db, brand, category, { name, aliases: [...aliases] }), {
        name: 'CatalogError',
        message: `"${itself}" is the brand itself, not a competitor`,
      });
    }
    assert.equal((await addCompetitor(db, brand, category, { name: 'Jira' })).name, 'Jira');
  });

  it('adds no category to a brand archived after it was read', async () => {
    const db = ctx.dbs.primary;
    const read = await createBrand(db, orgId, { name: 'Trello' });
    await updateBrand(db, read, { status: 'archived' });
    await assert.rejects(
      createCategory(db, read, { name: 'Boards' }),
      /^CatalogError: brand \d+ \(Trello\) is archived; categories can only be added to a live brand$/,
    );
    assert.deepEqual(
      await db.selectFrom('categories').select('id').where('brand_id', '=', read.id).execute(),
      [],
    );
  });

  it('two changes to one brand at once, each from the brand as read before: both are kept', async () => {
    const db = ctx.dbs.primary;
    const read = await createBrand(db, orgId, { name: 'Basecamp' });
    await Promise.all([
      updateBrand(db, read, { name: 'Basecamp 4' }),
      updateBrand(db, read, { status: 'paused' }),
      updateBrand(db, read, { website: 'https://basecamp.example' }),
    ]);
    const stored = await db
      .selectFrom('brands')
      .select(['name', 'status', 'website'])
      .where('id', '=', read.id)
      .executeTakeFirstOrThrow();
    assert.deepEqual(
      { ...stored },
      { name: 'Basecamp 4', status: 'paused', website: 'https://basecamp.example' },
    );
  });

  it('imports the same prompts file five times at once as once, then as unchanged', async () => {
    const db = ctx.dbs.primary;
    const brand = await createBrand(db, orgId, { name: 'Asana' });
    const category = await createCategory(db, brand, { name: 'Work management' });
    const { rows, errors } = parsePromptCsv('text\n"Best work tool?"\n"Cheapest work tool?"\n');
    assert.deepEqual(errors, []);
    const before = await count('prompts');
    const results = await Promise.all(
      Array.from({ length: 5 }, () => importPrompts(db, orgId, rows, category)),
    );
    // Two rows: created once in all, unchanged in each of the other four imports.
    assert.deepEqual(
      results.reduce(
        (sum, r) => ({ created: sum.created + r.created, unchanged: sum.unchanged + r.unchanged }),
        {
          created: 0,
          unchanged: 0,
        },
      ),
      { created: 2, unchanged: 8 },
    );
    assert.equal(await count('prompts'), before + 2);
  });

  it('renames two brands to the same name at once: one is renamed, the other refused', async () => {
    const db = ctx.dbs.primary;
    const first = await createBrand(db, orgId, { name: 'Monday' });
    const second = await createBrand(db, orgId, { name: 'Mondays' });
    const settled = await Promise.allSettled([
      updateBrand(db, first, { name: 'Monday.com' }),
      updateBrand(db, second, { name: 'Monday.com' }),
    ]);
    assert.deepEqual(settled.map((s) => s.status).sort(), ['fulfilled', 'rejected']);
    const names = await db
      .selectFrom('brands')
      .select('name')
      .where('org_id', '=', orgId)
      .where('id', 'in', [first.id, second.id])
      .execute();
    assert.equal(names.filter((b) => b.name === 'Monday.com').length, 1);
  });

  it('`sightline prompts create` run four times at once stores the prompt once', async () => {
    const url = ctx.config.databaseUrl;
    const brand = await createBrand(ctx.dbs.primary, orgId, { name: 'ClickUp', externalKey: 'clickup' });
    await createCategory(ctx.dbs.primary, brand, { name: 'Docs', externalKey: 'docs' });
    const runs = await Promise.all(
      Array.from({ length: 4 }, () =>
        runCli(url, 'prompts', 'create', '--org', 'acme', '--category', 'docs', '--text', 'Best docs tool?'),
      ),
    );
    assert.deepEqual(runs.map((r) => r.status).sort(), [0, 1, 1, 1], runs.map((r) => r.stderr).join(''));
    for (const run of runs.filter((r) => r.status === 1)) {
      assert.match(run.stderr, /^sightline: category \d+ already has this prompt \(id \d+\)\n$/);
    }
    const stored = await ctx.dbs.primary
      .selectFrom('prompts')
      .select('id')
      .where('org_id', '=', orgId)
      .where('text', '=', 'Best docs tool?')
      .execute();
    assert.equal(stored.length, 1);
  });

  it('an organization slug created several times at once: one, the rest refused in words', async () => {
    const created = await Promise.all(
      Array.from({ length: 5 }, () =>
        createOrganization(ctx.dbs.primary, {
          slug: 'initech',
          name: 'Initech',
          plan: 'free',
          apiAccess: false,
          timezone: 'UTC',
        }),
      ),
    );
    assert.equal(created.filter((o) => o !== undefined).length, 1);
    const runs = await Promise.all(
      Array.from({ length: 4 }, () =>
        runCli(ctx.config.databaseUrl, 'orgs', 'create', '--slug', 'hooli', '--name', 'Hooli'),
      ),
    );
    assert.deepEqual(runs.map((r) => r.status).sort(), [0, 1, 1, 1], runs.map((r) => r.stderr).join(''));
    for (const run of runs.filter((r) => r.status === 1))
      assert.equal(run.stderr, 'sightline: an organization with slug "hooli" already exists\n');
  });
});
