import { type RawBuilder, sql } from 'kysely';
import {
  BLOCK_SPANS,
  blockId,
  blocksContaining,
  childrenOf,
  DAY_MS,
  dayOf,
  daysOf,
} from './analytics-blocks.ts';
import {
  AGGREGATE_KINDS,
  type AggregateKind,
  ALL_PROMPTS,
  COMMON_KEYS,
  KINDS,
  type RunRows,
} from './analytics-kinds.ts';
import { entry, loadRuns, runRows } from './analytics-run-rows.ts';
import type { Db } from './connect.ts';

// The write side of the analytics aggregates (docs/performance.md). A run's rows are recomputed
// from its responses whenever it is written, published, unpublished or re-imported (only visible
// runs have rows); the blocks of days it finished in are then summed again from their parts.

const RUNS_PER_LOAD = 100;
const ROWS_PER_INSERT = 400;

/** Adds the (category, UTC day) of each stored run row of the runs to `days`. */
async function storedDays(db: Db, orgId: number, runIds: readonly number[], days: Map<number, Set<number>>) {
  const rows = await db
    .selectFrom('agg_run_coverage')
    .select(['category_id', 'finished_at'])
    .distinct()
    .where('org_id', '=', orgId)
    .where('run_id', 'in', runIds)
    .execute();
  for (const r of rows) entry(days, r.category_id, () => new Set()).add(dayOf(Date.parse(r.finished_at)));
}

/** Replaces the run-grain rows of some runs; adds the days they were and now are on to `days`. */
async function replaceRunRows(
  db: Db,
  orgId: number,
  runIds: readonly number[],
  days: Map<number, Set<number>>,
) {
  await storedDays(db, orgId, runIds, days);
  for (const kind of KINDS) {
    await db
      .deleteFrom(`agg_run_${kind}`)
      .where('org_id', '=', orgId)
      .where('run_id', 'in', runIds)
      .execute();
  }
  const { runs, competitorsOf, urlsOf } = await loadRuns(db, orgId, runIds);
  const all: RunRows = { coverage: [], observations: [], mentions: [], mention_domains: [], citations: [] };
  for (const run of runs) {
    const rows = runRows(orgId, run, competitorsOf, urlsOf);
    for (const kind of KINDS) (all[kind] as unknown[]).push(...rows[kind]);
    entry(days, run.header.category_id, () => new Set()).add(dayOf(Date.parse(run.header.finished_at)));
  }
  for (const kind of KINDS) {
    const list = all[kind];
    for (let i = 0; i < list.length; i += ROWS_PER_INSERT) {
      await db
        .insertInto(`agg_run_${kind}`)
        .values(list.slice(i, i + ROWS_PER_INSERT) as never)
        .execute();
    }
  }
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

async function resumBlocks(db: Db, orgId: number, days: Map<number, Set<number>>) {
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

/**
 * Brings the analytics aggregates of some runs up to date with their responses and visibility.
 * Call it (inside the writer's transaction, when there is one) after writing a run's responses,
 * and after publishing, unpublishing or re-importing runs. Many runs at once share the block work.
 */
export async function refreshRunRollups(db: Db, orgId: number, runIds: readonly number[]): Promise<void> {
  const days = new Map<number, Set<number>>();
  for (let i = 0; i < runIds.length; i += RUNS_PER_LOAD) {
    await replaceRunRows(db, orgId, runIds.slice(i, i + RUNS_PER_LOAD), days);
  }
  await resumBlocks(db, orgId, days);
}
