// Runs before `npm start` / `npm test` on whatever Node the machine has (often 20), so that the
// two README commands work on a fresh clone: it installs the locked dependencies, which bring
// Node 24 (the `node` dev dependency) for every script that follows.
import { execSync } from 'node:child_process';
import { existsSync, statSync } from 'node:fs';

const stamp = 'node_modules/.package-lock.json';
const fresh =
  existsSync(stamp) &&
  existsSync('node_modules/.bin/node') &&
  statSync(stamp).mtimeMs >= statSync('package-lock.json').mtimeMs &&
  statSync(stamp).mtimeMs >= statSync('package.json').mtimeMs;
if (!fresh) {
  process.stderr.write('sightline: installing dependencies (npm ci)...\n');
  execSync('npm ci --no-audit --no-fund', { stdio: 'inherit' });
}
