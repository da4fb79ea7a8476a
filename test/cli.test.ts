import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { InvalidArgumentError } from 'commander';
import manifest from '../package.json' with { type: 'json' };
import { buildApp } from '../src/app.ts';
import { baseUrl } from '../src/cli/commands/start.ts';
import {
  formatTable,
  parseExpiresAt,
  parseExpiresIn,
  parseName,
  parsePort,
  parseScopes,
  parseSlug,
  parseTimezone,
} from '../src/cli/commands/support.ts';
import { connectDatabases, type Databases } from '../src/db/connect.ts';
import type { App } from '../src/http/types.ts';
import {
  assertFails,
  configFor,
  KEY,
  MAIN,
  runCli,
  runCliWith,
  type Sandbox,
  sandbox,
} from './support/cli.ts';

// The CLI runs as a child process, exactly as a person runs it, against a database of its own
// (a temporary SQLite file, or a fresh PostgreSQL database in the suite's PostgreSQL pass).

function lastLine(text: string): string {
  return text.trimEnd().split('\n').at(-1) as string;
}

/** An app over the sandbox's database, to check what keys the CLI made can do. */
async function appFor(box: Sandbox): Promise<{ app: App; dbs: Databases }> {
  const config = configFor(box);
  const dbs = connectDatabases(config);
  const app = await buildApp(config, { databases: dbs, logger: false });
  await app.ready();
  return { app, dbs };
}

