import assert from 'node:assert/strict';
import { PassThrough } from 'node:stream';
import { after, before, describe, it } from 'node:test';
import { pino } from 'pino';
import { Registry } from 'prom-client';
import { ConfigError, type EngineName, loadConfig } from '../src/config.ts';
import { createEngines, type Engine } from '../src/monitoring/engines/index.ts';
import { registerEngineMetrics } from '../src/monitoring/engines/metrics.ts';
import { type Clock, EngineLimits } from '../src/monitoring/engines/rate-limit.ts';
import {
  ANSWER,
  type FakeVendor,
  GEMINI_CHUNKS,
  PAGES,
  PROMPT,
  startFakeVendor,
} from './support/fake-engines.ts';

// Every engine is driven through its vendor's official SDK against a local server that speaks
// the vendor's wire format (test/support/fake-engines.ts). No test reaches the internet.

const KEYS = {
  chatgpt: 'sk-test-openai-0123456789abcdef',
  claude: 'sk-ant-test-0123456789abcdef',
  gemini: 'AIzaTestGemini0123456789abcdef',
  perplexity: 'pplx-test-0123456789abcdef',
  openai_compatible: 'sk-or-test-0123456789abcdef',
};
const MODELS = {
  chatgpt: 'gpt-5-mini',
  claude: 'claude-sonnet-5-5',
  gemini: 'gemini-2.5-flash',
  perplexity: 'sonar',
  openai_compatible: 'openai/gpt-5-mini:online',
};
type Vendor = keyof typeof KEYS;
const VENDOR_NAMES = Object.keys(KEYS) as Vendor[];
// A brand and competitors the ask carries as context: no vendor may ever be sent them.
const CONTEXT = { brandName: 'Globex Quiet Brand', competitorNames: ['Initrode Hidden Rival'] };

const fakes = {} as Record<Vendor, FakeVendor>;

function env(overrides: Record<string, string> = {}): NodeJS.ProcessEnv {
  return {
    OPENAI_API_KEY: KEYS.chatgpt,
    OPENAI_BASE_URL: fakes.chatgpt.baseUrl,
    ANTHROPIC_API_KEY: KEYS.claude,
    ANTHROPIC_BASE_URL: fakes.claude.baseUrl,
    GEMINI_API_KEY: KEYS.gemini,
    GEMINI_BASE_URL: fakes.gemini.baseUrl,
    PERPLEXITY_API_KEY: KEYS.perplexity,
    PERPLEXITY_BASE_URL: fakes.perplexity.baseUrl,
    OPENAI_COMPATIBLE_API_KEY: KEYS.openai_compatible,
    OPENAI_COMPATIBLE_BASE_URL: fakes.openai_compatible.baseUrl,
    OPENAI_COMPATIBLE_MODEL: MODELS.openai_compatible,
    SIGHTLINE_ENGINE_MAX_ATTEMPTS: '3',
    ...overrides,
  };
}

/** Engines with tiny backoff, logging into `logs`. */
function engines(overrides: Record<string, string> = {}, registry?: Registry) {
  const stream = new PassThrough();
  let logs = '';
  stream.on('data', (chunk: Buffer) => {
    logs += chunk.toString('utf8');
  });
  const built = createEngines(loadConfig(env(overrides)).engines, {
    backoff: { initialDelayMs: 1, maxDelayMs: 5 },
    logger: pino({ level: 'debug' }, stream),
    ...(registry ? { metrics: registerEngineMetrics(registry) } : {}),
  });
  return {
    get: (name: EngineName): Engine => {
      const engine = built.get(name);
      assert.ok(engine, `${name} is configured`);
      return engine;
    },
    logs: () => logs,
  };
}

const ask = (engine: Engine) => engine.ask({ prompt: PROMPT, context: CONTEXT });

function reset(): void {
  for (const fake of Object.values(fakes)) {
    fake.requests.length = 0;
    fake.fallback = { kind: 'answer' };
  }
}

before(async () => {
  for (const name of VENDOR_NAMES)
    fakes[name] = await startFakeVendor(name, { key: KEYS[name], model: MODELS[name] });
});
after(async () => {
  await Promise.all(Object.values(fakes).map((f) => f.close()));
});

