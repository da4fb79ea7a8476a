import { Kysely } from 'kysely';
import { inProcessSqliteDialect } from './src/db/sqlite/in-process-dialect.ts';
import { openSqlite } from './src/db/sqlite/open.ts';
import * as A from './src/db/analytics.ts';
import { cover } from './src/domain/blocks.ts';
import { classify } from './src/domain/analytics.ts';
import type { Database } from './src/db/schema.ts';

const db = new Kysely<Database>({ dialect: inProcessSqliteDialect(openSqlite('/tmp/sightline-bench/bench.db', { queryOnly: true })) });
const org = await db.selectFrom('organizations').select('id').where('slug', '=', 'bench').executeTakeFirstOrThrow();
const brand = await db.selectFrom('brands').select('id').where('org_id', '=', org.id).executeTakeFirstOrThrow();
const scope = { orgId: org.id, brandId: brand.id };
const last = await db.selectFrom('runs').select((eb) => eb.fn.max('finished_at').as('m')).where('org_id', '=', org.id).executeTakeFirstOrThrow();
const end = Date.parse(String(last.m)) + 3_600_000;
const days = Number(process.argv[2] ?? 90);
const sides = [cover(end - days * 86400000, end), cover(end - 2 * days * 86400000, end - days * 86400000)];
console.log(JSON.stringify(sides[0]));
const t: Record<string, number[]> = {};
async function time<T>(name: string, f: () => Promise<T>): Promise<T> {
  const s = performance.now(); const r = await f(); (t[name] ??= []).push(performance.now() - s); return r;
}
for (let i = 0; i < 12; i++) {
  await time('bounds', () => A.observationBounds(db, scope));
  for (const [k, span] of sides.entries()) {
    const cls = classify(await time(`coverage${k}`, () => A.windowCoverage(db, scope, span)));
    const legacy = cls.legacyPrompts;
    const rows: Record<string, number> = {};
    rows.obs = (await time(`obs${k}`, () => A.windowObservations(db, scope, span, legacy))).length;
    rows.men = (await time(`men${k}`, () => A.windowMentions(db, scope, span, legacy))).length;
    rows.cit = (await time(`cit${k}`, () => A.windowCitations(db, scope, span, legacy))).length;
    if (k === 0) rows.dom = (await time(`dom${k}`, () => A.windowMentionDomains(db, scope, span, legacy))).length;
    rows.pobs = (await time(`pobs${k}`, () => A.windowPromptObservations(db, scope, span, legacy))).length;
    rows.pmen = (await time(`pmen${k}`, () => A.windowPromptMentions(db, scope, span, legacy))).length;
    rows.pcit = (await time(`pcit${k}`, () => A.windowPromptCitations(db, scope, span, legacy))).length;
    if (i === 0) console.log(k, legacy.length, JSON.stringify(rows));
  }
}
let total = 0;
for (const [k, v] of Object.entries(t)) { const m = v.slice(2).sort((a, b) => a - b)[5]!; total += m; console.log(k.padEnd(12), m.toFixed(2)); }
console.log('total', total.toFixed(1));
