import { type Expression, type RawBuilder, sql } from 'kysely';
import type {
  CompetitorInfo,
  CompetitorMentions,
  MentionDomain,
  ObservationGroup,
  PromptCompetitorMentions,
  PromptDomainCitations,
  PromptGroup,
  PromptObservationGroup,
} from '../domain/analytics.ts';
import { type Cover, generationDaysTouched, type TimeRange } from '../domain/blocks.ts';
import { CURRENT_METHODOLOGY } from '../domain/scoring.ts';
import type { PartSums, UrlCitations } from '../domain/window-parts.ts';
import { AGGREGATE_KINDS, ALL_PROMPTS } from './aggregate-kinds.ts';
import type { Db } from './connect.ts';
import { isPostgres } from './migrations/column-types.ts';
import { eligibleFlag, eligiblePrompt } from './predicates.ts';
import { executeShaped } from './shaped.ts';

// The read side of the analytics aggregates: window sums of the stored rows, nothing more. Every
// query is scoped by organization and restricted to the scope's eligible prompts (monitored, not
// archived, in a non-archived category) at read time, so eligibility can change without touching
// the aggregates. Detail sums start from the category totals and correct them per prompt:
//   category totals (current methodology)
//   − the rows of the scope's ineligible prompts (current methodology)
//   + the legacy rows of the prompts that fall back to them in this window,
// which is exactly the usable data, for a fraction of the rows a per-prompt sum reads.

// Every statement here reads the aggregates of a window or names them for the analytics cache:
// on PostgreSQL planned once per connection (db/statement-hints.ts), the same plan for every
// window. Those that only seek (a window's bounds, the runs at its ends) or read the brand's
// catalog (its competitors) are lookups, run in the service's process on SQLite.
const windowStatement: typeof executeShaped = (db, name, input, build) =>
  executeShaped(db, name, input, build, { genericPlan: true });
const windowLookup: typeof executeShaped = (db, name, input, build) =>
  executeShaped(db, name, input, build, { genericPlan: true, lookup: true });

/** A brand, or one category of it. */
export interface Scope {
  orgId: number;
  brandId: number;
  categoryId?: number;
}

function eligibleCategories(db: Db, scope: Scope) {
  let query = db
    .selectFrom('categories')
    .select('id')
    .where('org_id', '=', scope.orgId)
    .where('brand_id', '=', scope.brandId)
    .where('is_archived', '=', 0);
  if (scope.categoryId !== undefined) query = query.where('id', '=', scope.categoryId);
  return query;
}

/**
 * `column` holds one of the ids `categories` selects. With `only`, the one category asked for, to
 * which `categories` is then narrowed, the check is an uncorrelated `exists`, made once: as `in (…)`
 * PostgreSQL's generic plan read the categories again for every row it kept (docs/performance.md,
 * "The category checked once", "The stamp's category checked once").
 */
function inCategories(column: string, categories: Expression<unknown>, only: number | undefined) {
  return only === undefined
    ? sql`${sql.ref(column)} in (${categories})`
    : sql`${sql.ref(column)} = ${only} and exists ${categories}`;
}

/** The scope's aggregate rows: its organization's, in a brand's live categories or in the one asked while it is live. */
function scopedRows(db: Db, scope: Scope) {
  return sql`org_id = ${scope.orgId} and ${inCategories('category_id', eligibleCategories(db, scope), scope.categoryId)}`;
}

function promptsOf(db: Db, scope: Scope, eligible: boolean) {
  let query = db
    .selectFrom('prompts as p')
    .innerJoin('categories as c', 'c.id', 'p.category_id')
    .select('p.id')
    .where('p.org_id', '=', scope.orgId)
    .where('c.org_id', '=', scope.orgId)
    .where('p.brand_id', '=', scope.brandId)
    .where('c.is_archived', '=', 0)
    .where(eligible ? eligiblePrompt : sql<boolean>`not ${eligiblePrompt}`);
  if (scope.categoryId !== undefined) query = query.where('p.category_id', '=', scope.categoryId);
  return query;
}

