// `sightline start` (what `npm start` runs): the one command a newcomer needs. It migrates the
// database, seeds the demo unless it is there, mints an all-scopes key for the demo organization,
// serves, and prints the key with a curl line to paste.
import type { Command } from 'commander';
import { mintApiKey } from '../../auth/mint.ts';
import type { Config } from '../../config.ts';
import { findOrganizationBySlug } from '../../db/organizations.ts';
import { DEMO_ORG } from '../../demo/manifest.ts';
import { SCOPES } from '../../domain/scopes.ts';
import { serveApi } from './serve.ts';
import { print, withDatabase } from './support.ts';

/** Where a person on this machine reaches the service. */
export function baseUrl(config: Pick<Config, 'publicBaseUrl' | 'host' | 'port'>): string {
  if (config.publicBaseUrl) return config.publicBaseUrl;
  // A wildcard bind address is not somewhere to send requests; loopback reaches it.
  const host = config.host === '0.0.0.0' || config.host === '::' ? '127.0.0.1' : config.host;
  return `http://${host.includes(':') ? `[${host}]` : host}:${config.port}`;
}

export function register(program: Command): void {
  program
    .command('start')
    .description('Migrate, seed the demo data if absent, serve, and print a fresh key for org acme.')
    .action(async () => {
      const { ensureDemo } = await import('../../demo/seed.ts');
      const { config, created, key } = await withDatabase(
        async (db, config) => {
          const { created } = await ensureDemo(db);
          const org = await findOrganizationBySlug(db, DEMO_ORG);
          if (!org) throw new Error(`the demo organization "${DEMO_ORG}" is missing`);
          const minted = await mintApiKey(db, {
            orgId: org.id,
            name: 'npm start',
            scopes: SCOPES,
            expiresAt: null,
            pepper: config.keyPepper,
          });
          return { config, created, key: minted.key };
        },
        { schema: 'migrate' },
      );
      print(created ? 'Seeded the demo data.' : 'Demo data already present.');
      // The key and curl line come once the service listens, so the line works when it is read.
      await serveApi(config);
      const url = baseUrl(config);
      print(`\nAPI key for organization ${DEMO_ORG} (all scopes; shown only this once):\n\n  ${key}\n`);
      print(`Try it:\n\n  curl -H "Authorization: Bearer ${key}" ${url}/api/brands/\n`);
      print(`API docs: ${url}/api/docs\n`);
    });
}
