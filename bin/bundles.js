// @ts-check
// Kysely and TypeBox ship as hundreds of ES modules (~260 and ~370), and Node loads each one on its
// own (resolve, read, link, evaluate) even from the compile cache: on a fast machine ~50 ms of
// every `sightline` start for Kysely, half of a short command's, and ~80 ms more for TypeBox in
// the service and every command that validates. The same code bundled by esbuild into a few files
// loads in a tenth of that. The bundle is built once per installed version of the packages, by the
// first start that finds none, into node_modules/.cache, and every import of those packages in the
// process is then resolved to it. Where it cannot be built or kept (esbuild left out, node_modules
// read-only) the process loads the packages' own modules as before: the code is the same, only its
// start is slower (docs/decisions.md, "Kysely and TypeBox bundled at start").

import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { registerHooks } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

/** ES-module packages bundled: many files each, loaded by most processes. */
export const BUNDLED = ['kysely', 'typebox'];

// Part of the bundle's directory name: changing how it is built makes every start build it anew.
const LAYOUT = 3;

// Names this process's builds apart: several may be under way at once (the tests start three).
let builds = 0;
// This process's builds under way: esbuild's service is stopped once none is.
let inFlight = 0;

// The bundle's own list of its files, written last: a directory without it, or missing one of
// them, is not used.
const MANIFEST = 'files.json';

/**
 * Whether the bundle in `dir` has every file it was built with (~30 checks, a tenth of a
 * millisecond).
 * @param {string} dir
 */
function whole(dir) {
  try {
    /** @type {string[]} */
    const files = JSON.parse(readFileSync(join(dir, MANIFEST), 'utf8'));
    return files.every((file) => existsSync(join(dir, file)));
  } catch {
    return false;
  }
}

/**
 * Removes what builds of processes that have ended left in `root` (a process killed while building:
 * never used, since only a whole build is renamed into place). Run by a build only, so that a start
 * that finds its bundle pays nothing for it.
 * @param {string} root
 */
function sweepAbandonedBuilds(root) {
  for (const name of readdirSync(root)) {
    const pid = /^\.building-(\d+)-\d+$/.exec(name)?.[1];
    if (pid === undefined || Number(pid) === process.pid) continue;
    try {
      process.kill(Number(pid), 0);
    } catch (error) {
      // EPERM: a process of another user's, still running.
      if (/** @type {NodeJS.ErrnoException} */ (error).code === 'ESRCH')
        rmSync(join(root, name), { recursive: true, force: true });
    }
  }
}

/**
 * A package's installed directory: Node's lookup, each enclosing node_modules from here up.
 * @param {string} name
 */
function packageRoot(name) {
  // Not import.meta.resolve: once the hook below is registered it answers with the bundle.
  for (let dir = dirname(fileURLToPath(import.meta.url)); ; dir = dirname(dir)) {
    const root = join(dir, 'node_modules', name);
    if (existsSync(join(root, 'package.json'))) return root;
    if (dirname(dir) === dir) throw new Error(`${name} is not installed`);
  }
}

/**
 * A package's name, installed directory, version and public entry points (`kysely`, `kysely/migration`,
 * …), each with the file it is bundled to (`kysely/migration.js`).
 * @param {string} name
 */
function installed(name) {
  const root = packageRoot(name);
  /** @type {{ version: string; exports: Record<string, string | { import?: string; default?: string }> }} */
  const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));
  const entries = Object.entries(pkg.exports).flatMap(([subpath, target]) => {
    const file = typeof target === 'string' ? target : (target.import ?? target.default);
    if (!file || !/\.m?js$/.test(file)) return [];
    const specifier = subpath === '.' ? name : `${name}/${subpath.slice(2)}`;
    const out = subpath === '.' ? `${name}/index` : specifier;
    return [{ specifier, in: join(root, file), out }];
  });
  return { name, root, version: pkg.version, entries };
}

/**
 * The bundle's file for each entry point of the BUNDLED packages, built first if `cacheRoot` has
 * none for the installed versions; undefined when it cannot be had. Safe when several processes
 * start at once: each builds into a directory of its own and renames it into place, and whoever
 * comes second keeps the first one's.
 * @param {string} [cacheRoot] default: node_modules/.cache/sightline beside the installed packages
 * @returns {Promise<Map<string, string> | undefined>} specifier → file URL
 */
export async function packageBundle(cacheRoot) {
  try {
    const packages = BUNDLED.map(installed);
    const root = cacheRoot ?? join(dirname(packages[0]?.root ?? ''), '.cache', 'sightline');
    const versions = packages.map((p) => `${p.name}-${p.version}`);
    const dir = join(root, `${versions.join('_')}-${LAYOUT}`);
    const entries = packages.flatMap((p) => p.entries);
    const files = new Map(entries.map((e) => [e.specifier, pathToFileURL(join(dir, `${e.out}.js`)).href]));
    if (whole(dir)) return files;
    // There but not whole: damaged by hand (builds are renamed into place complete). Loading it
    // would fail every start, and removing it could race a process that has just put a whole one
    // there, so the packages' own files load until someone removes it.
    if (existsSync(dir)) return undefined;
    mkdirSync(root, { recursive: true });
    try {
      sweepAbandonedBuilds(root);
    } catch {
      // Best effort (a leftover it may not remove): the build does not depend on it.
    }
    const building = join(root, `.building-${process.pid}-${++builds}`);
    try {
      const esbuild = await import('esbuild');
      inFlight++;
      await esbuild
        .build({
          entryPoints: entries.map((e) => ({ in: e.in, out: e.out })),
          outdir: building,
          bundle: true,
          // Code that several entry points share goes to chunks they all import, so `kysely` and
          // `kysely/migration` share one copy of each class, as the packages' own modules do.
          splitting: true,
          format: 'esm',
          platform: 'node',
          logLevel: 'silent',
        })
        .finally(() => {
          // esbuild's build service is a process of its own: ended once no build of this process
          // needs it, not left running beside a service that happened to be the first start.
          if (--inFlight === 0) return esbuild.stop();
        });
      const written = readdirSync(building, { recursive: true, encoding: 'utf8' }).filter((f) =>
        f.endsWith('.js'),
      );
      writeFileSync(join(building, MANIFEST), JSON.stringify(written));
      renameSync(building, dir);
    } catch (error) {
      rmSync(building, { recursive: true, force: true });
      // Another process put its bundle there first.
      if (!whole(dir)) throw error;
    }
    return files;
  } catch {
    return undefined;
  }
}

/**
 * Resolves every import of the bundled packages' entry points in this thread to the bundle's files.
 * @param {Map<string, string>} files from `packageBundle`
 */
export function resolveBundledTo(files) {
  registerHooks({
    resolve(specifier, context, nextResolve) {
      const url = files.get(specifier);
      return url ? { url, format: 'module', shortCircuit: true } : nextResolve(specifier, context);
    },
  });
}
