import type { Server } from 'node:http';
import { collectDefaultMetrics } from 'prom-client';
import { buildApp } from './app.ts';
import type { Config } from './config.ts';
import { startMetricsServer } from './http/metrics.ts';
import type { App } from './http/types.ts';
import { unusedConnections } from './http/unused-connections.ts';
import { abortAbandonedReports } from './reports/abandoned.ts';

// In-flight requests are bounded by the 15 s database-work cap; past this the process gives up
// on a clean stop. It stays under the usual 30 s an orchestrator waits before SIGKILL.
const SHUTDOWN_GRACE_MS = 25_000;
const SWEEP_EVERY_MS = 60_000;

/** Starts the HTTP service and stops it gracefully on SIGTERM/SIGINT. */
export async function serve(config: Config): Promise<void> {
  await runServer(await buildApp(config), config);
}

/**
 * Listens with an already-built app (tests add routes to it first), serves metrics on their own
 * port, and on SIGTERM/SIGINT stops accepting connections, lets in-flight requests finish,
 * closes the database pools and Redis (the app's onClose hooks), and exits 0.
 */
export async function runServer(app: App, config: Config): Promise<void> {
  let metricsServer: Server | undefined;
  let unusedMetricsConnections: { close(): void } | undefined;
  let stopping = false;
  let sweeper: NodeJS.Timeout | undefined;

  const stop = (signal: NodeJS.Signals) => {
    if (stopping) return;
    stopping = true;
    clearInterval(sweeper);
    app.log.info({ signal }, 'shutting down: no new connections, finishing in-flight requests');
    setTimeout(() => {
      app.log.error(
        { graceMs: SHUTDOWN_GRACE_MS },
        'shutdown grace period over: exiting with requests unfinished',
      );
      process.exit(1);
    }, SHUTDOWN_GRACE_MS).unref();
    const closeMetrics = new Promise<void>((resolve) => {
      if (!metricsServer) return resolve();
      metricsServer.close(() => resolve());
      unusedMetricsConnections?.close();
    });
    Promise.all([app.close(), closeMetrics]).then(
      () => {
        app.log.info('shutdown complete');
        process.exit(0);
      },
      (error: unknown) => {
        app.log.error({ err: error }, 'shutdown failed');
        process.exit(1);
      },
    );
  };
  process.once('SIGTERM', stop);
  process.once('SIGINT', stop);
  // A keep-alive connection whose request finishes during shutdown would hold the listener open
  // until its idle timeout: the response tells the client to reconnect (to another instance).
  app.addHook('onSend', async (_request, reply) => {
    if (stopping) reply.header('connection', 'close');
  });

  if (config.metricsPort !== 0) {
    collectDefaultMetrics({ register: app.metrics });
    metricsServer = await startMetricsServer(app.metrics, config.metricsPort, config.metricsHost);
    unusedMetricsConnections = unusedConnections(metricsServer);
    app.log.info({ port: config.metricsPort, host: config.metricsHost }, 'metrics listening on /metrics');
  }
  await app.listen({ port: config.port, host: config.host });
  // A report generation killed outright (its process, its machine) leaves its artifact running,
  // which the API and an SDK waiting on it would show as running for good: the service, which is
  // always up, aborts such artifacts once 15 minutes old. A write that finds the database busy
  // (an import on SQLite) is tried again at the next sweep.
  const sweep = () => {
    abortAbandonedReports(app.dbs.primary, new Date()).then(
      (aborted) => {
        if (aborted > 0) app.log.info({ aborted }, 'report generations a stopped process left: aborted');
      },
      (error: unknown) => app.log.warn({ err: error }, 'sweeping abandoned report generations failed'),
    );
  };
  sweep();
  sweeper = setInterval(sweep, SWEEP_EVERY_MS).unref();
}
