// The `sightline` command line. Each command group lives in cli/commands/<group>.ts and registers
// itself on the program; this file only wires them and maps failures to exit codes:
// 0 ok, 2 usage error, 1 failure, with a one-line message on stderr.
import { Command, CommanderError } from 'commander';
import { ConfigError } from '../config.ts';
import { register as analyze } from './commands/analyze.ts';
import { register as brands } from './commands/brands.ts';
import { register as categories } from './commands/categories.ts';
import { register as competitors } from './commands/competitors.ts';
import { register as demo } from './commands/demo.ts';
import { register as engines } from './commands/engines.ts';
import { register as keys } from './commands/keys.ts';
import { register as mcp } from './commands/mcp.ts';
import { register as monitor } from './commands/monitor.ts';
import { register as orgs } from './commands/orgs.ts';
import { register as prompts } from './commands/prompts.ts';
import { register as recommendationDrafts } from './commands/recommendation-drafts.ts';
import { register as recommendations } from './commands/recommendations.ts';
import { register as reports } from './commands/reports.ts';
import { register as runs } from './commands/runs.ts';
import { register as serve } from './commands/serve.ts';
import { register as start } from './commands/start.ts';
import { register as worker } from './commands/worker.ts';
import { UsageError } from './errors.ts';

const program = new Command('sightline')
  .description('Sightline: brand-visibility monitoring API and operator tools.')
  .exitOverride()
  .configureOutput({ writeErr: (text) => process.stderr.write(text) });

const groups: Array<(program: Command) => void> = [
  start,
  serve,
  demo,
  orgs,
  keys,
  reports,
  brands,
  categories,
  prompts,
  competitors,
  runs,
  analyze,
  engines,
  monitor,
  recommendations,
  worker,
  // After any other `recommendations` command file: it adds `draft` to that group.
  recommendationDrafts,
  mcp,
];
for (const register of groups) register(program);

try {
  await program.parseAsync(process.argv);
} catch (error) {
  if (error instanceof CommanderError) {
    if (
      error.code === 'commander.helpDisplayed' ||
      error.code === 'commander.version' ||
      error.exitCode === 0
    ) {
      process.exit(0);
    }
    process.exit(2);
  }
  const message = error instanceof Error ? error.message : String(error);
  process.stderr.write(`sightline: ${message.split('\n')[0]}\n`);
  process.exit(error instanceof UsageError || error instanceof ConfigError ? 2 : 1);
}