const refs = (columns: readonly string[]) => sql.join(columns.map((c) => sql.ref(c)));
const sums = (columns: readonly string[]) =>
  sql.join(columns.map((c) => sql`sum(${sql.ref(c)}) as ${sql.ref(c)}`));

/** The stored rows of one kind inside the window: whole blocks, and runs for the ends. */
function inWindow(kind: string, columns: RawBuilder<unknown>, where: RawBuilder<unknown>, cover: Cover) {
  const parts: RawBuilder<unknown>[] = [];
  if (cover.blocks.length > 0) {
    parts.push(sql`select ${columns} from ${sql.table(`agg_block_${kind}`)}
      where ${where} and block in (${sql.join(cover.blocks)})`);
  }
  // One part per end: a single time range per statement is what lets the index seek to it.
  for (const edge of cover.edges) {
    parts.push(sql`select ${columns} from ${sql.table(`agg_run_${kind}`)}
      where ${where} and finished_at >= ${edge.start} and finished_at < ${edge.end}`);
  }
  return parts;
}

/** One sum of a window's usable rows: its name, its kind of rows, what groups them, what is summed. */
interface UsableSum {
  name: string;
  kind: string;
  keys: readonly string[];
  measures: readonly string[];
  /**
   * Read from the prompts' own rows instead of the totals (the same rows the totals sum, less the
   * same ineligible prompts), for sums that must stay apart per prompt; keyed by prompt_id then.
   */
  perPrompt?: boolean;
}

/**
 * The usable rows of a detail kind in the window, as signed parts: category totals, minus
 * ineligible prompts, plus the legacy rows of the fallback prompts; `cover` must not be empty.
 */
function usableRows(
  db: Db,
  { kind, keys, measures, perPrompt }: UsableSum,
  { scope, cover, legacyPrompts }: Usable,
): RawBuilder<unknown> {
  const signed = (sign: 1 | -1) =>
    sql.join([
      ...keys.map((k) => sql.ref(k)),
      ...measures.map((m) => sql`${sql.ref(m)} * ${sql.lit(sign)} as ${sql.ref(m)}`),
    ]);
  const inScope = scopedRows(db, scope);
  const ineligible = promptsOf(db, scope, false);
  const current = perPrompt
    ? inWindow(
        kind,
        signed(1),
        // The eligible prompts by id, not "every prompt but the ineligible": an equality on
        // prompt_id is what lets the index go on to the time range (a 1 M-answer brand's 7-day
        // window read its whole history otherwise).
        sql`${inScope} and prompt_id in (${promptsOf(db, scope, true)})
          and methodology = ${CURRENT_METHODOLOGY}`,
        cover,
      )
    : [
        ...inWindow(kind, signed(1), sql`${inScope} and prompt_id = ${sql.lit(ALL_PROMPTS)}`, cover),
        ...inWindow(
          kind,
          signed(-1),
          sql`${inScope} and prompt_id in (${ineligible}) and methodology = ${CURRENT_METHODOLOGY}`,
          cover,
        ),
      ];
  const parts = [
    ...current,
    ...(legacyPrompts.length === 0
      ? []
      : inWindow(
          kind,
          signed(1),
          sql`${inScope} and prompt_id in (${sql.join(legacyPrompts)}) and methodology <> ${CURRENT_METHODOLOGY}`,
          cover,
        )),
  ];
  return sql.join(parts, sql` union all `);
}

const isEmpty = (cover: Cover) => cover.blocks.length === 0 && cover.edges.length === 0;

/** Where a window side's part reads its usable rows: the scope, its cover, its fallback prompts. */
export interface Usable {
  scope: Scope;
  cover: Cover;
  legacyPrompts: readonly number[];
}

