// @ts-check
// Kysely ships as ~260 ES modules, and Node loads each one on its own (resolve, read, link,
// evaluate) even from the compile cache: ~50 ms of every `sightline` start on a fast machine, half
// of a short command's. The same code bundled by esbuild into a few files loads in ~4 ms. The
// bundle is built once per installed Kysely version, on the first start that finds none, into
// node_modules/.cache, and every `kysely` import of the process is then resolved to it. Where it
// cannot be built or kept (esbuild left out, node_modules read-only) the process loads Kysely's own
// modules as before: the code is the same, only its start is slower (docs/decisions.md, "Kysely
// bundled at start").

import { existsSync, mkdirSync, readFileSync, renameSync, rmSync } from 'node:fs';
import { registerHooks } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

// Part of the bundle's directory name: changing how it is built makes every start build it anew.
const LAYOUT = 1;

// Names this process's builds apart: several may be under way at once (the tests start three).
let builds = 0;

/** The installed Kysely's directory: Node's lookup, each enclosing node_modules from here up. */
function kyselyRoot() {
  // Not import.meta.resolve: once the hook below is registered it answers with the bundle.
  for (let dir = dirname(fileURLToPath(import.meta.url)); ; dir = dirname(dir)) {
    const root = join(dir, 'node_modules', 'kysely');
    if (existsSync(join(root, 'package.json'))) return root;
    if (dirname(dir) === dir) throw new Error('kysely is not installed');
  }
}

/** Kysely's installed directory, version and public entry points (`kysely`, `kysely/migration`, …). */
function installedKysely() {
  const root = kyselyRoot();
  /** @type {{ version: string; exports: Record<string, string | { default?: string }> }} */
  const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));
  const entries = Object.entries(pkg.exports).flatMap(([subpath, target]) => {
    const file = typeof target === 'string' ? target : target.default;
    if (!file?.endsWith('.js')) return [];
    // `kysely/helpers/sqlite` is written to helpers/sqlite.js; `kysely` to index.js.
    const out = subpath === '.' ? 'index' : subpath.slice(2);
    return [
      { specifier: subpath === '.' ? 'kysely' : `kysely/${subpath.slice(2)}`, in: join(root, file), out },
    ];
  });
  return { root, version: pkg.version, entries };
}

/**
 * The bundle's file for each of Kysely's entry points, built first if `cacheRoot` has none for the
 * installed version; undefined when it cannot be had. Safe when several processes start at once:
 * each builds into a directory of its own and renames it into place, and whoever comes second
 * keeps the first one's.
 * @param {string} [cacheRoot] default: node_modules/.cache/sightline beside the installed Kysely
 * @returns {Promise<Map<string, string> | undefined>} specifier → file URL
 */
export async function kyselyBundle(cacheRoot) {
  try {
    const kysely = installedKysely();
    const root = cacheRoot ?? join(dirname(kysely.root), '.cache', 'sightline');
    const dir = join(root, `kysely-${kysely.version}-${LAYOUT}`);
    const files = new Map(
      kysely.entries.map((e) => [e.specifier, pathToFileURL(join(dir, `${e.out}.js`)).href]),
    );
    if (existsSync(dir)) return files;
    mkdirSync(root, { recursive: true });
    const building = join(root, `.building-${process.pid}-${++builds}`);
    try {
      const { build } = await import('esbuild');
      await build({
        entryPoints: kysely.entries.map((e) => ({ in: e.in, out: e.out })),
        outdir: building,
        bundle: true,
        // Shared code goes to chunks both entry points import, so `kysely/migration` and `kysely`
        // share one copy of each class, as Kysely's own modules do.
        splitting: true,
        format: 'esm',
        platform: 'node',
        logLevel: 'silent',
      });
      renameSync(building, dir);
    } catch (error) {
      rmSync(building, { recursive: true, force: true });
      // Another process put its bundle there first.
      if (!existsSync(dir)) throw error;
    }
    return files;
  } catch {
    return undefined;
  }
}

/**
 * Resolves every import of Kysely's entry points in this thread to the bundle's files.
 * @param {Map<string, string>} files from `kyselyBundle`
 */
export function resolveKyselyTo(files) {
  registerHooks({
    resolve(specifier, context, nextResolve) {
      const url = files.get(specifier);
      return url ? { url, format: 'module', shortCircuit: true } : nextResolve(specifier, context);
    },
  });
}
