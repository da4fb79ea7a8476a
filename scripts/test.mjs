// `npm test`: the whole suite on the embedded database (SQLite).
import { spawnSync } from 'node:child_process';

const run = spawnSync(process.execPath, ['--test', '--test-concurrency=2', 'test/**/*.test.ts'], {
  stdio: 'inherit',
  env: { ...process.env },
});
process.exit(run.status ?? 1);