/** One sum of a window's usable rows as a statement makes it: `select` over them, each row shaped by `row`. */
type SumOver<R, T> = UsableSum & { select: (rows: RawBuilder<unknown>) => RawBuilder<R>; row: (row: R) => T };

/** The reader of one sum of a window's usable rows, its statement built once per shape. */
interface SumReader<T> {
  (db: Db, usable: Usable): Promise<T[]>;
  readonly sum: SumOver<never, T>;
}

function usableSum<R, T>(sum: SumOver<R, T>): SumReader<T> {
  const read = async (db: Db, usable: Usable) => {
    if (isEmpty(usable.cover)) return [];
    const build = (at: Usable) => sum.select(usableRows(db, sum, at));
    const { rows } = await windowStatement(db, sum.name, usable, build);
    return rows.map(sum.row);
  };
  return Object.assign(read, { sum: sum as unknown as SumOver<never, T> });
}

const COVERAGE_KEYS = ['prompt_id', 'methodology', 'outcome', 'has_mention_data'];
// Grouped in this order: led by prompt_id, a read of one stretch of runs (no whole block, so one
// part that SQLite folds into the grouping query) was planned on agg_run_coverage_first, whose
// order matches such a grouping but which cannot seek to the time range: 36 ms instead of 2 for
// the last days of the 1 M-answer brand (20 ms instead of 3.5 through a reader).
const COVERAGE_GROUPING = ['outcome', 'has_mention_data', 'methodology', 'prompt_id'];
const byText = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

/** Answers per eligible prompt × methodology × outcome in the window: what coverage counts. */
export async function windowCoverage(db: Db, scope: Scope, cover: Cover): Promise<PromptGroup[]> {
  if (isEmpty(cover)) return [];
  const result = await windowStatement(db, 'windowCoverage', { scope, cover }, ({ scope, cover }) => {
    const where = sql`${scopedRows(db, scope)} and prompt_id in (${promptsOf(db, scope, true)})`;
    const parts = inWindow('coverage', refs([...COVERAGE_KEYS, 'answers', 'weight']), where, cover);
    return sql<Record<string, string | number>>`
      select ${refs(COVERAGE_KEYS)}, ${sums(['answers', 'weight'])}
      from (${sql.join(parts, sql` union all `)}) u group by ${refs(COVERAGE_GROUPING)}`;
  });
  return result.rows
    .map((r) => ({
      promptId: Number(r.prompt_id),
      methodology: String(r.methodology),
      outcome: String(r.outcome),
      hasMentionData: Number(r.has_mention_data) === 1,
      answers: Number(r.answers),
      weight: Number(r.weight),
    }))
    .sort(
      // In the order a grouping by prompt first gives, whichever grouping the plan used.
      (a, b) =>
        a.promptId - b.promptId ||
        byText(a.methodology, b.methodology) ||
        byText(a.outcome, b.outcome) ||
        Number(a.hasMentionData) - Number(b.hasMentionData),
    );
}

const OBSERVATION_KEYS = ['model', 'model_label', 'surface', 'methodology', 'outcome', 'has_mention_data'];
const OBSERVATION_SUMS = AGGREGATE_KINDS.observations.sums;

/** Observations per model × surface × methodology × outcome of the window's usable prompts. */
export const windowObservations = usableSum({
  name: 'windowObservations',
  kind: 'observations',
  keys: OBSERVATION_KEYS,
  measures: OBSERVATION_SUMS,
  select: (rows) => sql<Record<string, string | number>>`
    select ${refs(OBSERVATION_KEYS)}, ${sums(OBSERVATION_SUMS)}
    from (${rows}) u
    group by ${refs(OBSERVATION_KEYS)} having sum(answers) <> 0`,
  row: (r): ObservationGroup => ({
    model: String(r.model),
    modelLabel: String(r.model_label),
    surface: String(r.surface),
    methodology: String(r.methodology),
    outcome: String(r.outcome),
    hasMentionData: Number(r.has_mention_data) === 1,
    answers: Number(r.answers),
    weight: Number(r.weight),
    mentionedWeight: Number(r.mentioned_weight),
    rankedWeight: Number(r.ranked_weight),
    rankWeighted: Number(r.rank_weighted),
    valueWeighted: Number(r.value_weighted),
    positiveWeight: Number(r.positive_weight),
    neutralWeight: Number(r.neutral_weight),
    negativeWeight: Number(r.negative_weight),
  }),
});

