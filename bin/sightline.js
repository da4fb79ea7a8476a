#!/usr/bin/env node
// The package bin: Node 24 runs the TypeScript sources directly (type stripping).
import { enableCompileCache } from 'node:module';

// Node keeps the compiled modules (TypeScript stripped, V8 code cache) on disk, so a command's
// second start skips most of the compiling. Enabled here, in JavaScript, before the first
// TypeScript file: then not even the type stripper loads once every file is in the cache (a third
// of a short command's start-up). The environment variable passes it to the reader processes and
// worker threads. NODE_DISABLE_COMPILE_CACHE=1 turns it off.
const compileCache = enableCompileCache();
if (compileCache.directory) process.env.NODE_COMPILE_CACHE ??= compileCache.directory;

await import('../src/cli/main.ts');
