#!/usr/bin/env node
// The package bin: Node 24 runs the TypeScript sources directly (type stripping).
await import('../src/cli/main.ts');