const MENTION_SUMS = ['mentions', 'ranked_weight', 'rank_weighted', 'value_weighted'];

/** Competitor mentions in the window's usable observations. */
export const windowMentions = usableSum({
  name: 'windowMentions',
  kind: 'mentions',
  keys: ['competitor_id'],
  measures: MENTION_SUMS,
  select: (rows) => sql<Record<string, number>>`
    select competitor_id, ${sums(MENTION_SUMS)} from (${rows}) u
    group by competitor_id having sum(mentions) <> 0`,
  row: (r): CompetitorMentions => ({
    competitorId: Number(r.competitor_id),
    mentions: Number(r.mentions),
    rankedWeight: Number(r.ranked_weight),
    rankWeighted: Number(r.rank_weighted),
    valueWeighted: Number(r.value_weighted),
  }),
});

/** Citations per domain in the answers mentioning each entity (competitor_id null: the brand). */
export const windowMentionDomains = usableSum({
  name: 'windowMentionDomains',
  kind: 'mention_domains',
  keys: ['competitor_id', 'domain'],
  measures: ['citations'],
  select: (rows) => sql<{ competitor_id: number | null; domain: string; citations: number }>`
    select competitor_id, domain, sum(citations) as citations
    from (${rows}) u
    group by competitor_id, domain having sum(citations) <> 0`,
  row: (r): MentionDomain => ({
    competitorId: r.competitor_id === null ? null : Number(r.competitor_id),
    domain: r.domain,
    citations: Number(r.citations),
  }),
});

/** Citations per registrable domain and URL in the window's usable observations. */
export const windowUrlCitations = usableSum({
  name: 'windowUrlCitations',
  kind: 'citations',
  keys: ['domain', 'url'],
  measures: ['citations'],
  select: (rows) => sql<{ domain: string; url: string; citations: number }>`
    select domain, url, sum(citations) as citations from (${rows}) u
    group by domain, url having sum(citations) <> 0`,
  row: (r): UrlCitations => ({ domain: r.domain, url: r.url, citations: Number(r.citations) }),
});

// Per-prompt sums (prompts are the clusters of an interval, methodology.md "Uncertainty"): the
// same usable rows as the window sums above, kept apart per prompt.

const PROMPT_OBSERVATION_KEYS = [
  'prompt_id',
  'model',
  'surface',
  'methodology',
  'outcome',
  'has_mention_data',
];
const PROMPT_OBSERVATION_SUMS = ['weight', 'mentioned_weight', 'ranked_weight', 'rank_weighted'];

/**
 * Observations per prompt × model × surface × methodology of the window's usable prompts, of the
 * usable answers only (succeeded, mention data recorded: `usable` in domain/analytics.ts), the only
 * ones an interval counts; the rest would be sorted and summed for nothing.
 */
export const windowPromptObservations = usableSum({
  name: 'windowPromptObservations',
  kind: 'observations',
  keys: PROMPT_OBSERVATION_KEYS,
  measures: PROMPT_OBSERVATION_SUMS,
  perPrompt: true,
  select: (rows) => sql<Record<string, string | number>>`
    select ${refs(PROMPT_OBSERVATION_KEYS)}, ${sums(PROMPT_OBSERVATION_SUMS)}
    from (${rows}) u where outcome = 'ok' and has_mention_data = 1
    group by ${refs(PROMPT_OBSERVATION_KEYS)}`,
  row: (r): PromptObservationGroup => ({
    promptId: Number(r.prompt_id),
    model: String(r.model),
    surface: String(r.surface),
    methodology: String(r.methodology),
    outcome: String(r.outcome),
    hasMentionData: Number(r.has_mention_data) === 1,
    weight: Number(r.weight),
    mentionedWeight: Number(r.mentioned_weight),
    rankedWeight: Number(r.ranked_weight),
    rankWeighted: Number(r.rank_weighted),
  }),
});

