import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { before, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { Command } from 'commander';
import { registerGroups } from '../src/cli/groups.ts';

// Every `npx sightline …` a doc shows must run as written: the command it names exists, and every
// option it gives is one of that command's. (What each command does with them is the CLI suites'.)

const root = fileURLToPath(new URL('..', import.meta.url));

/** Shown on purpose as what does not work (docs/cli.md: a mistyped command and its answer). */
const WRONG_ON_PURPOSE = new Set(['npx sightline orgs lst']);

const docs = [
  'README.md',
  'examples/README.md',
  ...readdirSync(join(root, 'docs'), { recursive: true, encoding: 'utf8' })
    .filter((file) => file.endsWith('.md'))
    .map((file) => join('docs', file)),
];

/**
 * The command as a doc writes it: up to the end of its code span, a comment, a pipe, or the prose
 * around it (a closing parenthesis or semicolon; a quote that closes the sentence's own quotation).
 */
const SHOWN = /npx sightline[^`#|\n);]*/g;
const shownCommand = (match: string) => {
  const text = match.trim();
  return (text.match(/"/g)?.length ?? 0) % 2 === 1 ? text.slice(0, text.lastIndexOf('"')).trim() : text;
};
/** A word standing for any command or value: `<command>`, `…`, `NAME`. */
const PLACEHOLDER = /^(<.*>|…|[A-Z][A-Z_]*)$/;

/** Words as a shell splits them (quotes kept together), placeholders' brackets dropped. */
function words(command: string): string[] {
  return [...command.matchAll(/"[^"]*"|'[^']*'|\S+/g)].map(([word]) => word.replace(/^\[|\]$/g, ''));
}

let program: Command;

before(async () => {
  program = new Command('sightline').version('0', '-V, --version');
  await registerGroups(program);
});

/** What is wrong with a shown command, if anything. */
function problem(shown: string): string | undefined {
  const [, , ...rest] = words(shown);
  let command = program;
  let i = 0;
  for (; i < rest.length; i++) {
    const word = rest[i] as string;
    if (word.startsWith('-')) break;
    if (PLACEHOLDER.test(word)) return undefined;
    const sub = command.commands.find((c) => c.name() === word || c.aliases().includes(word));
    if (!sub) break;
    command = sub;
  }
  // A word left over where the command has subcommands names none of them.
  if (command.commands.length > 0 && i < rest.length && !rest[i]?.startsWith('-'))
    return command === program
      ? `no command "${rest[i]}"`
      : `"${command.name()}" has no command "${rest[i]}"`;
  for (const word of rest.slice(i)) {
    if (!word.startsWith('--')) continue;
    const name = word.split('=')[0] as string;
    const known = [command, program].some((c) => c.options.some((o) => o.long === name)) || name === '--help';
    if (!known) return `"${command.name()}" has no option ${name}`;
  }
  return undefined;
}

describe('sightline commands shown in the docs', () => {
  it('reads the commands and tells a wrong one from a right one', () => {
    assert.equal(problem('npx sightline runs import docs/examples/answers.ndjson --publish'), undefined);
    assert.equal(
      problem('npx sightline runs import answers.ndjson --publsh'),
      '"import" has no option --publsh',
    );
    assert.equal(problem('npx sightline orgs lst'), '"orgs" has no command "lst"');
    assert.equal(problem('npx sightline runz import'), 'no command "runz"');
    assert.deepEqual(words('npx sightline orgs create --name "Wayne Enterprises" [--plan P]'), [
      'npx',
      'sightline',
      'orgs',
      'create',
      '--name',
      '"Wayne Enterprises"',
      '--plan',
      'P',
    ]);
  });

  for (const doc of docs) {
    const shown = [...readFileSync(join(root, doc), 'utf8').matchAll(SHOWN)]
      .map(([command]) => shownCommand(command))
      .filter((command) => !WRONG_ON_PURPOSE.has(command));
    if (shown.length === 0) continue;
    it(`${doc}: ${shown.length} command(s), each a command of sightline with its own options`, () => {
      assert.deepEqual(
        shown.flatMap((command) => {
          const wrong = problem(command);
          return wrong ? [`${command}: ${wrong}`] : [];
        }),
        [],
      );
    });
  }
});
