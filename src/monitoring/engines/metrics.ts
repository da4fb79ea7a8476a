// Per engine and outcome: how many asks, and how long they took (retries and waits included).
// The service keeps one registry per app (src/http/metrics.ts), so the instruments are put on the
// registry they are given; asking twice for the same registry returns the same instruments.
import { Counter, Histogram, type Registry } from 'prom-client';
import type { AskResult } from './types.ts';

// Web-search answers take seconds, and retries with backoff can take minutes.
const ASK_BUCKETS = [0.25, 0.5, 1, 2.5, 5, 10, 20, 30, 60, 120, 300];

export interface EngineMetrics {
  observe(result: AskResult): void;
}

export function registerEngineMetrics(registry: Registry): EngineMetrics {
  const registers = [registry];
  const asks =
    (registry.getSingleMetric('sightline_engine_asks_total') as Counter<'engine' | 'outcome'> | undefined) ??
    new Counter({
      name: 'sightline_engine_asks_total',
      help: 'Asks to answer engines, by engine and outcome (answered, empty, no_result, error).',
      labelNames: ['engine', 'outcome'],
      registers,
    });
  const seconds =
    (registry.getSingleMetric('sightline_engine_ask_seconds') as
      | Histogram<'engine' | 'outcome'>
      | undefined) ??
    new Histogram({
      name: 'sightline_engine_ask_seconds',
      help: 'Time of asks to answer engines, retries and waits included, by engine and outcome.',
      labelNames: ['engine', 'outcome'],
      buckets: ASK_BUCKETS,
      registers,
    });
  return {
    observe(result) {
      const labels = { engine: result.engine, outcome: result.outcome };
      asks.inc(labels);
      seconds.observe(labels, result.latencyMs / 1000);
    },
  };
}
