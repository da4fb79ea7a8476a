#!/usr/bin/env node
// The package bin: Node 24 runs the TypeScript sources directly (type stripping).

// Started by another Node (the machine's own, through `./bin/sightline.js` or `node bin/…`), the
// sources cannot load: say so in one line instead of a loader's stack trace. `npx sightline` and
// the npm scripts run the project's Node 24 (node_modules/.bin first on their PATH).
if (!process.features.typescript) {
  process.stderr.write(
    `sightline: Node ${process.version} cannot run it (it needs Node 24 with type stripping); run it as npx sightline …, which uses the project's Node 24\n`,
  );
  process.exit(1);
}

// Node keeps the compiled modules (TypeScript stripped, V8 code cache) on disk, so a command's
// second start skips most of the compiling. Enabled here, in JavaScript, before the first
// TypeScript file: then not even the type stripper loads once every file is in the cache (a third
// of a short command's start-up). The environment variable passes it to the reader processes and
// worker threads. NODE_DISABLE_COMPILE_CACHE=1 turns it off.
const { enableCompileCache } = await import('node:module');
const compileCache = enableCompileCache();
if (compileCache.directory) process.env.NODE_COMPILE_CACHE ??= compileCache.directory;

// Node prints a warning over several lines, with a hint about --trace-warnings (pg's notice on
// sslmode=require is ten): a command says each thing it has to say in one line. Unless the
// operator asked Node for something else: none, a trace, a file, some left out.
const nodeFlags = [...process.execArgv, ...(process.env.NODE_OPTIONS ?? '').split(/\s+/)];
const warningFlag = /^--(no-warnings|trace-warnings|redirect-warnings|disable-warning)(=|$)/;
if (process.env.NODE_NO_WARNINGS !== '1' && !nodeFlags.some((flag) => warningFlag.test(flag))) {
  process.removeAllListeners('warning');
  process.on('warning', (warning) => {
    process.stderr.write(`sightline: warning: ${String(warning.message).split('\n')[0]}\n`);
  });
}

await import('./use-bundles.js');

await import('../src/cli/main.ts');