const PROMPT_MENTION_SUMS = ['mentions', 'ranked_weight', 'rank_weighted'];

/** Competitor mentions (and their ranks) per prompt in the window's usable observations. */
export const windowPromptMentions = usableSum({
  name: 'windowPromptMentions',
  kind: 'mentions',
  keys: ['prompt_id', 'competitor_id'],
  measures: PROMPT_MENTION_SUMS,
  perPrompt: true,
  select: (rows) => sql<Record<string, number>>`
    select prompt_id, competitor_id, ${sums(PROMPT_MENTION_SUMS)} from (${rows}) u
    group by prompt_id, competitor_id`,
  row: (r): PromptCompetitorMentions => ({
    promptId: Number(r.prompt_id),
    competitorId: Number(r.competitor_id),
    mentions: Number(r.mentions),
    rankedWeight: Number(r.ranked_weight),
    rankWeighted: Number(r.rank_weighted),
  }),
});

/** Citations per prompt and registrable domain in the window's usable observations. */
export const windowPromptCitations = usableSum({
  name: 'windowPromptCitations',
  kind: 'citations',
  keys: ['prompt_id', 'domain'],
  measures: ['citations'],
  perPrompt: true,
  select: (rows) => sql<{ prompt_id: number; domain: string; citations: number }>`
    select prompt_id, domain, sum(citations) as citations from (${rows}) u
    group by prompt_id, domain`,
  row: (r): PromptDomainCitations => ({
    promptId: Number(r.prompt_id),
    domain: r.domain,
    citations: Number(r.citations),
  }),
});

/** The columns a sum's statement gives, in order: its keys, then its measures. */
const columnsOf = (sum: UsableSum) => [...sum.keys, ...sum.measures];

/**
 * Rows as objects from one JSON array per column (json_agg gives null for no rows). Plain loops:
 * `Object.fromEntries` over each row's pairs took five times as long (0.35 against 0.07 ms for 700
 * rows of ten columns, about what an own-run category's last day reads).
 */
function rowsOfColumns(columns: readonly string[], values: readonly (readonly unknown[] | null)[]) {
  const count = values[0]?.length ?? 0;
  const rows: Record<string, unknown>[] = new Array(count);
  for (let i = 0; i < count; i++) {
    const row: Record<string, unknown> = {};
    for (let c = 0; c < columns.length; c++) row[columns[c] as string] = values[c]?.[i];
    rows[i] = row;
  }
  return rows;
}

/** The sums of one part, by the name each takes in PartSums (the per-prompt ones prefixed). */
const PART_SUMS = {
  observations: windowObservations,
  mentions: windowMentions,
  urls: windowUrlCitations,
  domains: windowMentionDomains,
  promptObservations: windowPromptObservations,
  promptMentions: windowPromptMentions,
  promptCitations: windowPromptCitations,
};
type PartSum = keyof typeof PART_SUMS;
type PartLists = { [K in PartSum]: Awaited<ReturnType<(typeof PART_SUMS)[K]>> };

/**
 * The sums one part of a window side reads once its fallback prompts are known; the entities'
 * sources only `withDomains`. Each is a statement of its own, run side by side, but on PostgreSQL
 * for a part that reads runs only (a side's last day, which a new run makes read again): there
 * they are one statement, each sum a JSON column, one round trip, bind and server process instead
 * of seven. A part reading whole blocks sums enough rows that seven server processes pay for
 * themselves (docs/performance.md, "A part's sums in one statement").
 */
