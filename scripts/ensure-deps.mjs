// Runs before `npm start` / `npm test` on whatever Node the machine has (often 20), so that the
// two README commands work on a fresh clone: it installs the locked dependencies, which bring
// Node 24 (the `node` dev dependency) for every script that follows. A stamp of package.json and
// package-lock.json makes later runs skip the install until either changes.
// `npm ci`: exactly the lock, from a clean node_modules, and it fails when package.json and the
// lock disagree instead of quietly rewriting the lock. The lock names every platform's optional
// packages (test/lockfile.test.ts keeps it so), which `npm ci` needs on any platform.
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
  process.stderr.write('sightline: installing dependencies (npm ci)...\n');
  // npm compares engines with the Node that runs npm itself, not with the Node 24 it installs.
  if (Number(process.versions.node.split('.')[0]) < 22) {
    process.stderr.write(
      `sightline: npm runs on Node ${process.versions.node} here, so its EBADENGINE warnings for ` +
        'packages that need Node >=22 are expected: they run on the installed Node 24.\n',
    );
  }
  execSync('npm ci', { stdio: 'inherit' });
  writeFileSync(stampFile, fingerprint());
}
