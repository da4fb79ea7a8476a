// Runs before `npm start` / `npm test` on whatever Node the machine has (often 20), so that the
// two README commands work on a fresh clone: it installs the locked dependencies, which bring
// Node 24 (the `node` dev dependency) for every script that follows. A stamp of package.json and
// package-lock.json makes later runs skip the install until either changes.
// `npm install` rather than `npm ci`: this npm records only the current platform's optional
// packages in the lock, which `npm ci` then refuses as "out of sync"; install honours the lock.
import { execSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';

const stampFile = 'node_modules/.sightline-deps';
const fingerprint = () =>
  createHash('sha256')
    .update(readFileSync('package.json'))
    .update(existsSync('package-lock.json') ? readFileSync('package-lock.json') : '')
    .digest('hex');

const installed =
  existsSync('node_modules/.bin/node') &&
  existsSync(stampFile) &&
  readFileSync(stampFile, 'utf8') === fingerprint();
if (!installed) {
  process.stderr.write('sightline: installing dependencies (npm install)...\n');
  execSync('npm install --no-audit --no-fund', { stdio: 'inherit' });
  writeFileSync(stampFile, fingerprint());
}