describe('sightline CLI: schema, organizations and keys', () => {
  let box: Sandbox;
  before(async () => {
    box = await sandbox();
  });
  after(() => box.close());

  it('asks for migrate on a database without a schema, then migrates once', () => {
    assertFails(box.cli('orgs', 'list'), 1, /run "npx sightline migrate" first/);
    const first = box.cli('migrate');
    assert.equal(first.status, 0, first.stderr);
    assert.equal(
      first.stdout,
      'Applied migrations: 0001_initial, 0002_monitoring, 0003_recent_prompt_scores, 0004_recommendation_findings, 0005_monitoring_weekday, 0006_aggregate_generations, 0007_response_composite_keys, 0008_sqlite_response_composite_keys, 0009_weighted_sums_bigint, 0010_artifact_draft_claims.\n',
    );
    const second = box.cli('migrate');
    assert.equal(second.stdout, 'The database schema is up to date.\n');
  });

  it('creates nothing at a SQLite path that holds no database, for a command that needs one', async () => {
    const folder = mkdtempSync(join(tmpdir(), 'sightline-typo-'));
    try {
      const path = join(folder, 'typo', 'deeper', 'x.db');
      for (const args of [
        ['orgs', 'list'],
        ['runs', 'publish', '1'],
        ['monitor', 'run', '--org', 'acme', '--brand', '1'],
      ]) {
        const run = await runCli(`sqlite:${path}`, ...args);
        assert.deepEqual(
          [run.status, run.stderr],
          [1, `sightline: no database at ${path}: run "npx sightline migrate" first\n`],
          args.join(' '),
        );
      }
      assert.deepEqual(readdirSync(folder), [], 'no folder, no file');
    } finally {
      rmSync(folder, { recursive: true, force: true });
    }
  });

  it('says a library’s warning in one line (pg’s ten-line notice on sslmode=require)', async () => {
    const run = await runCli('postgres://postgres@127.0.0.1:1/x?sslmode=require', 'orgs', 'list');
    assert.equal(run.status, 1);
    assert.deepEqual(run.stderr.trimEnd().split('\n').sort(), [
      'sightline: cannot reach the database: connect ECONNREFUSED 127.0.0.1:1',
      "sightline: warning: SECURITY WARNING: The SSL modes 'prefer', 'require', and 'verify-ca' are treated as aliases for 'verify-full'.",
    ]);
    // Told not to warn, it does not.
    for (const env of [{ NODE_NO_WARNINGS: '1' }, { NODE_OPTIONS: '--no-warnings' }] as Record<
      string,
      string
    >[]) {
      const quiet = await runCliWith(
        'postgres://postgres@127.0.0.1:1/x?sslmode=require',
        env,
        'orgs',
        'list',
      );
      assert.equal(quiet.stderr, 'sightline: cannot reach the database: connect ECONNREFUSED 127.0.0.1:1\n');
    }
  });

  it('creates, lists and updates organizations with validated settings', () => {
    const empty = box.cli('orgs', 'list');
    assert.equal(empty.status, 0);
    assert.match(empty.stdout, /No organizations yet/);

    const created = box.cli('orgs', 'create', '--slug', 'wayne', '--name', 'Wayne Enterprises');
    assert.equal(created.status, 0, created.stderr);
    assert.match(created.stdout, /Created organization wayne \(plan free, API access off, timezone UTC\)/);
    assertFails(box.cli('orgs', 'create', '--slug', 'wayne', '--name', 'Again'), 1, /"wayne" already exists/);

    const updated = box.cli(
      'orgs',
      'update',
      'wayne',
      '--plan',
      'pro',
      '--api-access',
      'on',
      '--timezone',
      'europe/berlin',
    );
    assert.equal(updated.status, 0, updated.stderr);
    // The zone is stored in its canonical IANA spelling.
    assert.match(updated.stdout, /plan pro, API access on, timezone Europe\/Berlin/);

    const list = box.cli('orgs', 'list');
    const lines = list.stdout.trimEnd().split('\n');
    assert.match(lines[0] as string, /^SLUG\s+NAME\s+PLAN\s+API ACCESS\s+TIMEZONE\s+CREATED$/);
    assert.match(lines[1] as string, /^wayne\s+Wayne Enterprises\s+pro\s+on\s+Europe\/Berlin\s+\d{4}-/);
  });

  it('rejects bad arguments as usage errors (exit 2) and unknown objects as failures (exit 1)', () => {
    assertFails(box.cli('orgs', 'create', '--slug', 'Bad_Slug', '--name', 'X'), 2, /--slug/);
    assertFails(box.cli('orgs', 'create', '--slug', '14', '--name', 'X'), 2, /a slug is never all digits/);
    assertFails(
      box.cli('orgs', 'create', '--slug', 'ok', '--name', 'X', '--plan', 'gold'),
      2,
      /free, starter, pro, enterprise/,
    );
    assertFails(box.cli('orgs', 'create', '--name', 'X'), 2, /--slug/);
    assertFails(box.cli('orgs', 'update', 'wayne'), 2, /^sightline: nothing to update/);
    assertFails(
      box.cli('orgs', 'update', 'nobody', '--plan', 'pro'),
      1,
      /^sightline: no organization with slug "nobody"/,
    );
    assertFails(box.cli('frobnicate'), 2, /unknown command/);
    // Names an object has of its own are commands no more than any other word.
    for (const word of ['constructor', '__proto__', 'toString'])
      assertFails(box.cli(word), 2, new RegExp(`unknown command '${word}'`));
    // A near miss names the command or option meant, on the error's own line.
    assertFails(box.cli('orgz'), 2, /^error: unknown command 'orgz' \(Did you mean orgs\?\)$/);
    assertFails(box.cli('orgs', 'lst'), 2, /^error: unknown command 'lst' \(Did you mean list\?\)$/);
    assertFails(
      box.cli('orgs', 'create', '--slug', 'ok', '--name', 'X', '--plann', 'pro'),
      2,
      /^error: unknown option '--plann' \(Did you mean --plan\?\)$/,
    );
    // An option the program does not have is refused like an unknown command, on one line.
    assertFails(box.cli('--verbose', 'orgs', 'list'), 2, /^error: unknown option '--verbose'$/);
    // Help asked beside an unknown word is the program's help, every command listed.
    const help = box.cli('frobnicate', '--help');
    assert.equal(help.status, 0, help.stderr);
    assert.match(help.stdout, /^ {2}orgs\s+Manage organizations\.$/m);
    assert.doesNotMatch(box.cli('orgs', 'list').stdout, /^ok\s/m);
  });

  it('started by a Node that cannot strip types, says so in one line instead of a stack trace', () => {
    const run = spawnSync(process.execPath, ['--no-experimental-strip-types', MAIN, 'orgs', 'list'], {
      encoding: 'utf8',
    });
    assert.equal(run.status, 1);
    assert.match(
      run.stderr,
      /^sightline: Node v[\d.]+ cannot run it \(it needs Node 24 with type stripping\); run it as npx sightline …, which uses the project's Node 24\n$/,
    );
    assert.equal(run.stdout, '');
  });

  it('prints the version of the package, alone, for --version and -V', () => {
    for (const flag of ['--version', '-V']) {
      const result = box.cli(flag);
      assert.equal(result.status, 0, result.stderr);
      assert.equal(result.stdout, `${manifest.version}\n`);
      assert.equal(result.stderr, '');
    }
  });

  it('prints a new key alone on the last line, and the API accepts it within its scopes', async () => {
    const result = box.cli(
      'keys',
      'create',
      '--org',
      'wayne',
      '--scopes',
      'brands:read',
      '--name',
      'reporting',
    );
    assert.equal(result.status, 0, result.stderr);
    const key = lastLine(result.stdout);
    assert.match(key, KEY);
    const info = result.stdout.trimEnd().split('\n').slice(0, -1).join('\n');
    assert.match(info, new RegExp(`Created key ${key.slice(8, 16)} "reporting" for wayne`));
    assert.match(info, /Scopes: brands:read; expires: never/);
    assert.ok(!info.includes(key.slice(17)), 'the secret appears only on the last line');

    const { app, dbs } = await appFor(box);
    try {
      const brands = await app.inject({ url: '/api/brands/', headers: { authorization: `Bearer ${key}` } });
      assert.equal(brands.statusCode, 200, brands.body);
      // The scope check comes before the lookup, so any brand id shows the missing scope.
      const runs = await app.inject({
        url: '/api/brands/1/runs/',
        headers: { authorization: `Bearer ${key}` },
      });
      assert.equal(runs.statusCode, 403);
      assert.match(runs.json().detail, /runs:read/);
    } finally {
      await app.close();
      await dbs.close();
    }
  });

  it('rejects conflicting or invalid key options', () => {
    const base = ['keys', 'create', '--org', 'wayne'];
    assertFails(box.cli(...base, '--scopes', 'brands:write'), 2, /--scopes/);
    assertFails(
      box.cli(...base),
      2,
      /^sightline: --scopes is required: "all" or a comma-separated list of brands:read, runs:read, reports:read$/,
    );
    assertFails(
      box.cli(...base, '--scopes', 'all', '--expires-in', '30d', '--expires-at', '2999-01-01'),
      2,
      /cannot be used with/,
    );
    assertFails(
      box.cli('keys', 'create', '--org', 'nobody', '--scopes', 'all'),
      1,
      /no organization with slug "nobody"/,
    );
  });

  it('lists keys without secrets or hashes, and a revoked or expired key gets 401', async () => {
    const kept = lastLine(
      box.cli('keys', 'create', '--org', 'wayne', '--scopes', 'all', '--expires-at', '2999-12-31').stdout,
    );
    const doomed = lastLine(
      box.cli('keys', 'create', '--org', 'wayne', '--scopes', 'all', '--name', 'doomed').stdout,
    );
    const brief = lastLine(
      box.cli('keys', 'create', '--org', 'wayne', '--scopes', 'all', '--expires-in', '1s').stdout,
    );
    for (const key of [kept, doomed, brief]) assert.match(key, KEY);
    const doomedId = doomed.slice(8, 16);

    const revoked = box.cli('keys', 'revoke', doomedId);
    assert.equal(revoked.status, 0, revoked.stderr);
    assert.equal(revoked.stdout, `Revoked key ${doomedId}.\n`);
    assert.match(box.cli('keys', 'revoke', doomedId).stdout, /already revoked/);
    assertFails(box.cli('keys', 'revoke', 'ZZZZZZZZ'), 1, /no API key with identifier ZZZZZZZZ/);
    assertFails(box.cli('keys', 'revoke', 'short'), 2, /not a key identifier/);
    // A whole key pasted in its place: revoked by its identifier, the secret never printed back.
    const pasted = box.cli('keys', 'revoke', doomed);
    assert.equal(pasted.status, 0, pasted.stderr);
    assert.match(pasted.stdout, new RegExp(`^Key ${doomedId} was already revoked`));
    const secret = doomed.slice(`sl_live_${doomedId}_`.length);
    const mangled = box.cli('keys', 'revoke', `${doomed}x`);
    assert.equal(mangled.status, 2);
    // The secret alone, or a key given to an option it does not belong to (commander's own errors).
    const alone = box.cli('keys', 'revoke', secret);
    assert.equal(
      alone.stderr,
      'sightline: a value of 38 characters is not a key identifier: expected the 8 characters after sl_live_\n',
    );
    const misplaced = [
      box.cli('keys', 'revoke', `--key=${doomed}`),
      box.cli('keys', 'list', '--org', doomed),
      box.cli('keys', 'create', '--org', 'wayne', '--name', 'x', '--scopes', doomed),
      // The secret alone, whole, a character short or over, or its random part alone.
      box.cli('keys', 'list', '--org', secret),
      box.cli('keys', 'list', '--org', secret.slice(0, -1)),
      box.cli('keys', 'list', '--org', `${secret}x`),
      box.cli('keys', 'list', '--org', secret.slice(0, 32)),
      box.cli('keys', 'list', '--org', secret.slice(0, 24)),
    ];
    for (const run of [pasted, mangled, alone, ...misplaced]) {
      assert.ok(!`${run.stdout}${run.stderr}`.includes(secret.slice(0, 24)), `no secret: ${run.stderr}`);
    }
    for (const run of misplaced) assert.equal(run.stderr.split('\n').length, 2, run.stderr);
    // A long slug or hash is no secret: quoted as given.
    for (const word of ['acmeglobalholdings2024international', 'd41d8cd98f00b204e9800998ecf8427e']) {
      assert.ok(box.cli('keys', 'list', '--org', word).stderr.includes(word), word);
    }

    await new Promise((resolve) => setTimeout(resolve, 1100));
    const { app, dbs } = await appFor(box);
    try {
      const list = box.cli('keys', 'list', '--org', 'wayne');
      assert.equal(list.status, 0, list.stderr);
      const hashes = await dbs.primary.selectFrom('api_keys').select('secret_hash').execute();
      for (const key of [kept, doomed, brief]) {
        assert.ok(list.stdout.includes(key.slice(8, 16)), 'the identifier is listed');
        assert.ok(!list.stdout.includes(key.slice(17, 30)), 'no part of the secret is listed');
      }
      for (const { secret_hash } of hashes) assert.ok(!list.stdout.includes(secret_hash.slice(0, 16)));
      assert.match(list.stdout, new RegExp(`^${doomedId}\\s+doomed\\s+\\S+\\s+revoked\\s`, 'm'));
      assert.match(list.stdout, new RegExp(`^${brief.slice(8, 16)}\\s+cli\\s+\\S+\\s+expired\\s`, 'm'));
      assert.match(
        list.stdout,
        new RegExp(`^${kept.slice(8, 16)}\\s+cli\\s+brands:read,runs:read,reports:read\\s+active\\s`, 'm'),
      );

      const ask = (key: string) =>
        app.inject({ url: '/api/brands/', headers: { authorization: `Bearer ${key}` } });
      assert.equal((await ask(kept)).statusCode, 200);
      const gone = await ask(doomed);
      assert.equal(gone.statusCode, 401);
      assert.match(gone.json().detail, /revoked/);
      const old = await ask(brief);
      assert.equal(old.statusCode, 401);
      assert.match(old.json().detail, /expired/);
    } finally {
      await app.close();
      await dbs.close();
    }
    assertFails(box.cli('keys', 'list', '--org', 'nobody'), 1, /no organization/);
  });

  it('rejects a bad serve port as a usage error', () => {
    assertFails(box.cli('serve', '--port', '70000'), 2, /--port/);
  });
});