export async function windowPartSums(db: Db, usable: Usable, withDomains: boolean): Promise<PartSums> {
  const names = (Object.keys(PART_SUMS) as PartSum[]).filter((name) => withDomains || name !== 'domains');
  let lists: Partial<PartLists>;
  if (isPostgres(db) && !isEmpty(usable.cover) && usable.cover.blocks.length === 0) {
    const statement = `windowPartSums ${names.join(',')}`;
    const { rows } = await windowStatement(db, statement, usable, (at) => {
      // Each sum a JSON array per column (its keys, then its measures): half the server's work of
      // an object per row. The aggregates of one query take its rows in one order, the order its
      // own statement gave them.
      const columns = names.map((name) => {
        const { sum } = PART_SUMS[name];
        const each = columnsOf(sum).map((column) => sql`json_agg(t.${sql.ref(column)})`);
        return sql`(select json_build_array(${sql.join(each)}) from (${sum.select(usableRows(db, sum, at))}) t)
          as ${sql.ref(name)}`;
      });
      return sql<Record<PartSum, (unknown[] | null)[]>>`select ${sql.join(columns)}`;
    });
    const [row] = rows;
    lists = Object.fromEntries(
      names.map((name) => {
        const { sum } = PART_SUMS[name];
        return [name, rowsOfColumns(columnsOf(sum), row?.[name] ?? []).map((r) => sum.row(r as never))];
      }),
    );
  } else {
    lists = Object.fromEntries(
      await Promise.all(names.map(async (name) => [name, await PART_SUMS[name](db, usable)] as const)),
    );
  }
  const { observations = [], mentions = [], urls = [], domains = [] } = lists;
  return {
    observations,
    mentions,
    urls,
    domains,
    perPrompt: {
      observations: lists.promptObservations ?? [],
      mentions: lists.promptMentions ?? [],
      citations: lists.promptCitations ?? [],
    },
  };
}

/**
 * When the scope's observations begin: the earliest of any methodology, and the earliest current
 * one (comparableFrom). One index seek per eligible prompt, whatever the history's length.
 */
export async function observationBounds(
  db: Db,
  scope: Scope,
): Promise<{ earliest: string | null; comparableFrom: string | null }> {
  const result = await windowLookup(db, 'observationBounds', scope, (scope) => {
    const firstOf = (methodology: string) => sql<
      string | null
    >`(select min(o.finished_at) from agg_run_coverage o
      where o.org_id = ${scope.orgId} and o.prompt_id = e.id and o.methodology = ${methodology})`;
    return sql<{ current_from: string | null; legacy_from: string | null }>`
      select min(current_from) as current_from, min(legacy_from) as legacy_from from (
        select ${firstOf(CURRENT_METHODOLOGY)} as current_from, ${firstOf('legacy')} as legacy_from
        from (${promptsOf(db, scope, true)}) e
      ) f`;
  });
  const row = result.rows[0];
  const iso = (value: string | null | undefined) => (value ? new Date(value).toISOString() : null);
  const [current, legacy] = [iso(row?.current_from), iso(row?.legacy_from)];
  const earliest = [current, legacy].filter((at) => at !== null).sort()[0] ?? null;
  return { earliest, comparableFrom: current };
}

/** Every competitor of the brand (mentions may name one tracked in another category). */
export async function brandCompetitors(db: Db, orgId: number, brandId: number): Promise<CompetitorInfo[]> {
  const { rows } = await windowLookup(db, 'brandCompetitors', { orgId, brandId }, ({ orgId, brandId }) =>
    db
      .selectFrom('competitors')
      .innerJoin('categories', 'categories.id', 'competitors.category_id')
      .select([
        'competitors.id',
        'competitors.category_id',
        'competitors.name',
        'competitors.canonical_key',
        'categories.is_archived',
      ])
      .where('competitors.org_id', '=', orgId)
      .where('competitors.brand_id', '=', brandId),
  );
  return rows.map((r) => ({
    id: r.id,
    categoryId: r.category_id,
    name: r.name,
    canonicalKey: r.canonical_key,
    live: !r.is_archived,
  }));
}

