// The writer of `npm run bench`'s own-run case, in a process of its own: in production a run is
// refreshed by `sightline worker` or `sightline runs import`, never by the service that answers
// the API, so the service under measure should not carry the refresh's work or its garbage
// (docs/performance.md, "The own run refreshed by another process").
//
//   fork('bench/refresher.ts', [databaseUrl]); send { orgId, runIds }; it answers 'done' or { error }.
import { refreshRunAggregates } from '../src/analytics/refresh.ts';
import { loadConfig } from '../src/config.ts';
import { connectDatabases } from '../src/db/connect.ts';

const databaseUrl = process.argv[2];
if (!databaseUrl) throw new Error('bench/refresher.ts needs the database URL');
const dbs = connectDatabases({ ...loadConfig({}), databaseUrl });

process.on('message', async ({ orgId, runIds }: { orgId: number; runIds: number[] }) => {
  try {
    await dbs.primary.transaction().execute((tx) => refreshRunAggregates(tx, orgId, runIds));
    process.send?.('done');
  } catch (error) {
    process.send?.({ error: String(error) });
  }
});
process.on('disconnect', () => {
  dbs.close().finally(() => process.exit(0));
});
process.send?.('ready');
