import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { after, before, describe, it } from 'node:test';
import { CHECK_PROMPT } from '../src/cli/commands/engines.ts';
import { MAIN } from './support/cli.ts';
import { type FakeVendor, startFakeVendor } from './support/fake-engines.ts';

// `sightline engines …` runs as a child process, as a person runs it, with base URLs pointing at
// local fakes of the vendors (test/support/fake-engines.ts). Its environment is built from
// nothing, so a real key in the developer's shell can never be used.

const OPENAI_KEY = 'sk-test-cli-openai-5f1e2d3c';
const ANTHROPIC_KEY = 'sk-ant-test-cli-9a8b7c6d';
const GEMINI_KEY = 'AIzaTestCliGemini4e5f6a7b';

interface Run {
  status: number | null;
  stdout: string;
  stderr: string;
}

function cli(env: Record<string, string>, ...args: string[]): Promise<Run> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      [MAIN, ...args],
      { env: { PATH: process.env.PATH ?? '', LOG_LEVEL: 'silent', ...env }, timeout: 60_000 },
      (error, stdout, stderr) => {
        resolve({ status: error ? ((error as { code?: number }).code ?? null) : 0, stdout, stderr });
      },
    );
  });
}

const lineOf = (text: string, engine: string) =>
  text.split('\n').find((l) => l.startsWith(`${engine} `)) ?? '';

let chatgpt: FakeVendor;
let claude: FakeVendor;
let gemini: FakeVendor;
let env: Record<string, string>;

before(async () => {
  chatgpt = await startFakeVendor('chatgpt', { key: OPENAI_KEY, model: 'gpt-5-mini', prompt: CHECK_PROMPT });
  claude = await startFakeVendor('claude', {
    key: ANTHROPIC_KEY,
    model: 'claude-sonnet-5-5',
    prompt: CHECK_PROMPT,
  });
  gemini = await startFakeVendor('gemini', {
    key: GEMINI_KEY,
    model: 'gemini-2.5-flash',
    prompt: CHECK_PROMPT,
  });
  env = {
    OPENAI_API_KEY: OPENAI_KEY,
    OPENAI_BASE_URL: chatgpt.baseUrl,
    GEMINI_API_KEY: GEMINI_KEY,
    GEMINI_BASE_URL: gemini.baseUrl,
  };
});
after(async () => {
  await Promise.all([chatgpt.close(), claude.close(), gemini.close()]);
});

describe('sightline engines list', () => {
  it('lists every engine, configured or not, with model and limits, and no key', async () => {
    const run = await cli(
      { ...env, SIGHTLINE_GEMINI_MODEL: 'gemini-2.5-pro', SIGHTLINE_GEMINI_CONCURRENCY: '9' },
      'engines',
      'list',
    );
    assert.equal(run.status, 0, run.stderr);
    assert.match(
      lineOf(run.stdout, 'chatgpt'),
      /^chatgpt\s+configured\s+gpt-5-mini\s+4\s+60\s+200,000\s+90,000 ms$/,
    );
    assert.match(lineOf(run.stdout, 'gemini'), /^gemini\s+configured\s+gemini-2\.5-pro\s+9\s/);
    assert.match(
      lineOf(run.stdout, 'claude'),
      /^claude\s+not configured \(set ANTHROPIC_API_KEY\)\s+claude-sonnet-5-5/,
    );
    assert.match(lineOf(run.stdout, 'perplexity'), /not configured \(set PERPLEXITY_API_KEY\)/);
    assert.match(lineOf(run.stdout, 'simulated'), /^simulated\s+configured/);
    assert.equal(run.stdout.trim().split('\n').length, 7, 'a header and six engines');
    assert.ok(!run.stdout.includes(OPENAI_KEY) && !run.stdout.includes(GEMINI_KEY));
  });

  it('refuses a bad setting with one line and exit 2', async () => {
    const run = await cli({ SIGHTLINE_CLAUDE_TIMEOUT_MS: 'soon' }, 'engines', 'list');
    assert.equal(run.status, 2);
    assert.equal(run.stderr, 'sightline: SIGHTLINE_CLAUDE_TIMEOUT_MS must be a whole number, got "soon"\n');
  });
});

describe('sightline engines check', () => {
  it('asks every configured engine once and prints outcome and latency', async () => {
    chatgpt.requests.length = 0;
    gemini.requests.length = 0;
    const run = await cli(env, 'engines', 'check');
    assert.equal(run.status, 0, run.stderr);
    assert.match(
      lineOf(run.stdout, 'chatgpt'),
      /^chatgpt\s+answered\s+\d[\d,]* ms\s+gpt-5-mini-2025-08-07\s+2$/,
    );
    assert.match(lineOf(run.stdout, 'gemini'), /^gemini\s+answered\s+\d[\d,]* ms\s+gemini-2\.5-flash\s+2$/);
    assert.match(lineOf(run.stdout, 'simulated'), /^simulated\s+answered/);
    assert.equal(lineOf(run.stdout, 'claude'), '', 'an unconfigured engine is not checked unless named');
    assert.equal(chatgpt.requests.length, 1);
    assert.equal(gemini.requests.length, 1);
    assert.equal(run.stderr, '');
  });

  it('exits 1 with one line when a check fails, and the key appears nowhere', async () => {
    claude.fallback = { kind: 'status', status: 529 };
    const run = await cli(
      {
        ...env,
        ANTHROPIC_API_KEY: ANTHROPIC_KEY,
        ANTHROPIC_BASE_URL: claude.baseUrl,
        SIGHTLINE_ENGINE_MAX_ATTEMPTS: '2',
      },
      'engines',
      'check',
      'claude',
      'chatgpt',
    );
    claude.fallback = { kind: 'answer' };
    assert.equal(run.status, 1);
    assert.match(
      lineOf(run.stdout, 'claude'),
      /^claude\s+error\s+.*overloaded \(HTTP 529 overloaded_error\)$/,
    );
    assert.match(lineOf(run.stdout, 'chatgpt'), /^chatgpt\s+answered/);
    assert.equal(run.stderr, 'sightline: 1 of 2 engine check(s) failed\n');
    assert.ok(!`${run.stdout}${run.stderr}`.includes(ANTHROPIC_KEY));
  });

  it('says so for a named engine that is not configured, and fails', async () => {
    const run = await cli(env, 'engines', 'check', 'perplexity');
    assert.equal(run.status, 1);
    assert.match(lineOf(run.stdout, 'perplexity'), /^perplexity\s+not configured\s.*set PERPLEXITY_API_KEY$/);
    assert.equal(run.stderr, 'sightline: 1 of 1 engine check(s) failed\n');
  });

  it('treats an unknown engine name as a usage error (exit 2), asking nothing', async () => {
    chatgpt.requests.length = 0;
    const run = await cli(env, 'engines', 'check', 'chatgpt', 'bing');
    assert.equal(run.status, 2);
    assert.equal(
      run.stderr,
      'sightline: unknown engine "bing"; expected one of chatgpt, claude, gemini, perplexity, openai_compatible, simulated\n',
    );
    assert.equal(chatgpt.requests.length, 0);
  });
});