describe('answers and the sources each vendor attributes', () => {
  it('chatgpt: Responses API with web search; sources are the url_citation annotations, once each', async () => {
    reset();
    const result = await ask(engines().get('chatgpt'));
    assert.equal(result.outcome, 'answered');
    assert.equal(result.text, ANSWER);
    // Three annotations, two of them on the same page: two sources, in order of first citation.
    assert.deepEqual(result.sources, [
      { url: `${PAGES[0].url}?utm_source=openai`, title: PAGES[0].title },
      { url: `${PAGES[1].url}?utm_source=openai`, title: PAGES[1].title },
    ]);
    assert.equal(result.vendorModel, 'gpt-5-mini-2025-08-07');
    assert.deepEqual(result.usage, { inputTokens: 8200, outputTokens: 600 });
    // gpt-5-mini: 8,200 × $0.25/M + 600 × $2/M + 1 search × $0.01 = 0.00205 + 0.0012 + 0.01.
    assert.equal(result.estimatedCostUsd, 0.01325);
    assert.equal(result.error, undefined);
    const [request] = fakes.chatgpt.requests;
    assert.equal(request?.headers.authorization, `Bearer ${KEYS.chatgpt}`);
    assert.equal(fakes.chatgpt.requests.length, 1);
  });

  it('chatgpt: token counts that are no count (too large for a number, negative, fractional) are 0', async () => {
    reset();
    for (const [input, output] of [
      ['1e400', '-5.5'],
      ['2147483648', '600.5'],
    ]) {
      fakes.chatgpt.script({
        kind: 'answer',
        rewrite: (json) =>
          json
            .replace('"input_tokens":8200', `"input_tokens":${input}`)
            .replace('"output_tokens":600', `"output_tokens":${output}`),
      });
      const result = await ask(engines().get('chatgpt'));
      assert.equal(result.outcome, 'answered');
      assert.deepEqual(result.usage, { inputTokens: 0, outputTokens: 0 });
      // Only the one web search is priced: $0.01.
      assert.equal(result.estimatedCostUsd, 0.01);
    }
  });

  it('claude: a search count that is no count is 0, and only the tokens are priced', async () => {
    reset();
    for (const count of ['1e400', '-7']) {
      fakes.claude.script({
        kind: 'answer',
        rewrite: (json) => json.replace('"web_search_requests":1', `"web_search_requests":${count}`),
      });
      const result = await ask(engines().get('claude'));
      assert.equal(result.outcome, 'answered');
      // claude-sonnet-5-5: 6,000 × $2/M + 400 × $10/M = 0.012 + 0.004, no search.
      assert.equal(result.estimatedCostUsd, 0.016);
    }
  });

  it('claude: Messages API with web search; the answer is the text after the search, sources its citations', async () => {
    reset();
    const result = await ask(engines().get('claude'));
    assert.equal(result.outcome, 'answered');
    // The "I'll search for …" narration before the search is not part of the answer.
    assert.equal(result.text, ANSWER);
    assert.deepEqual(result.sources, [
      { url: PAGES[0].url, title: PAGES[0].title },
      { url: PAGES[1].url, title: PAGES[1].title },
    ]);
    assert.equal(result.vendorModel, 'claude-sonnet-5-5-20260915');
    assert.deepEqual(result.usage, { inputTokens: 6000, outputTokens: 400 });
    // Sonnet 5.5: 6,000 × $2/M + 400 × $10/M + 1 search × $0.01 = 0.012 + 0.004 + 0.01.
    assert.equal(result.estimatedCostUsd, 0.026);
    // This SDK version sends the key as a bearer token (older ones used x-api-key).
    assert.equal(fakes.claude.requests[0]?.headers.authorization, `Bearer ${KEYS.claude}`);
  });

  it('claude: a paused search turn is continued and the usage of both turns counted', async () => {
    reset();
    fakes.claude.script({ kind: 'pause' });
    const result = await ask(engines().get('claude'));
    assert.equal(result.outcome, 'answered');
    assert.equal(result.text, ANSWER);
    assert.equal(result.sources.length, 2);
    assert.deepEqual(result.usage, { inputTokens: 12000, outputTokens: 800 });
    assert.equal(fakes.claude.requests.length, 2);
    const continued = fakes.claude.requests[1]?.body as {
      messages: Array<{ role: string; content: unknown }>;
    };
    assert.deepEqual(
      continued.messages.map((m) => m.role),
      ['user', 'assistant'],
    );
  });

  it('gemini: Google Search grounding; sources are the grounding chunks (redirect links titled by domain)', async () => {
    reset();
    const result = await ask(engines().get('gemini'));
    assert.equal(result.outcome, 'answered');
    assert.equal(result.text, ANSWER);
    assert.deepEqual(
      result.sources,
      GEMINI_CHUNKS.map((c) => ({ url: c.web.uri, title: c.web.title })),
    );
    assert.equal(result.vendorModel, 'gemini-2.5-flash');
    // Input: 12 prompt + 1,200 search-result tokens; output: 300 answer + 100 thinking tokens.
    assert.deepEqual(result.usage, { inputTokens: 1212, outputTokens: 400 });
    // 1,212 × $0.30/M + 400 × $2.50/M + one grounded prompt × $0.035 = 0.0003636 + 0.001 + 0.035.
    assert.equal(result.estimatedCostUsd, 0.036364);
    assert.equal(fakes.gemini.requests[0]?.headers['x-goog-api-key'], KEYS.gemini);
  });

  it('perplexity: the numbered citations first, titled from search_results, then the uncited results', async () => {
    reset();
    const result = await ask(engines().get('perplexity'));
    assert.equal(result.outcome, 'answered');
    assert.equal(result.text, ANSWER);
    assert.deepEqual(result.sources, [
      { url: PAGES[1].url, title: PAGES[1].title },
      { url: PAGES[0].url, title: PAGES[0].title },
      { url: PAGES[2].url, title: PAGES[2].title },
    ]);
    assert.equal(result.vendorModel, 'sonar');
    // sonar: 12 × $1/M + 280 × $1/M + the $0.005 request fee.
    assert.equal(result.estimatedCostUsd, 0.005292);
    assert.equal(fakes.perplexity.requests[0]?.headers.authorization, `Bearer ${KEYS.perplexity}`);
  });

  it('openai_compatible: any chat completions endpoint; url_citation annotations; no price known', async () => {
    reset();
    const result = await ask(engines().get('openai_compatible'));
    assert.equal(result.outcome, 'answered');
    assert.deepEqual(result.sources, [{ url: PAGES[2].url, title: PAGES[2].title }]);
    assert.equal(result.vendorModel, MODELS.openai_compatible);
    assert.equal(result.estimatedCostUsd, null);
  });

  it('sends each vendor the prompt and nothing of the context (tenancy)', async () => {
    reset();
    const all = engines();
    await Promise.all(VENDOR_NAMES.map((name) => ask(all.get(name))));
    for (const name of VENDOR_NAMES) {
      assert.equal(fakes[name].requests.length, 1, name);
      const sent = JSON.stringify(fakes[name].requests[0]?.body);
      assert.ok(sent.includes(PROMPT), name);
      assert.ok(
        !sent.includes(CONTEXT.brandName) && !sent.includes('Initrode'),
        `${name} was sent the context`,
      );
    }
  });
});

