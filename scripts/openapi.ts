// `npm run lint:openapi`: writes the OpenAPI document the service serves (GET /api/openapi.json)
// to a file and lints it with Redocly's recommended rules (redocly.yaml). `node scripts/openapi.ts
// <file>` only writes the document.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { buildApp } from '../src/app.ts';
import { loadConfig } from '../src/config.ts';

const dir = mkdtempSync(join(tmpdir(), 'sightline-openapi-'));
try {
  // The document is built from the route declarations alone; the database is never read.
  const app = await buildApp(loadConfig({ DATABASE_URL: `sqlite:${join(dir, 'doc.db')}` }), {
    logger: false,
  });
  await app.ready();
  const document = JSON.stringify(app.swagger(), null, 2);
  await app.close();
  const target = process.argv[2];
  if (target) {
    writeFileSync(target, `${document}\n`);
  } else {
    const file = join(dir, 'openapi.json');
    writeFileSync(file, document);
    const lint = spawnSync('redocly', ['lint', file, '--config', 'redocly.yaml'], { stdio: 'inherit' });
    process.exitCode = lint.status ?? 1;
  }
} finally {
  rmSync(dir, { recursive: true, force: true });
}
