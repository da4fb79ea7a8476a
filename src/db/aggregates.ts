import { type RawBuilder, sql } from 'kysely';
import {
  BLOCK_SPANS,
  blockId,
  blocksContaining,
  childrenOf,
  DAY_MS,
  dayOf,
  daysOf,
  generationDayOf,
  smallestBlockOf,
} from '../domain/blocks.ts';
import {
  AGGREGATE_KINDS,
  type AggregateKind,
  ALL_PROMPTS,
  COMMON_KEYS,
  KINDS,
  type RunRows,
} from './aggregate-kinds.ts';
import { insertRows } from './bulk-insert.ts';
import type { Db } from './connect.ts';
import { visibleRun } from './predicates.ts';
import { OBSERVATION_COLUMNS } from './scores.ts';

// The write side of the analytics aggregates (docs/performance.md): the statements that replace
// a run's rows and sum the day blocks again. What the rows hold is computed in
// src/analytics/run-rows.ts; src/analytics/refresh.ts decides when.

/** The categories and UTC days of the stored run rows of some runs. */
export async function storedRunDays(
  db: Db,
  orgId: number,
  runIds: readonly number[],
): Promise<{ categoryId: number; day: number }[]> {
  const rows = await db
    .selectFrom('agg_run_coverage')
    .select(['category_id', 'finished_at'])
    .distinct()
    .where('org_id', '=', orgId)
    .where('run_id', 'in', runIds)
    .execute();
  return rows.map((r) => ({ categoryId: r.category_id, day: dayOf(Date.parse(r.finished_at)) }));
}

/** Replaces the run-grain rows of some runs with the given ones. */
export async function replaceRunRows(
  db: Db,
  orgId: number,
  runIds: readonly number[],
  rows: RunRows,
): Promise<void> {
  for (const kind of KINDS) {
    await db
      .deleteFrom(`agg_run_${kind}`)
      .where('org_id', '=', orgId)
      .where('run_id', 'in', runIds)
      .execute();
  }
  for (const kind of KINDS) await insertRows(db, `agg_run_${kind}`, rows[kind]);
}

const refs = (columns: readonly string[]) => sql.join(columns.map((c) => sql.ref(c)));
const iso = (day: number) => new Date(day * DAY_MS).toISOString();

/**
 * Sums one kind's blocks of one category again from their parts, level by level, smallest first
 * so that each level reads fresh children: the smallest blocks from the runs finishing on their
 * days, the others from their four children. Delete-then-insert, so it is right whatever was there.
 */
async function resumKind(
  db: Db,
  orgId: number,
  category: { id: number; prompts: readonly number[] },
  kind: AggregateKind,
  days: readonly number[],
) {
  const { keys, sums } = AGGREGATE_KINDS[kind];
  const groups = refs([...COMMON_KEYS, ...keys]);
  const summed = sql.join(sums.map((c) => sql`sum(${sql.ref(c)})`));
  const target = sql.table(`agg_block_${kind}`);
  // The indexes lead with (org, category, prompt): naming every prompt lets each statement seek.
  const inCategory = sql`org_id = ${orgId} and category_id = ${category.id} and prompt_id in (${sql.join(category.prompts)})`;
  const resum = async (blocks: readonly number[], block: RawBuilder<number>, from: RawBuilder<unknown>) => {
    await sql`delete from ${target} where ${inCategory} and block in (${sql.join(blocks)})`.execute(db);
    await sql`insert into ${target} (${groups}, ${refs(sums)}, block)
      select ${groups}, ${summed}, ${block} from ${from} group by ${groups}, ${block}`.execute(db);
  };

  for (const [level, span] of [...BLOCK_SPANS].reverse().entries()) {
    const parents = [...new Set(days.map((day) => blocksContaining(day)[level] as number))];
    if (level === 0) {
      // The smallest blocks sum the runs finishing on their days.
      const blockDays = parents.flatMap(daysOf);
      await resum(
        parents,
        sql<number>`${sql.lit(blockId(span, 0))} + day - day % ${sql.lit(span)}`,
        sql`${sql.table(`agg_run_${kind}`)} where ${inCategory}
          and finished_at >= ${iso(Math.min(...blockDays))} and finished_at < ${iso(Math.max(...blockDays) + 1)}
          and day in (${sql.join(blockDays)})`,
      );
      continue;
    }
    const child = blockId(span / 4, 0);
    // A child's first day is its id less the child span's offset; the parent starts at the
    // multiple of its span at or before it.
    const firstDay = sql<number>`(block - ${sql.lit(child)})`;
    await resum(
      parents,
      sql<number>`${sql.lit(blockId(span, 0))} + ${firstDay} - ${firstDay} % ${sql.lit(span)}`,
      sql`${target} where ${inCategory} and block in (${sql.join(parents.flatMap(childrenOf))})`,
    );
  }
}