describe('refusals and empty answers', () => {
  for (const name of ['chatgpt', 'claude', 'gemini', 'openai_compatible'] as const) {
    it(`${name}: a refusal or block is no_result`, async () => {
      reset();
      fakes[name].script({ kind: 'refusal' });
      const result = await ask(engines().get(name));
      assert.equal(result.outcome, 'no_result');
      assert.deepEqual(result.sources, []);
      assert.equal(fakes[name].requests.length, 1, 'a refusal is not retried');
    });
  }
  for (const name of VENDOR_NAMES) {
    it(`${name}: an answer without text is empty`, async () => {
      reset();
      fakes[name].script({ kind: 'empty' });
      const result = await ask(engines().get(name));
      assert.equal(result.outcome, 'empty');
      assert.equal(result.text, '');
    });
  }
});

describe('failure is normal', () => {
  it('waits as long as retry-after-ms says, then answers', async () => {
    reset();
    fakes.chatgpt.script({ kind: 'status', status: 429, headers: { 'retry-after-ms': '400' } });
    const result = await ask(engines().get('chatgpt'));
    assert.equal(result.outcome, 'answered');
    assert.equal(fakes.chatgpt.requests.length, 2);
    // The backoff alone is at most 5 ms: the wait is the vendor's.
    assert.ok(result.latencyMs >= 400, `waited ${result.latencyMs} ms`);
  });

  it('honours Anthropic retry-after (seconds) and retries its 529 overloaded', async () => {
    reset();
    fakes.claude.script(
      { kind: 'status', status: 429, headers: { 'retry-after': '1' } },
      { kind: 'status', status: 529 },
    );
    const result = await ask(engines().get('claude'));
    assert.equal(result.outcome, 'answered');
    assert.equal(fakes.claude.requests.length, 3);
    assert.ok(result.latencyMs >= 1000, `waited ${result.latencyMs} ms`);
  });

  it("honours Gemini's RetryInfo delay in the 429 body", async () => {
    reset();
    fakes.gemini.script({ kind: 'status', status: 429 });
    const result = await ask(engines().get('gemini'));
    assert.equal(result.outcome, 'answered');
    assert.equal(fakes.gemini.requests.length, 2);
    assert.ok(result.latencyMs >= 1000, `waited ${result.latencyMs} ms`);
  });

  it('gives up at once when the vendor asks for a longer wait than allowed', async () => {
    reset();
    fakes.chatgpt.script({ kind: 'status', status: 429, headers: { 'retry-after': '3600' } });
    const result = await ask(engines().get('chatgpt'));
    assert.equal(result.outcome, 'error');
    assert.equal(result.error, 'rate limited (HTTP 429 requests)');
    assert.equal(fakes.chatgpt.requests.length, 1);
  });

  it('bounds retries, then ends in error with a short message', async () => {
    reset();
    fakes.perplexity.fallback = { kind: 'status', status: 503 };
    const result = await ask(engines().get('perplexity'));
    assert.equal(result.outcome, 'error');
    assert.equal(result.error, 'server error (HTTP 503 server_error)');
    assert.equal(fakes.perplexity.requests.length, 3, 'SIGHTLINE_ENGINE_MAX_ATTEMPTS=3');
    assert.deepEqual(result.sources, []);
    assert.equal(result.estimatedCostUsd, null);
  });

  it('retries a lost connection with every vendor, then ends in error saying so', async () => {
    for (const name of VENDOR_NAMES) {
      reset();
      fakes[name].fallback = { kind: 'reset' };
      const result = await ask(engines().get(name));
      assert.equal(result.outcome, 'error', name);
      assert.equal(result.error, 'connection to the vendor failed', name);
      assert.equal(fakes[name].requests.length, 3, `${name}: SIGHTLINE_ENGINE_MAX_ATTEMPTS=3`);
    }
  });

  it('retries a malformed JSON body, and reports it when it persists', async () => {
    reset();
    fakes.chatgpt.script({ kind: 'malformed' });
    assert.equal((await ask(engines().get('chatgpt'))).outcome, 'answered');
    assert.equal(fakes.chatgpt.requests.length, 2);
    reset();
    fakes.chatgpt.fallback = { kind: 'malformed' };
    const result = await ask(engines().get('chatgpt'));
    assert.equal(result.error, 'malformed response from the vendor');
    assert.equal(fakes.chatgpt.requests.length, 3);
  });

  it('retries a reply in JSON but not in the vendor’s format, and skips a citation without a link', async () => {
    reset();
    // ChatGPT: a body without its output list (a proxy's JSON), then a real answer one of whose
    // url_citation annotations has a number for a URL.
    fakes.chatgpt.script(
      { kind: 'answer', rewrite: () => '{"id":"resp_1","object":"response","output":5}' },
      {
        kind: 'answer',
        rewrite: (json) => json.replace(`"url":"${PAGES[1].url}?utm_source=openai"`, '"url":5'),
      },
    );
    const chatgpt = await ask(engines().get('chatgpt'));
    assert.equal(chatgpt.outcome, 'answered', chatgpt.error);
    assert.equal(fakes.chatgpt.requests.length, 2);
    assert.deepEqual(
      chatgpt.sources.map((s) => s.url),
      [`${PAGES[0].url}?utm_source=openai`],
    );
    // An OpenAI-compatible endpoint whose message content is a number, every time.
    fakes.openai_compatible.fallback = {
      kind: 'answer',
      rewrite: (json) => json.replace(/"content":"[^"]*"/, '"content":5'),
    };
    const compatible = await ask(engines().get('openai_compatible'));
    assert.deepEqual([compatible.outcome, compatible.error], ['error', 'malformed response from the vendor']);
    assert.equal(fakes.openai_compatible.requests.length, 3);
  });

  it('times out a hung request, retries it, then ends in error', async () => {
    reset();
    fakes.gemini.fallback = { kind: 'hang' };
    const result = await ask(engines({ SIGHTLINE_GEMINI_TIMEOUT_MS: '200' }).get('gemini'));
    assert.equal(result.outcome, 'error');
    assert.equal(result.error, 'timed out after 200 ms');
    assert.equal(fakes.gemini.requests.length, 3);
  });

  it("opens one engine's circuit after repeated failures without touching the others", async () => {
    reset();
    fakes.claude.fallback = { kind: 'status', status: 500 };
    const all = engines({ SIGHTLINE_ENGINE_MAX_ATTEMPTS: '2', SIGHTLINE_ENGINE_BREAKER_FAILURES: '3' });
    const claude = all.get('claude');
    // Ask 1: two failed attempts (2 in a row). Ask 2: one more opens the circuit, and its retry is
    // refused by the open circuit without a request: it ends on its own attempt's failure, which
    // the vendor saw. Ask 3: refused at once, never sent.
    const first = await ask(claude);
    assert.equal(first.error, 'server error (HTTP 500 api_error)');
    const [second, chatgpt] = await Promise.all([ask(claude), ask(all.get('chatgpt'))]);
    assert.deepEqual([second.error, second.retryInMs], ['server error (HTTP 500 api_error)', undefined]);
    assert.equal(chatgpt.outcome, 'answered', chatgpt.error);
    assert.equal(fakes.claude.requests.length, 3);
    const third = await ask(claude);
    assert.equal(third.error, 'circuit open after repeated failures');
    assert.equal(fakes.claude.requests.length, 3, 'an open circuit sends nothing');
    assert.equal((await ask(all.get('gemini'))).outcome, 'answered');
    assert.match(all.logs(), /engine circuit open/);
  });

  it('never lets a key into error messages or logs, even when the vendor quotes it', async () => {
    reset();
    // The fakes quote the key they were sent in every error body, as OpenAI's 401 does.
    const wrongKey = 'sk-wrong-key-that-must-not-leak-42';
    const all = engines({ OPENAI_API_KEY: wrongKey });
    const denied = await ask(all.get('chatgpt'));
    assert.equal(denied.outcome, 'error');
    assert.equal(denied.error, 'authentication failed (HTTP 401 invalid_request_error)');
    assert.equal(fakes.chatgpt.requests.length, 1, 'a 401 is not retried');
    fakes.claude.script({ kind: 'status', status: 503 }, { kind: 'status', status: 503 });
    fakes.perplexity.fallback = { kind: 'status', status: 500 };
    await ask(all.get('claude'));
    const failed = await ask(all.get('perplexity'));
    const logs = all.logs();
    assert.match(logs, /retrying/);
    for (const secret of [wrongKey, ...Object.values(KEYS)]) {
      assert.ok(!logs.includes(secret), 'a key reached the log');
      assert.ok(!JSON.stringify([denied, failed]).includes(secret), 'a key reached a result');
    }
  });
});

