import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { createOrganization } from '../src/db/organizations.ts';
import { MAIN } from './support/cli.ts';
import { bearer, createTestContext, type TestContext } from './support/context.ts';
import { mintKey } from './support/fixtures.ts';

// An operator's whole path, on the command line, into the API: organization (repository), brand,
// category, prompts from CSV, competitors, answers imported and published, then the run read back
// through the API with a key. The CLI runs as a child process on the test's own database.

interface Result {
  status: number | null;
  stdout: string;
  stderr: string;
}

const CREATE_PROMPT = ['prompts', 'create', '--org', 'acme', '--category', 'pm-tools'];
const CREATE_CATEGORY = ['categories', 'create', '--org', 'acme', '--brand', 'linear'];

describe('operator set-up and import through the CLI', () => {
  let ctx: TestContext;
  let key: string;
  let runId: number;

  const cli = (args: string[], input?: string | Buffer): Result => {
    const result = spawnSync(process.execPath, [MAIN, ...args], {
      env: { ...process.env, DATABASE_URL: ctx.config.databaseUrl },
      input,
      encoding: 'utf8',
    });
    return { status: result.status, stdout: result.stdout, stderr: result.stderr };
  };
  const ok = (args: string[], input?: string): string => {
    const result = cli(args, input);
    assert.equal(result.status, 0, `${args.join(' ')} failed: ${result.stderr}`);
    return result.stdout;
  };
  const getRun = (id: number) => ctx.app.inject({ url: `/api/runs/${id}/`, headers: bearer(key) });
  const countResponses = async () =>
    Number(
      (
        await ctx.dbs.primary
          .selectFrom('responses')
          .select((eb) => eb.fn.countAll<number>().as('n'))
          .executeTakeFirstOrThrow()
      ).n,
    );

  before(async () => {
    ctx = await createTestContext();
    const org = await createOrganization(ctx.dbs.primary, {
      slug: 'acme',
      name: 'Acme',
      plan: 'pro',
      apiAccess: true,
      timezone: 'UTC',
    });
    assert.ok(org);
    key = await mintKey(ctx.dbs.primary, org.id);
  });
  after(() => ctx.close());

  it('sets up a brand, a category, prompts and competitors', () => {
    assert.match(
      ok([
        'brands',
        'create',
        '--org',
        'acme',
        '--name',
        'Linear',
        '--website',
        'linear.app',
        '--aliases',
        'Linear.app',
        '--key',
        'linear',
      ]),
      /^Created brand (\d+) "Linear" in acme \(https:\/\/linear\.app; status active; aliases Linear\.app; key linear\)\.\n\1\n$/,
    );
    assert.match(
      ok([...CREATE_CATEGORY, '--name', 'Project management', '--key', 'pm-tools']),
      /^Created category (\d+) "Project management" under brand \d+\.\n\1\n$/,
    );
    const imported = [
      'prompts',
      'import',
      'docs/examples/prompts.csv',
      '--org',
      'acme',
      '--category',
      'pm-tools',
    ];
    assert.equal(
      ok(imported),
      'Prompts from docs/examples/prompts.csv: 4 created, 0 updated, 0 unchanged.\n',
    );
    assert.equal(
      ok(imported),
      'Prompts from docs/examples/prompts.csv: 0 created, 0 updated, 4 unchanged.\n',
    );
    assert.equal(
      ok(
        ['prompts', 'import', '-', '--org', 'acme', '--category', 'pm-tools'],
        readFileSync('docs/examples/prompts.csv', 'utf8'),
      ),
      'Prompts from stdin: 0 created, 0 updated, 4 unchanged.\n',
    );
    // A key's new text that is another prompt's of the category would make two of one question.
    const taken = cli(
      ['prompts', 'import', '-', '--org', 'acme', '--category', 'pm-tools'],
      'text,key\nIs Linear better than Jira for engineering teams?,pm-free-plan\n',
    );
    assert.equal(taken.status, 1);
    assert.match(
      taken.stderr,
      /^stdin: line 2: the new text of prompt \d+ \("pm-free-plan"\) is prompt \d+'s already\nsightline: 1 problem\(s\) found; nothing was written\n$/,
    );
    assert.equal(
      ok(imported),
      'Prompts from docs/examples/prompts.csv: 0 created, 0 updated, 4 unchanged.\n',
    );
    assert.match(
      ok([
        'competitors',
        'add',
        '--org',
        'acme',
        '--category',
        'pm-tools',
        '--name',
        'Jira',
        '--aliases',
        'Atlassian Jira',
      ]),
      /key jira/,
    );
    assert.match(
      ok(['competitors', 'add', '--org', 'acme', '--category', 'pm-tools', '--name', 'Asana']),
      /key asana/,
    );
  });

  it('warns when a brand comes to go by a tracked competitor’s name, and updates it', () => {
    const run = cli(['brands', 'update', 'linear', '--org', 'acme', '--aliases', 'Linear.app,Asana']);
    // Back as it was (the tests after this one import answers naming Asana): no warning.
    const back = cli(['brands', 'update', 'linear', '--org', 'acme', '--aliases', 'Linear.app']);
    assert.equal(run.status, 0, run.stderr);
    assert.match(run.stdout, /^Updated brand \d+ "Linear"/);
    assert.match(
      run.stderr,
      /^sightline: warning: competitor \d+ "Asana" \(category \d+\) now goes by a name of the brand itself: answers naming it count for the brand\n$/,
    );
    assert.equal(back.stderr, '');
  });

  it('refuses bad set-up input with the right exit code and one line on stderr', async () => {
    const usage = cli(['brands', 'create', '--org', 'acme', '--name', 'Other', '--website', 'not a website']);
    assert.equal(usage.status, 2);
    assert.match(usage.stderr, /is not a website address|is not a public domain name/);
    const duplicate = cli(['brands', 'create', '--org', 'acme', '--name', 'linear']);
    assert.equal(duplicate.status, 1);
    assert.match(
      duplicate.stderr,
      /^sightline: a brand named "Linear" already exists in this organization \(id \d+\)\n$/,
    );
    const escaped = cli([
      ...CREATE_CATEGORY,
      '--name',
      'Escaped',
      '--description',
      'line one\nline two\u001b[2J',
    ]);
    // A rule of the value: a usage error, as a bad name is.
    assert.equal(escaped.status, 2);
    assert.equal(
      escaped.stderr,
      'sightline: the description must not hold control characters (line breaks and tabs are fine)\n',
    );
    const unnamed = cli(['competitors', 'add', '--org', 'acme', '--category', 'pm-tools', '--name', '!!!']);
    assert.equal(unnamed.status, 2);
    assert.equal(unnamed.stderr, 'sightline: "!!!" has no letters or digits to identify it by\n');
    // C1 controls (U+009B opens an escape sequence as ESC [ does) and the line separator too.
    for (const name of ['Acme\u009b2J', 'Acme\u0085', 'Acme\u2028Inc']) {
      const c1 = cli(['brands', 'create', '--org', 'acme', '--name', name]);
      assert.equal(c1.status, 2, JSON.stringify(name));
      assert.match(c1.stderr, /without control characters\.\n$/, JSON.stringify(name));
      assert.ok(!/[\u0085\u009b\u2028]/.test(c1.stderr), `escaped: ${JSON.stringify(c1.stderr)}`);
    }
    // Characters as a person counts them: 150 emoji are 300 UTF-16 units, and were "over 200".
    const emoji = cli(['brands', 'create', '--org', 'acme', '--name', '😀'.repeat(150)]);
    assert.equal(emoji.status, 0, emoji.stderr);
    const tooLong = cli(['brands', 'create', '--org', 'acme', '--name', '😀'.repeat(201)]);
    assert.equal(tooLong.status, 2);
    assert.match(tooLong.stderr, /expected a name of 1-200 characters\.\n$/);
    const noOrg = cli(['categories', 'create', '--org', 'nowhere', '--brand', '1', '--name', 'X']);
    assert.equal(noOrg.status, 1);
    assert.match(noOrg.stderr, /organization "nowhere" does not exist/);
    const wrongBrand = cli([...CREATE_PROMPT, '--brand', '999', '--text', 'Q?']);
    assert.equal(wrongBrand.status, 1);
    assert.match(wrongBrand.stderr, /brand 999 does not exist in organization acme/);
    const again = cli(['competitors', 'add', '--org', 'acme', '--category', 'pm-tools', '--name', 'JIRA']);
    assert.equal(again.status, 1);
    assert.match(again.stderr, /already tracks "Jira"/);
    // PostgreSQL's text cannot hold a NUL: refused by name on both databases, nothing written.
    const dir = mkdtempSync(join(tmpdir(), 'sightline-prompts-'));
    try {
      const csv = join(dir, 'prompts.csv');
      // Nor an escape or a bell: they reach the engines and the operator's terminal.
      writeFileSync(csv, 'text\n"Fine prompt?"\n"Best\u0000 tool?"\n"Best\u001b[2J tool\u0007?"\n');
      const nul = cli(['prompts', 'import', csv, '--org', 'acme', '--category', 'pm-tools']);
      assert.equal(nul.status, 1);
      assert.equal(
        nul.stderr,
        `${csv}: line 3: the prompt text must not contain the NUL character (\\u0000)\n` +
          `${csv}: line 4: the prompt text must not contain a control character (U+001B)\n` +
          'sightline: 2 problem(s) found; nothing was written\n',
      );
      const piped = cli(
        ['prompts', 'import', '-', '--org', 'acme', '--category', 'pm-tools'],
        'text\n"Fine prompt?"\n"Best\u0000 tool?"\n',
      );
      assert.equal(piped.status, 1);
      assert.match(piped.stderr, /^stdin: line 3: the prompt text must not contain the NUL character/);
      const missing = cli(['prompts', 'import', join(dir, 'missing.csv'), '--org', 'acme']);
      assert.equal(missing.status, 1);
      assert.equal(missing.stderr, `sightline: cannot read ${join(dir, 'missing.csv')}: no such file\n`);
      // Past 64 MiB a prompts file is refused before it is read, piped or named: "text\n" (5 bytes),
      // 67,108,860 letters and a line break make 67,108,866 bytes, two past 64 MiB.
      const huge = join(dir, 'huge.csv');
      const hugeText = `text\n${'a'.repeat(64 * 1024 * 1024 - 4)}\n`;
      writeFileSync(huge, hugeText);
      const named = cli(['prompts', 'import', huge, '--org', 'acme', '--category', 'pm-tools']);
      assert.equal(named.status, 1);
      assert.equal(
        named.stderr,
        `sightline: ${huge} is larger than 64 MiB (67,108,866 bytes), more than this command reads\n`,
      );
      const pipedHuge = cli(['prompts', 'import', '-', '--org', 'acme', '--category', 'pm-tools'], hugeText);
      assert.equal(pipedHuge.status, 1);
      assert.match(
        pipedHuge.stderr,
        /^sightline: the input is larger than 64 MiB \([\d,]+ bytes so far\), more than this command reads\n$/,
      );
      const written = await ctx.dbs.primary
        .selectFrom('prompts')
        .select('id')
        .where('text', '=', 'Fine prompt?')
        .execute();
      assert.deepEqual(written, []);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('rejects a bad answers file with line-numbered errors and writes nothing', async () => {
    const bad = [
      '{"prompt":"pm-free-plan","run":"r","model":"chatgpt","capturedAt":"2026-11-01T08:00:00Z","answerText":"x"}',
      '{"prompt": 1',
    ].join('\n');
    const result = cli(['runs', 'import', '-', '--org', 'acme'], bad);
    assert.equal(result.status, 1);
    assert.match(result.stderr, /^stdin:2: not valid JSON/m);
    assert.match(result.stderr, /^sightline: 1 problem\(s\) in 2 line\(s\); nothing was imported$/m);
    assert.equal(await countResponses(), 0);
  });

  it('reads --org as a slug, once: an organization id there names no organization', async () => {
    const acme = await ctx.dbs.primary
      .selectFrom('organizations')
      .select('id')
      .where('slug', '=', 'acme')
      .executeTakeFirstOrThrow();
    const line =
      '{"prompt":"pm-free-plan","run":"by-id","model":"chatgpt","capturedAt":"2026-11-01T08:00:00Z","answerText":"x"}';
    const before = await countResponses();
    const result = cli(['runs', 'import', '-', '--org', String(acme.id)], line);
    assert.equal(result.status, 1);
    // Said once, before any line is read: not on every line of the file.
    assert.equal(
      result.stderr,
      `sightline: organization "${acme.id}" does not exist (see: sightline orgs list)\n`,
    );
    // No slug at all: a usage error, one line.
    for (const org of ['ACME', '']) {
      const refused = cli(['runs', 'import', '-', '--org', org], `${line}\n${line}`);
      assert.equal(refused.status, 2, org);
      assert.match(
        refused.stderr,
        /^error: option '--org <slug>' argument '.*' is invalid\. expected 1-40 lowercase/,
      );
      assert.equal(refused.stderr.split('\n').length, 2);
    }
    assert.equal(await countResponses(), before);
  });

  it('prints what a file names with its control characters escaped, not acted on by the terminal', async () => {
    const hostile = '\u001b]0;pwned\u0007\u001b[2J';
    const line = JSON.stringify({
      prompt: hostile,
      run: 'r',
      model: 'chatgpt',
      capturedAt: '2026-11-01T08:00:00Z',
      answerText: 'x',
    });
    const result = cli(['runs', 'import', '-', '--org', 'acme'], line);
    assert.equal(result.status, 1);
    const controls = [...result.stderr].filter((c) => c !== '\n' && (c < ' ' || c === '\u007f'));
    assert.deepEqual(controls, [], JSON.stringify(result.stderr));
    assert.match(result.stderr, /^stdin:1: prompt "\\u001b\]0;pwned\\u0007\\u001b\[2J" does not exist/m);
  });

  it('refuses text that is not UTF-8 (a Windows-1252 export), naming it, instead of storing U+FFFD', async () => {
    const before = await countResponses();
    const line = Buffer.from(
      '{"prompt":"pm-free-plan","run":"latin1","model":"chatgpt","capturedAt":"2026-11-01T08:00:00Z","answerText":"caf\u00e9"}',
      'latin1',
    );
    const answers = cli(['runs', 'import', '-', '--org', 'acme'], line);
    assert.equal(answers.status, 1);
    assert.match(answers.stderr, /^stdin:1: not UTF-8 text: save the file as UTF-8$/m);
    assert.equal(await countResponses(), before);
    const prompts = cli(
      ['prompts', 'import', '-', '--org', 'acme', '--category', 'pm-tools'],
      Buffer.from('text\nBest caf\u00e9 tool?\n', 'latin1'),
    );
    assert.equal(prompts.status, 1);
    assert.equal(
      prompts.stderr,
      'sightline: the input is not UTF-8 text: save it as UTF-8 (a spreadsheet\'s "CSV UTF-8")\n',
    );
  });

  it('says in one line, without a stack, that its output was cut off', async () => {
    const child = spawn(process.execPath, [MAIN, 'orgs', 'list'], {
      env: { ...process.env, DATABASE_URL: ctx.config.databaseUrl },
    });
    // The reader goes away before the command writes anything.
    child.stdout.destroy();
    let stderr = '';
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
      stderr += chunk;
    });
    const [code] = await once(child, 'exit');
    assert.equal(code, 1);
    assert.equal(stderr, 'sightline: the output was cut off: what reads it closed it before the end\n');
  });

  it('refuses a line past 32 MiB by its length, without reading it into memory', async () => {
    // A file whose line breaks were lost: one 32 MiB + 1 byte line after a valid one.
    const dir = mkdtempSync(join(tmpdir(), 'sightline-runs-'));
    try {
      const file = join(dir, 'answers.ndjson');
      const valid =
        '{"prompt":"pm-free-plan","run":"r","model":"chatgpt","capturedAt":"2026-11-01T08:00:00Z","answerText":"x"}';
      writeFileSync(file, `${valid}\n${'a'.repeat(32 * 1024 * 1024 + 1)}\n`);
      const result = cli(['runs', 'import', file, '--org', 'acme']);
      assert.equal(result.status, 1);
      assert.equal(
        result.stderr,
        `${file}:2: longer than 32 MiB (33,554,433 bytes): no answer line is; is the file NDJSON, one answer a line?\n` +
          'sightline: 1 problem(s) in 2 line(s); nothing was imported\n',
      );
      assert.equal(await countResponses(), 0);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('says why an answers file cannot be read (missing, a directory, not a file it can read twice) or has no answers', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'sightline-runs-'));
    const missing = cli(['runs', 'import', join(dir, 'missing.ndjson')]);
    assert.equal(missing.status, 1);
    assert.equal(missing.stderr, `sightline: cannot read ${join(dir, 'missing.ndjson')}: no such file\n`);
    const directory = cli(['runs', 'import', dir]);
    assert.equal(directory.status, 1);
    assert.equal(directory.stderr, `sightline: cannot read ${dir}: it is a directory\n`);
    const device = cli(['runs', 'import', '/dev/null']);
    assert.equal(device.status, 2);
    assert.equal(
      device.stderr,
      'sightline: /dev/null is not a regular file; pipe it in instead: … | npx sightline runs import -\n',
    );
    const empty = cli(['runs', 'import', '-', '--org', 'acme'], '\n\n');
    assert.equal(empty.status, 1);
    assert.equal(
      empty.stderr,
      'stdin: the input has no answers\nsightline: 1 problem(s) in 0 line(s); nothing was imported\n',
    );
    rmSync(dir, { recursive: true, force: true });
    assert.equal(await countResponses(), 0);
  });

  it('imports and publishes answers, which the API then serves with their derived fields', async () => {
    const out = ok(['runs', 'import', 'docs/examples/answers.ndjson', '--publish']);
    const match =
      /^imported 7 answers into 1 run \(run (\d+) new\); 0 already present; 1 of 1 run\(s\) visible through the API; 1 untracked name ranked/.exec(
        out,
      );
    assert.ok(match, out);
    runId = Number(match[1]);
    assert.match(
      ok(['runs', 'import', 'docs/examples/answers.ndjson']),
      /^imported 0 answers into 1 run \(run \d+\); 7 already present;/,
    );

    const res = await getRun(runId);
    assert.equal(res.statusCode, 200, res.body);
    const run = res.json();
    assert.equal(run.status, 'completed');
    assert.equal(run.responsesCount, 7);
    assert.deepEqual(
      run.responses.map(
        (r: { model: string; mentioned: boolean; rank: number | null; sentiment: string | null }) => [
          r.model,
          r.mentioned,
          r.rank,
          r.sentiment,
        ],
      ),
      [
        // First of a numbered list; "fast" and "loved".
        ['chatgpt', true, 1, 'positive'],
        // Third row of the table (Jira, Asana, Linear); nothing evaluative said of it.
        ['perplexity', true, 3, 'neutral'],
        // Second item of the HTML's ordered list; "the fastest issue tracker".
        ['gemini', true, 2, 'positive'],
        // Named first in prose, "faster".
        ['chatgpt', true, 1, 'positive'],
        ['perplexity', false, null, null],
        // "simpler and much faster" before the semicolon.
        ['chatgpt', true, 1, 'positive'],
        ['google_ai_overview', false, null, null],
      ],
    );
    const mentions = Object.fromEntries(
      run.competitors.map((c: { name: string; mentions: number }) => [c.name, c.mentions]),
    );
    // Usable answers weigh 3, 1, 1, 2 and 1. Jira is in all five: 8; Asana in the 2nd, 3rd and 4th: 1 + 1 + 2 = 4.
    assert.equal(mentions.Jira, 8);
    assert.equal(mentions.Asana, 4);
  });

  it('unpublishes and republishes the run', async () => {
    assert.match(
      ok(['runs', 'unpublish', String(runId)]),
      /^Unpublished run \d+ \(2026-11-01\/pm-tools\): the API answers 404 for it now\.\n$/,
    );
    assert.equal((await getRun(runId)).statusCode, 404);
    assert.match(ok(['runs', 'unpublish', String(runId)]), /was already unpublished/);
    assert.match(ok(['runs', 'publish', '2026-11-01/pm-tools', '--org', 'acme']), /^Published run \d+/);
    assert.equal((await getRun(runId)).statusCode, 200);
    const noOrg = cli(['runs', 'publish', '2026-11-01/pm-tools']);
    assert.equal(noOrg.status, 2);
    assert.equal(cli(['runs', 'publish', '99999']).status, 1);
  });

  it("publishes by the import file's run id whatever it holds, refusing digits that name two runs", async () => {
    const answer = (run: string, at: string) =>
      JSON.stringify({
        prompt: 'pm-free-plan',
        run,
        model: 'chatgpt',
        capturedAt: at,
        answerText: 'Linear.',
      });
    // One file run named by the digits of the first run's Sightline id, one with a space and a slash.
    ok(
      ['runs', 'import', '-', '--org', 'acme'],
      `${answer(String(runId), '2026-11-02T08:00:00Z')}\n${answer('Nov 3 run/ü', '2026-11-03T08:00:00Z')}\n`,
    );
    const ambiguous = cli(['runs', 'publish', String(runId), '--org', 'acme']);
    assert.equal(ambiguous.status, 2);
    assert.match(
      ambiguous.stderr,
      new RegExp(
        `^sightline: "${runId}" names run ${runId} by its id and run \\d+ by the import file's run id: add --external-id for the second\n$`,
      ),
    );
    const byFile = ok(['runs', 'publish', String(runId), '--org', 'acme', '--external-id']);
    assert.match(byFile, new RegExp(`^Published run (\\d+) \\(${runId}\\): the API shows it now\\.\n$`));
    assert.notEqual(Number(/run (\d+)/.exec(byFile)?.[1]), runId);
    assert.match(
      ok(['runs', 'publish', 'Nov 3 run/ü', '--org', 'acme']),
      /^Published run \d+ \(Nov 3 run\/ü\)/,
    );
    // Without --org digits are the Sightline id, as before.
    assert.match(ok(['runs', 'publish', String(runId)]), /was already published/);
  });

  it('lists the untracked names answers ranked, and retires one once it is added', () => {
    assert.match(
      ok(['competitors', 'candidates', '--org', 'acme', '--category', 'pm-tools']),
      /^NAME +KEY +ANSWERS.*\nShortcut +shortcut +1 /,
    );
    ok(['competitors', 'add', '--org', 'acme', '--category', 'pm-tools', '--name', 'Shortcut']);
    assert.match(
      ok(['competitors', 'candidates', '--org', 'acme', '--category', 'pm-tools']),
      /^No candidates/,
    );
  });

  it('analyzes one answer from stdin or a file', () => {
    const answer = '1. **Jira** – heavy.\n2. **Linear** – fast. https://linear.app/docs';
    const fromStdin = JSON.parse(ok(['analyze', '--brand', 'Linear', '--competitors', 'Jira,Asana'], answer));
    assert.deepEqual(fromStdin, {
      mentioned: true,
      rank: 2,
      sentiment: 'positive',
      competitors: [{ name: 'Jira', rank: 1 }],
      sources: [{ url: 'https://linear.app/docs', domain: 'linear.app' }],
      candidates: [],
    });
    const dir = mkdtempSync(join(tmpdir(), 'sightline-analyze-'));
    const file = join(dir, 'answer.html');
    writeFileSync(file, '<ol><li>Asana</li><li>Linear</li></ol>');
    const fromHtml = JSON.parse(
      ok(['analyze', '--brand', 'Linear', '--competitors', 'Asana', '--html', '--file', file]),
    );
    const missing = cli(['analyze', '--brand', 'Linear', '--file', join(dir, 'missing.txt')]);
    assert.equal(missing.status, 1);
    assert.equal(missing.stderr, `sightline: cannot read ${join(dir, 'missing.txt')}: no such file\n`);
    rmSync(dir, { recursive: true, force: true });
    assert.deepEqual([fromHtml.rank, fromHtml.competitors], [2, [{ name: 'Asana', rank: 1 }]]);
    assert.equal(cli(['analyze', '--competitors', 'Jira'], 'x').status, 2);
  });

  it('creates a prompt, its id alone on the last line for scripts', async () => {
    const out = ok([...CREATE_PROMPT, '--text', 'Which tracker has the best API?', '--unmonitored']);
    const match = /^Created prompt (\d+) in category \d+ \(not monitored\)\.\n(\d+)\n$/.exec(out);
    assert.ok(match, out);
    assert.equal(match[2], match[1]);
    const stored = await ctx.dbs.primary
      .selectFrom('prompts')
      .select(['text', 'is_monitored'])
      .where('id', '=', Number(match[2]))
      .executeTakeFirstOrThrow();
    assert.deepEqual({ ...stored }, { text: 'Which tracker has the best API?', is_monitored: 0 });
  });
});
