// `sightline engines list|check`: which answer engines are configured, with what model and
// limits, and whether each answers a tiny real ask right now.
import type { Command } from 'commander';
import { ENGINE_NAMES, type EngineName, loadConfig } from '../../config.ts';
import { createEngines } from '../../monitoring/engines/index.ts';
import { UsageError } from '../errors.ts';
import { formatTable, print } from './support.ts';

// Small and cheap, but it goes through web search like any monitored prompt.
export const CHECK_PROMPT = 'In one short sentence: what is the capital of France?';

const limit = (value: number, unit = '') =>
  value === 0 ? 'none' : `${value.toLocaleString('en-US')}${unit}`;

function list(): void {
  const { engines } = loadConfig().engines;
  const rows = ENGINE_NAMES.map((name) => {
    const e = engines[name];
    return [
      name,
      e.configured ? 'configured' : `not configured (set ${e.needs})`,
      e.model || '-',
      String(e.limits.concurrency),
      limit(e.limits.requestsPerMinute),
      limit(e.limits.tokensPerMinute),
      `${e.limits.timeoutMs.toLocaleString('en-US')} ms`,
    ];
  });
  print(
    formatTable(['ENGINE', 'STATUS', 'MODEL', 'CONCURRENCY', 'REQUESTS/MIN', 'TOKENS/MIN', 'TIMEOUT'], rows),
  );
}

function isEngineName(name: string): name is EngineName {
  return (ENGINE_NAMES as readonly string[]).includes(name);
}

async function check(names: string[]): Promise<void> {
  const unknown = names.filter((n) => !isEngineName(n));
  if (unknown.length > 0) {
    throw new UsageError(`unknown engine "${unknown[0]}"; expected one of ${ENGINE_NAMES.join(', ')}`);
  }
  const config = loadConfig().engines;
  const engines = createEngines(config);
  const wanted = names.length > 0 ? [...new Set(names as EngineName[])] : [...engines.keys()];
  const rows = await Promise.all(
    wanted.map(async (name) => {
      const engine = engines.get(name);
      if (engine === undefined) {
        return {
          failed: true,
          cells: [name, 'not configured', '-', '-', '-', `set ${config.engines[name].needs}`],
        };
      }
      const r = await engine.ask({ prompt: CHECK_PROMPT });
      return {
        failed: r.outcome === 'error',
        cells: [
          name,
          r.outcome,
          `${r.latencyMs.toLocaleString('en-US')} ms`,
          r.vendorModel ?? engine.model,
          String(r.sources.length),
          r.error ?? '',
        ],
      };
    }),
  );
  print(
    formatTable(
      ['ENGINE', 'OUTCOME', 'LATENCY', 'MODEL', 'SOURCES', 'DETAIL'],
      rows.map((r) => r.cells),
    ),
  );
  const failed = rows.filter((r) => r.failed).length;
  if (failed > 0) throw new Error(`${failed} of ${rows.length} engine check(s) failed`);
}

export function register(program: Command): void {
  const engines = program.command('engines').description('Answer engines: configuration and live checks.');
  engines
    .command('list')
    .description('Every engine, configured or not, with its model and limits.')
    .action(list);
  engines
    .command('check')
    .description('One tiny real ask per configured engine (or the named ones); exit 1 if any fails.')
    .argument('[engine...]', `engines to check: ${ENGINE_NAMES.join(', ')}`)
    .action((names: string[]) => check(names));
}