describe('configuration', () => {
  it('lists an engine without its key as not configured and does not build it', () => {
    const config = loadConfig({}).engines;
    assert.equal(config.engines.chatgpt.configured, false);
    assert.equal(config.engines.chatgpt.needs, 'OPENAI_API_KEY');
    assert.equal(
      config.engines.openai_compatible.needs,
      'OPENAI_COMPATIBLE_BASE_URL and OPENAI_COMPATIBLE_MODEL',
    );
    assert.equal(config.engines.simulated.configured, true);
    assert.deepEqual([...createEngines(config).keys()], ['simulated']);
    // A key of spaces is no key.
    const blank = loadConfig({ OPENAI_API_KEY: '  ', ANTHROPIC_API_KEY: 'sk-ant-x' }).engines;
    assert.deepEqual([blank.engines.chatgpt.configured, blank.engines.claude.configured], [false, true]);
  });

  it('reads models and limits per engine, with defaults', () => {
    const config = loadConfig({
      OPENAI_API_KEY: 'k',
      SIGHTLINE_CHATGPT_MODEL: 'gpt-5.4',
      SIGHTLINE_CHATGPT_CONCURRENCY: '7',
      SIGHTLINE_PERPLEXITY_TOKENS_PER_MINUTE: '5000',
    }).engines;
    assert.equal(config.engines.chatgpt.model, 'gpt-5.4');
    assert.deepEqual(config.engines.chatgpt.limits, {
      concurrency: 7,
      requestsPerMinute: 60,
      tokensPerMinute: 200_000,
      timeoutMs: 90_000,
    });
    assert.equal(config.engines.perplexity.limits.tokensPerMinute, 5000);
    assert.equal(config.engines.claude.model, 'claude-sonnet-5-5');
  });

  it('refuses bad values with one line', () => {
    const cases: Array<[Record<string, string>, string]> = [
      [{ OPENAI_COMPATIBLE_BASE_URL: 'http://127.0.0.1:11434/v1' }, 'OPENAI_COMPATIBLE_MODEL is required'],
      [{ ANTHROPIC_BASE_URL: 'not a url' }, 'ANTHROPIC_BASE_URL must be an absolute http(s) URL'],
      [{ SIGHTLINE_GEMINI_TIMEOUT_MS: '5s' }, 'SIGHTLINE_GEMINI_TIMEOUT_MS must be a whole number'],
      [{ SIGHTLINE_CLAUDE_CONCURRENCY: '0' }, 'SIGHTLINE_CLAUDE_CONCURRENCY must be between 1 and 1000'],
    ];
    for (const [values, message] of cases) {
      assert.throws(
        () => loadConfig(values),
        (error) =>
          error instanceof ConfigError && error.message.startsWith(message) && !error.message.includes('\n'),
      );
    }
  });
});