/**
 * Which of the scope's runs (any status) finished inside each time range: the first and the last
 * finish time there; null for a range no run finished in. A window's per-run rows at an end are
 * those of the runs finishing there, and the runs inside a range are a contiguous stretch of them
 * in time, so two ranges with the same first and last run read the same rows as long as nothing
 * was written between them, which the stamp that every key naming a span also names
 * (analyticsStamps) answers for. Two index seeks per range, however many runs it holds (a count
 * would read all of a three-year history's for `since=all`).
 */
export async function runSpans(
  db: Db,
  scope: Scope,
  ranges: readonly TimeRange[],
): Promise<(string | null)[]> {
  if (ranges.length === 0) return [];
  const result = await windowLookup(db, 'runSpans', { scope, ranges }, ({ scope, ranges }) => {
    const owner =
      scope.categoryId === undefined
        ? sql`brand_id = ${scope.brandId}`
        : sql`category_id = ${scope.categoryId}`;
    const seek = (range: TimeRange, order: 'asc' | 'desc') =>
      sql`(select finished_at from runs where org_id = ${scope.orgId} and ${owner}
        and finished_at >= ${range.start} and finished_at < ${range.end}
        order by finished_at ${sql.raw(order)} limit 1)`;
    const parts = ranges.map(
      (range, i) =>
        sql`select ${sql.lit(i)} as i, ${seek(range, 'asc')} as first, ${seek(range, 'desc')} as last`,
    );
    return sql<{ i: number; first: string | null; last: string | null }>`
      ${sql.join(parts, sql` union all `)}`;
  });
  const spans = ranges.map((): string | null => null);
  for (const row of result.rows) {
    if (row.first !== null) spans[Number(row.i)] = `${row.first}..${row.last}`;
  }
  return spans;
}

/**
 * runSpans of one time range, for each of a brand's categories that has runs finishing in it (any
 * status): what names a category's share of the brand's rows there (categoryStamps). One
 * range read of the brand's runs, meant for a range of less than a day.
 */
export async function categoryRunSpans(
  db: Db,
  orgId: number,
  brandId: number,
  range: TimeRange,
): Promise<Map<number, string>> {
  const result = await windowStatement(
    db,
    'categoryRunSpans',
    { orgId, brandId, range },
    ({ orgId, brandId, range }) => sql<{ category_id: number; first: string; last: string }>`
      select category_id, min(finished_at) as first, max(finished_at) as last from runs
      where org_id = ${orgId} and brand_id = ${brandId}
        and finished_at >= ${range.start} and finished_at < ${range.end}
      group by category_id`,
  );
  return new Map(result.rows.map((r) => [Number(r.category_id), `${r.first}..${r.last}`]));
}

/**
 * What a brand's (or some of its categories') analytics sums and score history over each time range
 * rest on besides the rows of that range: the generations of its categories' days the range
 * touches (refreshRunAggregates advances those of the runs it rewrites; as they only grow,
 * their sum and count change exactly when one does) and each prompt's category and eligibility.
 * Two equal stamps read the same sums from the same range, whatever else was committed in between
 * (docs/performance.md, "Kept across commits"). One statement for all the ranges.
 */
export async function analyticsStamps(
  db: Db,
  orgId: number,
  scope: { brandId: number; categoryIds?: readonly number[] },
  ranges: readonly { startMs: number; endMs: number }[],
): Promise<string[]> {
  if (scope.categoryIds?.length === 0) return ranges.map(() => '');
  const rows = await stampRows(db, orgId, scope, ranges);
  const part = (range: number) =>
    rows
      .filter((r) => r.part === range)
      .map((r) => `${r.id}/${r.n}:${r.value}`)
      .join(' ');
  const eligibility = part(-1);
  return ranges.map((_, i) => `g ${part(i)} p ${eligibility}`);
}

