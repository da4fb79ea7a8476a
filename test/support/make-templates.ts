// Run by scripts/test.mjs before each pass: prepares every template (templates.ts) where
// TEST_TEMPLATES says, on the pass's database server.
import { loadConfig } from '../../src/config.ts';
import { connectDatabases } from '../../src/db/connect.ts';
import { createDatabase } from './services.ts';
import { prepareDatabase, TEMPLATES, templateLocation } from './templates.ts';

const templates = process.env.TEST_TEMPLATES;
if (!templates) throw new Error('TEST_TEMPLATES is not set');
const adminUrl = process.env.TEST_DATABASE_URL || undefined;

await Promise.all(
  TEMPLATES.map(async (name) => {
    const location = templateLocation(templates, name);
    const databaseUrl = adminUrl ? (await createDatabase(adminUrl, location)).url : `sqlite:${location}`;
    const dbs = connectDatabases({ ...loadConfig({}), databaseUrl });
    try {
      await prepareDatabase(dbs.primary, name);
    } finally {
      await dbs.close();
    }
  }),
);
