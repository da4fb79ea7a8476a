// The `sightline` command line. Each command group lives in cli/commands/<group>.ts and registers
// itself on the program; this file only wires them and maps failures to exit codes:
// 0 ok, 2 usage error, 1 failure, with a one-line message on stderr.
import { Command, CommanderError } from 'commander';
import { ConfigError } from '../config.ts';
import { UsageError } from './errors.ts';

const program = new Command('sightline')
  .description('Sightline: brand-visibility monitoring API and operator tools.')
  .exitOverride()
  .configureOutput({ writeErr: (text) => process.stderr.write(text) });

const groups: Array<(program: Command) => void> = [];
for (const register of groups) register(program);

try {
  await program.parseAsync(process.argv);
} catch (error) {
  if (error instanceof CommanderError) {
    if (error.code === 'commander.helpDisplayed' || error.code === 'commander.version' || error.exitCode === 0) {
      process.exit(0);
    }
    process.exit(2);
  }
  const message = error instanceof Error ? error.message : String(error);
  process.stderr.write(`sightline: ${message.split('\n')[0]}\n`);
  process.exit(error instanceof UsageError || error instanceof ConfigError ? 2 : 1);
}
