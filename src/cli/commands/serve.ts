// `sightline serve` and `sightline migrate`: run the service, bring the schema up to date.
import { type Command, Option } from 'commander';
import { type Config, loadConfig } from '../../config.ts';
import { migrateToLatest } from '../../db/migrate.ts';
import { parsePort, print, withDatabase } from './support.ts';

/** Loads the HTTP stack only for the commands that serve, so the others start quickly. */
export async function serveApi(config: Config): Promise<void> {
  const { serve } = await import('../../server.ts');
  await serve(config);
}

export function register(program: Command): void {
  program
    .command('serve')
    .description('Serve the HTTP API (configuration from the environment; the flags override PORT and HOST).')
    .addOption(new Option('--port <n>', 'port to listen on').argParser(parsePort))
    .addOption(new Option('--host <host>', 'address to bind, e.g. 0.0.0.0 for all interfaces'))
    .action(async (options: { port?: number; host?: string }) => {
      const config = loadConfig();
      await serveApi({ ...config, port: options.port ?? config.port, host: options.host ?? config.host });
    });

  program
    .command('migrate')
    .description('Bring the database schema up to date.')
    .action(async () => {
      const applied = await withDatabase(migrateToLatest, { schema: 'ignore' });
      print(
        applied.length > 0
          ? `Applied migrations: ${applied.join(', ')}.`
          : 'The database schema is up to date.',
      );
    });
}
