import { buildApp } from './app.ts';
import type { Config } from './config.ts';

/** Starts the HTTP service and stops it gracefully on SIGTERM/SIGINT. */
export async function serve(config: Config): Promise<void> {
  const app = await buildApp(config);
  let closing = false;
  const shutdown = (signal: string) => {
    if (closing) return;
    closing = true;
    app.log.info({ signal }, 'shutting down: finishing in-flight requests');
    app.close().then(
      () => process.exit(0),
      (error: unknown) => {
        app.log.error({ err: error }, 'shutdown failed');
        process.exit(1);
      },
    );
  };
  process.once('SIGTERM', () => shutdown('SIGTERM'));
  process.once('SIGINT', () => shutdown('SIGINT'));
  await app.listen({ port: config.port, host: config.host });
}
