// `sightline worker`: runs what is due, on the schedule, until SIGTERM or SIGINT (then finishes
// the asks in flight). One JSON line per run event on stdout. On PostgreSQL, workers on any
// number of machines share the asks through pg-boss; on the embedded database, one worker asks.
import { type Command, Option } from 'commander';
import { Registry } from 'prom-client';
import { loadConfig } from '../../config.ts';
import { startMetricsServer } from '../../http/metrics.ts';
import { createEngines } from '../../monitoring/engines/index.ts';
import { registerEngineMetrics } from '../../monitoring/engines/metrics.ts';
import { runWorker } from '../../monitoring/worker.ts';
import { parseConcurrency } from '../operator.ts';
import { askDeps, stopOnSignals } from './monitor.ts';
import { monitorLogger, paidWrites, parsePort, withDatabase } from './support.ts';

export function register(program: Command): void {
  program
    .command('worker')
    .description(
      'Run scheduled monitoring (and unfinished runs) until SIGTERM/SIGINT; one log line per run event.',
    )
    .addOption(
      new Option(
        '--concurrency <n>',
        'asks in flight at once (default SIGHTLINE_WORKER_CONCURRENCY)',
      ).argParser(parseConcurrency),
    )
    .addOption(
      new Option('--metrics-port <n>', 'Prometheus /metrics port (default METRICS_PORT; 0: none)').argParser(
        parsePort,
      ),
    )
    .action(async (options: { concurrency?: number; metricsPort?: number }) => {
      const config = loadConfig();
      const log = monitorLogger(config.logLevel, 1);
      const registry = new Registry();
      const engines = createEngines(config.engines, {
        logger: log,
        metrics: registerEngineMetrics(registry),
      });
      const metricsPort = options.metricsPort ?? config.metricsPort;
      const metrics =
        metricsPort === 0 ? undefined : await startMetricsServer(registry, metricsPort, config.metricsHost);
      const controller = stopOnSignals(log);
      const concurrency = options.concurrency ?? config.monitor.concurrency;
      try {
        await withDatabase(
          async (db) =>
            runWorker(
              askDeps(db, engines, config, log),
              {
                queueDatabaseUrl: config.databaseUrl.startsWith('sqlite:') ? undefined : config.databaseUrl,
                concurrency,
                pollMs: config.monitor.pollMs,
                configured: new Set(engines.keys()),
              },
              controller.signal,
            ),
          paidWrites(concurrency),
        );
      } finally {
        metrics?.close();
      }
    });
}
