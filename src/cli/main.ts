// The `sightline` command line. Each command group lives in cli/commands/<group>.ts and registers
// itself on the program; this file only wires them and maps failures to exit codes:
// 0 ok, 2 usage error, 1 failure, with a one-line message on stderr. Started through
// bin/sightline.js, which turns Node's compile cache on first.
import { Command, CommanderError } from 'commander';
import manifest from '../../package.json' with { type: 'json' };
import { ConfigError } from '../config.ts';
import { isSqliteBusy } from '../db/sqlite/busy.ts';
import { DatabaseUnavailable } from '../errors.ts';
import { printable, UsageError } from './errors.ts';
import { COMMANDS, registerGroups } from './groups.ts';

const program = new Command('sightline')
  .description('Sightline: brand-visibility monitoring API and operator tools.')
  .version(manifest.version, '-V, --version', 'print the version')
  .exitOverride()
  .configureOutput({
    writeErr: (text) => process.stderr.write(text),
    // A failure prints one line (docs/cli.md): commander's "(Did you mean …?)" joins its error's
    // line instead of starting one of its own. The commands inherit this from the program.
    // The argument it quotes is escaped like every message's input (printable).
    outputError: (text, write) =>
      write(`${printable(text.replace('\n(Did you mean', ' (Did you mean').trimEnd())}\n`),
  });

const args = process.argv.slice(2);
const word = args[0];
// Only help shows the commands' descriptions. Any other first word that names no command (a
// mistyped command, `--version`, an unknown option) is answered by commander from the commands'
// names alone (its "Did you mean"), at once instead of after loading every group (~0.15–0.5 s).
const helpAsked = word === 'help' || args.some((arg) => arg === '-h' || arg === '--help');
if (word !== undefined && !COMMANDS.has(word) && !helpAsked) {
  for (const name of COMMANDS.keys()) program.command(name);
} else {
  await registerGroups(program, COMMANDS.get(word ?? ''));
}

// A reader that closes stdout before the end (`| head -1`) fails the next write with EPIPE, which
// Node raises as an uncaught error with its stack: said in one line instead. Output meant for a
// script (a new key, on the last line) may be what was lost, so it is not a success.
process.stdout.on('error', (error: NodeJS.ErrnoException) => {
  if (error.code !== 'EPIPE') throw error;
  process.stderr.write('sightline: the output was cut off: what reads it closed it before the end\n');
  process.exit(1);
});

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
  // The API's wording ("The service is temporarily unavailable") says nothing to an operator.
  const message = isSqliteBusy(error)
    ? 'the database is busy: another process has been writing to it for more than 5 s (an import, a demo seed, a migration); run this again once it has finished'
    : error instanceof DatabaseUnavailable
      ? `cannot reach the database: ${error.cause instanceof Error ? error.cause.message : String(error.cause)}`
      : error instanceof Error
        ? error.message
        : String(error);
  process.stderr.write(`sightline: ${printable(message.split('\n')[0] ?? '')}\n`);
  process.exit(error instanceof UsageError || error instanceof ConfigError ? 2 : 1);
}