describe('a base URL with a password', () => {
  it('is refused without printing the password, whether it parses or not', () => {
    const cases: Array<[Record<string, string>, string]> = [
      [
        { ANTHROPIC_BASE_URL: 'http://u:pa55word@127.0.0.1:99999' },
        'ANTHROPIC_BASE_URL must be an absolute http(s) URL, got "http://…@127.0.0.1:99999"',
      ],
      [
        { PUBLIC_BASE_URL: 'https://ops:pa55word@api.example.com/' },
        'PUBLIC_BASE_URL must not carry a user name or password (https://…@api.example.com)',
      ],
      [
        { PUBLIC_BASE_URL: 'https://ops:pa55word@api.example.com:0x' },
        'PUBLIC_BASE_URL must be an absolute http(s) URL, got "https://…@api.example.com:0x"',
      ],
      // A password holding the `/`, `?` or `#` that made the URL fail to parse.
      [
        { OPENAI_BASE_URL: 'https://user:pa55/w?o#rd@api.example.com/' },
        'OPENAI_BASE_URL must be an absolute http(s) URL, got "https://…@api.example.com/"',
      ],
    ];
    for (const [values, message] of cases) {
      assert.throws(() => loadConfig(values), { name: 'ConfigError', message });
    }
  });
});

describe('the simulated engine', () => {
  const request = {
    prompt: 'Which project management tool should a design agency use?',
    seed: 'run-7',
    context: { brandName: 'Acme Boards', competitorNames: ['Trello', 'Asana', 'Monday.com'] },
  };

  it('gives the same answer for the same prompt and seed, and ranks only the names it was given', async () => {
    const engine = createEngines(loadConfig({}).engines).get('simulated') as Engine;
    const first = await engine.ask(request);
    const again = await engine.ask(request);
    assert.equal(first.outcome, 'answered');
    assert.equal(again.text, first.text);
    assert.deepEqual(again.sources, first.sources);
    const ranked = [...first.text.matchAll(/^(?:\d+\.|-) \*\*(.+?)\*\*/gm)].map((m) => m[1]);
    assert.ok(ranked.length >= 3, first.text);
    const names = [request.context.brandName, ...request.context.competitorNames];
    for (const name of ranked) assert.ok(names.includes(name as string), `${name} was not given`);
    assert.ok(first.sources.length > 0);
    for (const source of first.sources) assert.ok(first.text.includes(source.url), source.url);
    assert.equal(first.estimatedCostUsd, 0);
  });

  it('varies with the seed', async () => {
    const engine = createEngines(loadConfig({}).engines).get('simulated') as Engine;
    const texts = new Set<string>();
    for (const seed of ['a', 'b', 'c', 'd']) texts.add((await engine.ask({ ...request, seed })).text);
    assert.ok(texts.size > 1);
  });
});

