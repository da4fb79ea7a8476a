import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';

// The docs name files (`src/ingest/import.ts`, `bin/bundles.js`) and link to each other; code moves
// and a doc that still names the old place misleads whoever follows it. Every file a doc names by
// its path from the repository's root, and every local file a doc links to, must exist.

const root = fileURLToPath(new URL('..', import.meta.url));

/** Paths a doc shows as examples of a shape, not as files of this repository. */
const ILLUSTRATIONS = new Set(['test/x.test.ts', 'src/recommendations/prompts/NAME.vN.md']);

function markdownFiles(dir: string): string[] {
  return readdirSync(join(root, dir), { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return markdownFiles(path);
    return entry.name.endsWith('.md') ? [path] : [];
  });
}

const docs = [
  'README.md',
  'SECURITY.md',
  'examples/README.md',
  'clients/typescript/README.md',
  ...markdownFiles('docs'),
].filter((doc) => existsSync(join(root, doc)));

// A path from the root: one of the repository's top folders, then a file with an extension. Not
// the tail of a longer path (`path/to/sightline/bin/sightline.js`).
// (A doc beside its own files, as the SDK's README, may name them from its folder, and a link's
// target is from the doc's folder: both are looked for there too.)
const ROOTED =
  /(?<![\w./-])(?:\.\/)?(?:src|test|bench|scripts|bin|clients|examples|docs)\/[\w./-]*\w\.(?:ts|js|mjs|md|csv|ndjson|yaml)\b/g;
// A Markdown link to a file: `[text](notes/testing.md)`, `[text](../README.md#x)`.
const LINKED = /\]\(((?:\.\.?\/)*[\w-][\w./-]*)(?:#[^)]*)?\)/g;

/** Paths found in `text`, a leading `./` dropped. */
const rooted = (text: string) => [...text.matchAll(ROOTED)].map(([path]) => path.replace(/^\.\//, ''));

function missing(doc: string): string[] {
  const text = readFileSync(join(root, doc), 'utf8');
  const here = (path: string) => existsSync(join(root, path)) || existsSync(join(root, dirname(doc), path));
  const named = rooted(text).filter((path) => !ILLUSTRATIONS.has(path) && !here(path));
  const linked = [...text.matchAll(LINKED)]
    .map(([, target]) => target as string)
    .filter((target) => !existsSync(join(root, dirname(doc), target)))
    .map((target) => relative(root, join(root, dirname(doc), target)));
  return [...new Set([...named, ...linked])];
}

describe('paths in the docs', () => {
  it('finds the docs and the paths in them', () => {
    assert.ok(docs.includes('docs/architecture.md'));
    assert.ok(docs.includes('docs/notes/testing.md'));
    const text = readFileSync(join(root, 'docs/ingest.md'), 'utf8');
    assert.ok(rooted(text).includes('src/ingest/import.ts'));
    const performance = readFileSync(join(root, 'docs/performance.md'), 'utf8');
    assert.ok(
      [...performance.matchAll(LINKED)].some(([, target]) => target === 'notes/performance-history.md'),
    );
  });

  it('tells a path that is there from one that is not', () => {
    const sample = 'See `src/ingest/import.ts`, `./src/db/ingest.ts` and path/to/sightline/bin/nothing.js.';
    const paths = rooted(sample);
    assert.deepEqual(paths, ['src/ingest/import.ts', 'src/db/ingest.ts']);
    assert.deepEqual(
      paths.filter((path) => !existsSync(join(root, path))),
      ['src/db/ingest.ts'],
    );
  });

  for (const doc of docs) {
    it(`${doc} names and links only files that exist`, () => {
      assert.deepEqual(missing(doc), []);
    });
  }
});
