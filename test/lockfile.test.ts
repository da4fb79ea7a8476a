import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, it } from 'node:test';

// `npm ci` refuses a lock that lacks an optional dependency a locked package declares, such as
// another platform's Biome binary (npm records only the platforms it can resolve, see
// npm/cli#4828). The install then fails on a fresh clone, so the lock must name each of them.

interface LockEntry {
  optionalDependencies?: Record<string, string>;
}
interface Lock {
  packages: Record<string, LockEntry>;
}

/** `<package path> -> <optional dependency>` for each optional dependency npm would not find. */
function missingOptionalPackages(lock: Lock): string[] {
  const missing: string[] = [];
  for (const [path, entry] of Object.entries(lock.packages)) {
    for (const name of Object.keys(entry.optionalDependencies ?? {})) {
      if (!resolves(lock, path, name)) missing.push(`${path || '(root)'} -> ${name}`);
    }
  }
  return missing;
}

/** Node's lookup: the package's own node_modules, then each enclosing one up to the root's. */
function resolves(lock: Lock, path: string, name: string): boolean {
  let base = path;
  for (;;) {
    if (`${base ? `${base}/` : ''}node_modules/${name}` in lock.packages) return true;
    if (!base) return false;
    const parent = base.lastIndexOf('/node_modules/');
    base = parent === -1 ? '' : base.slice(0, parent);
  }
}

describe('package-lock.json', () => {
  it('names every optional dependency of every locked package', () => {
    const lock = JSON.parse(readFileSync(new URL('../package-lock.json', import.meta.url), 'utf8')) as Lock;
    assert.deepEqual(missingOptionalPackages(lock), []);
  });

  it('flags a platform package the lock lacks', () => {
    const biome = {
      optionalDependencies: { '@biomejs/cli-darwin-arm64': '2.5.15', '@biomejs/cli-linux-x64': '2.5.15' },
    };
    const lock: Lock = {
      packages: { '': {}, 'node_modules/@biomejs/biome': biome, 'node_modules/@biomejs/cli-linux-x64': {} },
    };
    assert.deepEqual(missingOptionalPackages(lock), [
      'node_modules/@biomejs/biome -> @biomejs/cli-darwin-arm64',
    ]);
  });

  it('finds optional dependencies nested under the package or an enclosing one', () => {
    const lock: Lock = {
      packages: {
        '': { optionalDependencies: { top: '1' } },
        'node_modules/top': {},
        'node_modules/a': {},
        'node_modules/a/node_modules/b': { optionalDependencies: { c: '1', d: '1', top: '1', e: '1' } },
        'node_modules/a/node_modules/b/node_modules/c': {},
        'node_modules/a/node_modules/d': {},
        'node_modules/x/node_modules/e': {},
      },
    };
    assert.deepEqual(missingOptionalPackages(lock), ['node_modules/a/node_modules/b -> e']);
  });
});