describe('limits and metrics', () => {
  /** A clock whose sleeps pass at once and are written down. */
  function manualClock(): Clock & { slept: number[]; pass(ms: number): void } {
    let now = 1_000_000;
    const slept: number[] = [];
    return {
      slept,
      pass: (ms) => {
        now += ms;
      },
      now: () => now,
      sleep: async (ms) => {
        slept.push(ms);
        now += ms;
      },
    };
  }

  /**
   * Limits of `requests` and `tokens` a minute (0: none) on `clock`, whose `take` sends at once
   * what it took (a reservation not yet sent stays counted).
   */
  function limitsOf(clock: Clock, requestsPerMinute: number, tokensPerMinute: number) {
    const limits = new EngineLimits({ requestsPerMinute, tokensPerMinute }, clock);
    return {
      take: async (tokens: number, signal?: AbortSignal) => {
        const taken = await limits.take(tokens, signal);
        taken.requests.sentAt(clock.now());
        taken.tokens.sentAt(clock.now());
        return taken;
      },
      unsent: (tokens: number) => limits.take(tokens),
    };
  }

  it('holds the third request of a two-per-minute window until the first leaves it', async () => {
    const clock = manualClock();
    const limits = limitsOf(clock, 2, 0);
    await limits.take(1);
    await limits.take(1);
    assert.deepEqual(clock.slept, []);
    await limits.take(1);
    assert.deepEqual(clock.slept, [60_000]);
  });

  it('lets an ask larger than the whole window go alone, a reservation given back unused aside', async () => {
    const clock = manualClock();
    const limits = limitsOf(clock, 0, 1000);
    // Taken for an ask that was never sent (its claim lost), and given back.
    (await limits.take(800)).tokens.settle(0);
    // 1,500 is more than the window ever holds; nothing is used in it, so it goes at once.
    await limits.take(1500);
    assert.deepEqual(clock.slept, []);
    // Now something is used: the next one waits for it to leave.
    await limits.take(1500);
    assert.deepEqual(clock.slept, [60_000]);
  });

  it('counts the tokens really used, not the reservation', async () => {
    const clock = manualClock();
    const limits = limitsOf(clock, 0, 1000);
    // Reserved 800, used 100: a second 800 fits (100 + 800 ≤ 1000) without waiting.
    (await limits.take(800)).tokens.settle(100);
    (await limits.take(800)).tokens.settle(900);
    assert.deepEqual(clock.slept, []);
    // 100 + 900 used: the next 800 waits for the window to clear.
    await limits.take(800);
    assert.deepEqual(clock.slept, [60_000]);
  });

  /** A clock whose sleeps end only when `advance` moves time past them, in time order. */
  function virtualClock() {
    let now = 0;
    const timers: Array<{ at: number; fire: () => void }> = [];
    const idle = () => new Promise((resolve) => setImmediate(resolve));
    return {
      now: () => now,
      sleep: (ms: number, signal?: AbortSignal) =>
        new Promise<void>((resolve, reject) => {
          const timer = { at: now + ms, fire: resolve };
          timers.push(timer);
          signal?.addEventListener('abort', () => {
            timers.splice(timers.indexOf(timer), 1);
            reject(signal.reason);
          });
        }),
      async advance(to: number) {
        await idle();
        for (;;) {
          timers.sort((a, b) => a.at - b.at);
          const next = timers[0];
          if (!next || next.at > to) break;
          timers.shift();
          now = next.at;
          next.fire();
          await idle();
        }
        now = to;
        await idle();
      },
    };
  }

  it('gives room in the order it was asked for, so a large ask is not passed by smaller ones', async () => {
    const clock = virtualClock();
    const limits = limitsOf(clock, 0, 10_000);
    const taken: Array<[string, number]> = [];
    const take = (name: string, tokens: number, signal?: AbortSignal) =>
      limits.take(tokens, signal).then(
        () => taken.push([name, clock.now() / 1000]),
        () => taken.push([`${name} left`, clock.now() / 1000]),
      );
    const a = take('a', 4_000);
    // 4,000 + 8,000 > 10,000: b waits for a to leave the window, at 60 s.
    const b = take('b', 8_000);
    await clock.advance(1_000);
    // c fits beside a (8,000), but b asked first: c waits behind it, until b leaves at 120 s.
    const c = take('c', 4_000);
    const stop = new AbortController();
    const d = take('d', 1_000, stop.signal);
    await clock.advance(2_000);
    // d, stopped while it waits, leaves the line at once.
    stop.abort();
    await clock.advance(200_000);
    await Promise.all([a, b, c, d]);
    assert.deepEqual(taken, [
      ['a', 0],
      ['d left', 2],
      ['b', 60],
      ['c', 120],
    ]);
  });

  it('keeps a request taken but not yet sent counted, however long its claim takes', async () => {
    const clock = virtualClock();
    const limits = limitsOf(clock, 1, 0);
    // Taken at 0 s; its ask's claim waits on the database until 75 s, when it goes out.
    const first = await limits.unsent(0);
    let second = Number.NaN;
    await clock.advance(10_000);
    const waiting = limits.take(0).then(() => {
      second = clock.now() / 1000;
    });
    await clock.advance(75_000);
    first.requests.sentAt(clock.now());
    await clock.advance(300_000);
    await waiting;
    // One a minute, counted from 75 s: the next goes at 135 s, not at 60 s when the first
    // reservation was a minute old but not yet sent.
    assert.equal(second, 135);
  });

  /** An engine with these requests and tokens a minute, paced by a manual clock started at `start`. */
  function onClock(name: 'chatgpt' | 'claude', requestsPerMinute: string, tokensPerMinute: string) {
    reset();
    const clock = manualClock();
    const prefix = `SIGHTLINE_${name.toUpperCase()}`;
    const engine = createEngines(
      loadConfig(
        env({
          [`${prefix}_REQUESTS_PER_MINUTE`]: requestsPerMinute,
          [`${prefix}_TOKENS_PER_MINUTE`]: tokensPerMinute,
        }),
      ).engines,
      { backoff: { initialDelayMs: 1, maxDelayMs: 5 }, clock },
    ).get(name) as Engine;
    return { clock, start: clock.now(), engine };
  }
  const chatgptOnClock = (requestsPerMinute: string, tokensPerMinute: string) => {
    const { engine, ...rest } = onClock('chatgpt', requestsPerMinute, tokensPerMinute);
    return { ...rest, chatgpt: engine };
  };

  it("counts Claude's continuation of a paused turn as a request of the minute, without making it wait", async () => {
    for (const perMinute of ['2', '1']) {
      const { clock, start, engine: claude } = onClock('claude', perMinute, '0');
      // Each ask's first request comes back paused and is continued: two requests an ask.
      fakes.claude.script({ kind: 'pause' }, { kind: 'answer' }, { kind: 'pause' });
      const endedAt: number[] = [];
      for (let i = 0; i < 2; i++) {
        const result = await claude.inTurn(PROMPT, (turn) =>
          claude.ask({ prompt: PROMPT, context: CONTEXT }, { turn }),
        );
        assert.equal(result.outcome, 'answered');
        endedAt.push((clock.now() - start) / 1000);
      }
      // Two a minute: the first ask's two requests fill it, so the second ask waits for it. One a
      // minute: the continuation goes at once (a wait would count against the ask's timeout), and
      // the second ask waits for both to leave.
      assert.deepEqual(endedAt, [0, 60], perMinute);
      assert.equal(fakes.claude.requests.length, 4);
    }
  });

  it('counts a request from when it goes out, not from when it waited for tokens', async () => {
    const { clock, start, chatgpt } = chatgptOnClock('2', '20000');
    // The first answer uses 19,100 of the 20,000 tokens (18,500 in, 600 out); the others 8,800.
    fakes.chatgpt.script({
      kind: 'answer',
      rewrite: (json) => json.replace('"input_tokens":8200', '"input_tokens":18500'),
    });
    const sentAt: number[] = [];
    for (let i = 0; i < 4; i++) {
      const result = await chatgpt.inTurn(PROMPT, (turn) =>
        chatgpt.ask({ prompt: PROMPT, context: CONTEXT }, { turn }),
      );
      assert.equal(result.outcome, 'answered');
      // The manual clock moves only while a window makes an ask wait: this is when it went out.
      sentAt.push((clock.now() - start) / 1000);
    }
    // The second waits for the first's tokens to leave (a request slot was free at 0 s); the third
    // fits beside it at 60 s (8,800 + 2,011 reserved ≤ 20,000). The fourth would too by tokens,
    // but the second and third went out at 60 s: two requests in that minute, so it waits. Had
    // the second's request been counted from 0 s, the fourth went at 60 s: three in a minute.
    assert.deepEqual(sentAt, [0, 60, 60, 120]);
    assert.equal(fakes.chatgpt.requests.length, 4);
  });

  it('counts a request from when it goes out, not from when its turn began', async () => {
    const { clock, start, chatgpt } = chatgptOnClock('1', '0');
    const sentAt: number[] = [];
    for (const claimTakes of [30_000, 0]) {
      await chatgpt.inTurn(PROMPT, async (turn) => {
        // What the turn does before its request: the ask's claim, which can wait on the database.
        clock.pass(claimTakes);
        sentAt.push((clock.now() - start) / 1000);
        return chatgpt.ask({ prompt: PROMPT, context: CONTEXT }, { turn });
      });
    }
    // The first went out at 30 s, so the second, one a minute, waits until 90 s, not 60.
    assert.deepEqual(sentAt, [30, 90]);
  });

  it('counts asks and their time per engine and outcome on the given registry', async () => {
    reset();
    const registry = new Registry();
    registerEngineMetrics(registry);
    const all = engines({}, registry);
    fakes.perplexity.fallback = { kind: 'status', status: 400 };
    await ask(all.get('chatgpt'));
    await ask(all.get('chatgpt'));
    await ask(all.get('perplexity'));
    const counts = await registry.getSingleMetricAsString('sightline_engine_asks_total');
    assert.match(counts, /sightline_engine_asks_total\{engine="chatgpt",outcome="answered"\} 2/);
    assert.match(counts, /sightline_engine_asks_total\{engine="perplexity",outcome="error"\} 1/);
    const seconds = await registry.getSingleMetricAsString('sightline_engine_ask_seconds');
    assert.match(seconds, /sightline_engine_ask_seconds_count\{engine="chatgpt",outcome="answered"\} 2/);
  });
});
