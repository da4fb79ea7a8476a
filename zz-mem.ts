import { sql } from 'kysely';
import { loadWindow } from './src/analytics/window.ts';
import { loadConfig } from './src/config.ts';
import { connectDatabases } from './src/db/connect.ts';
import { parseRange } from './src/domain/windows.ts';
const dbs = connectDatabases({ ...loadConfig({}), databaseUrl: 'postgres://postgres@127.0.0.1:5432/sightline_bench', databasePoolSize: 1 });
const end = Date.parse(`${new Date().toISOString().slice(0, 10)}T00:00:00.000Z`) - 4 * 3600000;
for (const scope of [{ orgId: 1, brandId: 1 }, { orgId: 1, brandId: 1, categoryId: 1 }])
  for (const range of ['7d', '30d', '90d', 'all']) {
    const p = parseRange({ range }, new Date(end), 'UTC');
    if (!p.ok) throw new Error();
    await loadWindow(dbs.read, scope, p.value);
  }
const { rows } = await sql<{ name: string; bytes: string; n: string }>`select name, sum(total_bytes) as bytes, count(*) as n from pg_backend_memory_contexts where name like 'CachedPlan%' group by name`.execute(dbs.read);
const prepared = await sql<{ n: string; g: string }>`select count(*) as n, sum(generic_plans) as g from pg_prepared_statements`.execute(dbs.read);
console.log(rows, prepared.rows);
await dbs.close();