/**
 * The stamp of each of a brand's categories that has prompts, over one time range, in category
 * order: what that category's share of the brand's sums over the range rests on (as
 * analyticsStamps), so that a brand's last day can be kept category by category
 * (docs/performance.md, "The last day kept by category").
 */
export async function categoryStamps(
  db: Db,
  orgId: number,
  brandId: number,
  range: { startMs: number; endMs: number },
): Promise<{ categoryId: number; stamp: string }[]> {
  const rows = await stampRows(db, orgId, { brandId }, [range]);
  // A prompt row's category is its `n`; a generation row's, its `id`.
  const categoryIds = [...new Set(rows.filter((r) => r.part === -1).map((r) => r.n))].sort((a, b) => a - b);
  const of = (part: number, categoryId: number) =>
    rows
      .filter((r) => r.part === part && (part === -1 ? r.n : r.id) === categoryId)
      .map((r) => `${r.id}/${r.n}:${r.value}`)
      .join(' ');
  return categoryIds.map((categoryId) => ({
    categoryId,
    stamp: `g ${of(0, categoryId)} p ${of(-1, categoryId)}`,
  }));
}

/**
 * Per range and category, how many of its days have generations and their sum; per prompt
 * (part -1: every range), its category (as `n`) and 1 when eligible. In part, then id, order.
 */
async function stampRows(
  db: Db,
  orgId: number,
  scope: { brandId: number; categoryIds?: readonly number[] },
  ranges: readonly { startMs: number; endMs: number }[],
): Promise<{ part: number; id: number; n: number; value: number }[]> {
  const days = ranges.map((range) => generationDaysTouched(range.startMs, range.endMs));
  const input = { orgId, brandId: scope.brandId, categoryIds: scope.categoryIds, days };
  const result = await windowStatement(db, 'stampRows', input, ({ orgId, brandId, categoryIds, days }) => {
    const inScope = (column: string) =>
      categoryIds ? sql`and ${sql.ref(column)} in (${sql.join(categoryIds)})` : sql``;
    // The brand's categories as a list, so that the index seeks each one's days (a join was planned
    // as a read of the organization's every generation); one category asked alone is checked once.
    const [only, ...more] = categoryIds ?? [];
    const one = more.length === 0 ? only : undefined;
    const brandCategories = db
      .selectFrom('categories')
      .select('id')
      .where('org_id', '=', orgId)
      .where('brand_id', '=', brandId);
    const categories =
      one === undefined
        ? sql`${inCategories('g.category_id', brandCategories, undefined)} ${inScope('g.category_id')}`
        : inCategories('g.category_id', brandCategories.where('id', '=', one), one);
    const generations = days.flatMap((touched, i) => {
      if (!touched) return [];
      return [
        sql`select ${sql.lit(i)} as part, g.category_id as id, count(*) as n, sum(g.generation) as value
          from aggregate_generations g
          where g.org_id = ${orgId} and ${categories}
            and g.block >= ${touched.first} and g.block <= ${touched.last}
          group by g.category_id`,
      ];
    });
    const prompts = sql`select -1 as part, p.id as id, p.category_id as n, ${eligibleFlag} as value
      from prompts p join categories c on c.id = p.category_id
      where p.org_id = ${orgId} and c.org_id = ${orgId} and p.brand_id = ${brandId} ${inScope('p.category_id')}`;
    return sql<{ part: number; id: number; n: number; value: number }>`
      ${sql.join([...generations, prompts], sql` union all `)} order by 1, 2`;
  });
  return result.rows.map((r) => ({
    part: Number(r.part),
    id: Number(r.id),
    n: Number(r.n),
    value: Number(r.value),
  }));
}