/** Sums the blocks of the given days of each category again from their parts. */
export async function resumBlocks(db: Db, orgId: number, days: ReadonlyMap<number, ReadonlySet<number>>) {
  for (const [categoryId, daySet] of days) {
    // Every prompt of the category's brand (rows follow their run's category), and the totals.
    const prompts = await db
      .selectFrom('prompts')
      .select('id')
      .where('org_id', '=', orgId)
      .where('brand_id', '=', (eb) =>
        eb.selectFrom('categories').select('brand_id').where('id', '=', categoryId),
      )
      .execute();
    const category = { id: categoryId, prompts: [ALL_PROMPTS, ...prompts.map((p) => p.id)] };
    for (const kind of KINDS) await resumKind(db, orgId, category, kind, [...daySet]);
  }
}

/** The visible runs among the ids, with their responses, competitor mentions and citations. */
export async function visibleRunFacts(db: Db, orgId: number, runIds: readonly number[]) {
  const headers = await db
    .selectFrom('runs as r')
    .select(['r.id', 'r.brand_id', 'r.category_id', 'r.finished_at'])
    .where('r.org_id', '=', orgId)
    .where('r.id', 'in', runIds)
    .where(visibleRun)
    .where('r.finished_at', 'is not', null)
    .$narrowType<{ finished_at: string }>()
    .execute();
  const visible = headers.map((r) => r.id);
  if (visible.length === 0) return { headers, responses: [], mentions: [], citations: [] };
  const [responses, mentions, citations] = await Promise.all([
    db
      .selectFrom('responses')
      .select(['id', 'run_id', 'model', 'model_label', 'surface', 'sentiment', ...OBSERVATION_COLUMNS])
      .where('org_id', '=', orgId)
      .where('run_id', 'in', visible)
      .execute(),
    db
      .selectFrom('response_mentions')
      .select(['response_id', 'competitor_id', 'rank'])
      .where('org_id', '=', orgId)
      .where('run_id', 'in', visible)
      .where('is_brand', '=', 0)
      .where('competitor_id', 'is not', null)
      .$narrowType<{ competitor_id: number }>()
      .execute(),
    db
      .selectFrom('response_citations')
      .select(['response_id', 'url'])
      .where('org_id', '=', orgId)
      .where('run_id', 'in', visible)
      .execute(),
  ]);
  return { headers, responses, mentions, citations };
}

/**
 * Moves each category's generation of the given days, whose runs' aggregates or prompt scores were
 * just rewritten, in the writer's transaction: analytics sums kept across commits are kept under
 * the generations of the days they read. The generations of the 4-day blocks holding those days
 * move too, for API instances from before day generations during an upgrade (docs/deploy.md); a
 * later release stops writing them.
 */
export async function advanceGenerations(
  db: Db,
  orgId: number,
  days: ReadonlyMap<number, ReadonlySet<number>>,
): Promise<void> {
  const rows = [...days].flatMap(([categoryId, daySet]) =>
    [...new Set([...daySet].flatMap((day) => [generationDayOf(day), smallestBlockOf(day)]))]
      .sort((a, b) => a - b)
      .map((block) => ({ org_id: orgId, category_id: categoryId, block, generation: 1 })),
  );
  if (rows.length === 0) return;
  await db
    .insertInto('aggregate_generations')
    .values(rows)
    .onConflict((oc) =>
      oc
        .columns(['org_id', 'category_id', 'block'])
        .doUpdateSet({ generation: sql<number>`aggregate_generations.generation + 1` }),
    )
    .execute();
}