describe('CLI argument parsers', () => {
  const invalid = (fn: () => unknown) => assert.throws(fn, InvalidArgumentError);

  it('accepts slugs, names and ports in range only', () => {
    assert.equal(parseSlug('acme-2'), 'acme-2');
    for (const bad of ['', 'Acme', 'a_b', '-a', 'a-', 'x'.repeat(41)]) invalid(() => parseSlug(bad));
    assert.equal(parseName('  Wayne  '), 'Wayne');
    invalid(() => parseName('   '));
    // An escape sequence would act on the terminal that lists the organization or the key.
    invalid(() => parseName('Wayne\u001b[2J'));
    invalid(() => parseName('Wayne\u0007'));
    assert.equal(parsePort('0'), 0);
    assert.equal(parsePort('65535'), 65535);
    for (const bad of ['65536', '-1', '80.5', 'http', '']) invalid(() => parsePort(bad));
  });

  it('accepts IANA time zones in canonical spelling and rejects offsets and unknown zones', () => {
    assert.equal(parseTimezone('UTC'), 'UTC');
    assert.equal(parseTimezone('europe/berlin'), 'Europe/Berlin');
    assert.equal(parseTimezone('America/New_York'), 'America/New_York');
    // ICU resolves these to the names their countries dropped: kept as given.
    assert.equal(parseTimezone('Asia/Kolkata'), 'Asia/Kolkata');
    assert.equal(parseTimezone('Europe/Kyiv'), 'Europe/Kyiv');
    assert.equal(parseTimezone('America/Nuuk'), 'America/Nuuk');
    for (const bad of ['+02:00', '-05:00', 'Mars/Base', 'Europe/Nowhere', ''])
      invalid(() => parseTimezone(bad));
  });

  it('accepts "all" or a list of the three scopes', () => {
    assert.deepEqual(parseScopes('all'), ['brands:read', 'runs:read', 'reports:read']);
    assert.deepEqual(parseScopes('runs:read, brands:read,runs:read'), ['runs:read', 'brands:read']);
    for (const bad of ['', 'brands:write', 'all,runs:read', 'brands:read,']) invalid(() => parseScopes(bad));
  });

  it('turns --expires-in into a moment from now and checks --expires-at', () => {
    const now = Date.now();
    // 90 s, 15 min, 12 h and 30 days after now, within the time the call itself takes.
    for (const [text, ms] of [
      ['90s', 90_000],
      ['15m', 900_000],
      ['12h', 43_200_000],
      ['30d', 2_592_000_000],
    ] as const) {
      const at = Date.parse(parseExpiresIn(text));
      assert.ok(at >= now + ms && at < now + ms + 5_000, text);
    }
    for (const bad of ['0d', '3w', '30', 'd', '-1d', '1.5h', '3654d']) invalid(() => parseExpiresIn(bad));
    assert.equal(parseExpiresAt('2999-12-31'), '2999-12-31T00:00:00.000Z');
    assert.equal(parseExpiresAt('2999-06-01T12:30:00+02:00'), '2999-06-01T10:30:00.000Z');
    for (const bad of ['2020-01-01T00:00:00Z', '2999-02-30', '2999-13-01', 'tomorrow', '2999-1-1']) {
      invalid(() => parseExpiresAt(bad));
    }
  });

  it('formats aligned tables and a reachable base URL', () => {
    assert.equal(
      formatTable(
        ['ID', 'NAME'],
        [
          ['a', 'long name'],
          ['bbbb', '-'],
        ],
      ),
      'ID    NAME\na     long name\nbbbb  -',
    );
    assert.equal(
      baseUrl({ publicBaseUrl: undefined, host: '127.0.0.1', port: 8000 }),
      'http://127.0.0.1:8000',
    );
    assert.equal(baseUrl({ publicBaseUrl: undefined, host: '0.0.0.0', port: 80 }), 'http://127.0.0.1:80');
    assert.equal(baseUrl({ publicBaseUrl: undefined, host: '::1', port: 8000 }), 'http://[::1]:8000');
    assert.equal(
      baseUrl({ publicBaseUrl: 'https://api.example.com', host: '0.0.0.0', port: 8000 }),
      'https://api.example.com',
    );
  });
});
