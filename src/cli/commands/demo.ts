// `sightline demo seed`: the demo organizations, brands and history (idempotent).
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import type { Command } from 'commander';
import { print, withDatabase } from './support.ts';

export function register(program: Command): void {
  const demo = program.command('demo').description('Demo data.');

  demo
    .command('seed')
    .description('Migrate, then seed the demo data unless it is already there.')
    .option('--manifest <file>', 'write the JSON manifest of the named demo fixtures to this file')
    .action(async (options: { manifest?: string }) => {
      // The generator is loaded only here, keeping every other command's start-up light.
      const { ensureDemo } = await import('../../demo/seed.ts');
      const { manifest, created } = await withDatabase((db) => ensureDemo(db), { schema: 'migrate' });
      print(
        created
          ? `Seeded the demo data: organizations ${Object.keys(manifest.orgs).join(', ')}; public demo brand ${manifest.demoBrandId}.`
          : 'The demo data is already there; nothing was written.',
      );
      if (options.manifest) {
        mkdirSync(dirname(options.manifest), { recursive: true });
        writeFileSync(options.manifest, `${JSON.stringify(manifest, null, 2)}\n`);
        print(`Wrote the manifest to ${options.manifest}.`);
      }
    });
}
