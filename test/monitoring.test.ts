import assert from 'node:assert/strict';
import { after, before, beforeEach, describe, it } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { sql } from 'kysely';
import { Registry } from 'prom-client';
import type { EngineName } from '../src/config.ts';
import { createBrand } from '../src/db/catalog/brands.ts';
import { findBrandMonitoring, findMonitorRun, setOrgMonitoring } from '../src/db/monitoring.ts';
import { importAnswers } from '../src/ingest/import.ts';
import { setRunPublished } from '../src/ingest/runs.ts';
import { executeAsk } from '../src/monitoring/asks.ts';
import { planRuns } from '../src/monitoring/plan.ts';
import { runAsks } from '../src/monitoring/runner.ts';
import { updateBrandMonitoring } from '../src/monitoring/settings.ts';
import { runWorker, scheduleDue } from '../src/monitoring/worker.ts';
import { bearer, createTestContext, type TestContext } from './support/context.ts';
import { ANSWER, PAGES } from './support/fake-engines.ts';
import { insertOrg, mintKey } from './support/fixtures.ts';
import { askDeps, type Fakes, monitoredBrand, PROMPTS, promptOf, startFakes } from './support/monitoring.ts';

// Monitoring runs end to end, in process: planned from the catalog, asked through the real SDKs
// against local fakes of ChatGPT and Perplexity, stored through the import's writer, read back
// through the API.

let ctx: TestContext;
let fakes: Fakes;
let org = 0;

before(async () => {
  ctx = await createTestContext();
  fakes = await startFakes();
});
after(async () => {
  await fakes.close();
  await ctx.close();
});
beforeEach(() => {
  for (const fake of [fakes.chatgpt, fakes.perplexity]) {
    fake.requests.length = 0;
    fake.fallback = { kind: 'answer' };
  }
});

/** A fresh organization with a monitored brand and an API key. */
async function tenant(prompts = 2) {
  org++;
  const orgId = await insertOrg(ctx.dbs.primary, `monitor-${org}`);
  const brand = await monitoredBrand(ctx.dbs.primary, orgId, prompts);
  return { ...brand, key: await mintKey(ctx.dbs.primary, orgId) };
}

async function runOnce(
  deps: ReturnType<typeof askDeps>,
  brand: { orgId: number; brandId: number },
  options: {
    engines: ('chatgpt' | 'perplexity')[];
    samples: number;
    concurrency?: number;
    signal?: AbortSignal;
  },
  /** Runs after the run is planned and before any ask is taken. */
  planned: (runId: number) => Promise<unknown> = async () => {},
) {
  const monitoring = await findBrandMonitoring(ctx.dbs.primary, brand.orgId, brand.brandId);
  assert.ok(monitoring);
  const [run] = await planRuns(ctx.dbs.primary, monitoring, options, deps.configured, new Date());
  assert.ok(run);
  await planned(run.runId);
  const work = runAsks(deps, {
    runIds: [run.runId],
    concurrency: options.concurrency ?? 4,
    pollMs: 20,
    ...(options.signal ? { signal: options.signal } : {}),
    done: async () => (await findMonitorRun(ctx.dbs.primary, run.runId))?.status !== 'running',
  });
  return { run, work };
}

/** A run of the brand planned on ChatGPT, one sample per prompt, nothing asked yet; its id. */
async function plannedOnChatgpt(brand: { orgId: number; brandId: number }, deps: ReturnType<typeof askDeps>) {
  const monitoring = await findBrandMonitoring(ctx.dbs.primary, brand.orgId, brand.brandId);
  assert.ok(monitoring);
  const options = { engines: ['chatgpt' as const], samples: 1 };
  const [run] = await planRuns(ctx.dbs.primary, monitoring, options, deps.configured, new Date());
  assert.ok(run);
  return run.runId;
}

/**
 * A trigger making the database refuse `statement` (`insert on responses`) for the rows `when`
 * (SQL over `new`) holds, with `message`, on either database; returns its removal.
 */
async function refusing(name: string, statement: string, when: string, message: string) {
  const db = ctx.dbs.primary;
  const [, table] = statement.split(' on ');
  if (ctx.dbs.dialect === 'postgres') {
    await sql
      .raw(`create function ${name}() returns trigger language plpgsql
      as $$ begin raise exception '${message}'; end $$`)
      .execute(db);
    await sql
      .raw(`create trigger ${name} before ${statement}
      for each row when (${when}) execute function ${name}()`)
      .execute(db);
  } else {
    await sql
      .raw(`create trigger ${name} before ${statement}
      when ${when} begin select raise(abort, '${message}'); end`)
      .execute(db);
  }
  return async () => {
    await sql.raw(`drop trigger ${name}${ctx.dbs.dialect === 'postgres' ? ` on ${table}` : ''}`).execute(db);
    if (ctx.dbs.dialect === 'postgres') await sql.raw(`drop function ${name}()`).execute(db);
  };
}

const get = async (key: string, url: string) => {
  const response = await ctx.app.inject({ method: 'GET', url, headers: bearer(key) });
  return { status: response.statusCode, body: response.json() };
};

describe('a monitoring run', () => {
  it('asks prompts × engines × samples once each and shows the analysed answers through the API', async () => {
    const t = await tenant(2);
    const registry = new Registry();
    const deps = askDeps(ctx.dbs.primary, fakes.env, { registry });
    const { run, work } = await runOnce(deps, t, { engines: ['chatgpt', 'perplexity'], samples: 2 });
    await work;
    // 2 prompts × 2 engines × 2 samples = 8 asks: 4 on each fake, each prompt twice per engine.
    assert.equal(run.asks, 8);
    for (const fake of [fakes.chatgpt, fakes.perplexity]) {
      assert.equal(fake.requests.length, 4);
      assert.deepEqual(
        fake.requests.map((r) => promptOf(r.body)).sort(),
        [PROMPTS[0], PROMPTS[0], PROMPTS[1], PROMPTS[1]].sort(),
      );
    }

    const status = await get(t.key, `/api/runs/${run.runId}/status/`);
    assert.equal(status.body.status, 'completed');
    const detail = await get(t.key, `/api/runs/${run.runId}/`);
    assert.equal(detail.status, 200);
    assert.equal(detail.body.responsesCount, 8);
    const labels = new Set(
      detail.body.responses.map((r: { model: string; modelLabel: string }) => `${r.model}/${r.modelLabel}`),
    );
    assert.deepEqual([...labels].sort(), ['chatgpt/ChatGPT', 'perplexity/Perplexity']);
    // The fake's answer ranks HubSpot CRM 1st, Pipedrive 2nd and Acme CRM 3rd.
    for (const r of detail.body.responses) {
      assert.equal(r.mentioned, true);
      assert.equal(r.rank, 3);
    }
    const chatgptSources = detail.body.responses.find(
      (r: { model: string }) => r.model === 'chatgpt',
    ).sources;
    assert.deepEqual(chatgptSources, [
      `${PAGES[0].url}?utm_source=openai`,
      `${PAGES[1].url}?utm_source=openai`,
    ]);

    // Analytics over the window: all 8 answers (weight 1 each) mention the brand.
    const analytics = await get(t.key, `/api/brands/${t.brandId}/analytics/?range=7d`);
    assert.equal(analytics.status, 200);
    assert.equal(analytics.body.metrics.sampleCount, 8);
    assert.equal(analytics.body.metrics.mentionRate.value, 1);
    assert.equal(analytics.body.metrics.avgRank.value, 3);
    const brand = await get(t.key, `/api/brands/${t.brandId}/`);
    assert.equal(brand.body.hasInFlightRun, false);
    const row = await ctx.dbs.primary
      .selectFrom('runs')
      .select('finished_at')
      .where('id', '=', run.runId)
      .executeTakeFirstOrThrow();
    assert.equal(brand.body.lastMonitoredRunAt, row.finished_at);

    // What each ask cost is kept with it: the vendor's model, tokens, and the list-price estimate.
    const asks = await ctx.dbs.primary
      .selectFrom('run_asks')
      .selectAll()
      .where('run_id', '=', run.runId)
      .orderBy('id')
      .execute();
    assert.deepEqual(
      new Set(asks.map((a) => `${a.state}/${a.attempts}/${a.outcome}`)),
      new Set(['done/1/ok']),
    );
    const chatgptAsk = asks.find((a) => a.engine === 'chatgpt');
    // The fake reports gpt-5-mini-2025-08-07, 8,200 input and 600 output tokens and one search:
    // 8200 × $0.25/M + 600 × $2/M + $0.01 = $0.00205 + $0.0012 + $0.01 = $0.01325.
    assert.equal(chatgptAsk?.vendor_model, 'gpt-5-mini-2025-08-07');
    assert.deepEqual([chatgptAsk?.input_tokens, chatgptAsk?.output_tokens], [8200, 600]);
    assert.equal(Number(chatgptAsk?.estimated_cost_usd), 0.01325);

    // The engine metrics are on the registry the worker serves.
    const counter = await registry.getSingleMetric('sightline_engine_asks_total')?.get();
    const answered = (engine: string) =>
      counter?.values.find((v) => v.labels.engine === engine && v.labels.outcome === 'answered')?.value;
    assert.deepEqual([answered('chatgpt'), answered('perplexity')], [4, 4]);
  });

  it('derives exactly what the import derives from the same answer', async () => {
    const t = await tenant(1);
    const deps = askDeps(ctx.dbs.primary, fakes.env);
    const { run, work } = await runOnce(deps, t, { engines: ['perplexity'], samples: 1 });
    await work;
    await importAnswers(
      ctx.dbs.primary,
      [
        {
          prompt: t.promptIds[0],
          run: 'imported',
          model: 'perplexity',
          capturedAt: new Date().toISOString(),
          answerText: ANSWER,
          citations: [PAGES[1].url, PAGES[0].url, PAGES[2].url],
        },
      ],
      { organization: t.orgId },
    );
    const derived = async (where: 'monitor' | 'import') => {
      const r = await ctx.dbs.primary
        .selectFrom('responses as r')
        .innerJoin('runs', 'runs.id', 'r.run_id')
        .select([
          'r.id',
          'r.mentioned',
          'r.rank',
          'r.sentiment',
          'r.has_mention_data',
          'r.model_label',
          'r.text_length',
        ])
        .where('r.org_id', '=', t.orgId)
        .where('runs.source', '=', where)
        .executeTakeFirstOrThrow();
      const mentions = await ctx.dbs.primary
        .selectFrom('response_mentions')
        .select(['name', 'rank', 'is_brand', 'competitor_id'])
        .where('response_id', '=', r.id)
        .orderBy('rank')
        .execute();
      const citations = await ctx.dbs.primary
        .selectFrom('response_citations')
        .select(['url', 'domain', 'position'])
        .where('response_id', '=', r.id)
        .orderBy('position')
        .execute();
      const { id: _, ...fields } = r;
      return { fields, mentions, citations };
    };
    assert.equal(run.asks, 1);
    assert.deepEqual(await derived('monitor'), await derived('import'));
  });

  it('stores an engine that failed after retries as error, a blank answer as empty and a refusal as no_result', async () => {
    const t = await tenant(1);
    const deps = askDeps(ctx.dbs.primary, fakes.env);
    // One at a time, so the fake's script meets the asks in order: two attempts fail (the most
    // allowed), then a blank answer, then a refusal.
    fakes.chatgpt.script(
      { kind: 'status', status: 500 },
      { kind: 'status', status: 500 },
      { kind: 'empty' },
      { kind: 'refusal' },
    );
    const { run, work } = await runOnce(deps, t, { engines: ['chatgpt'], samples: 3, concurrency: 1 });
    await work;
    const rows = await ctx.dbs.primary
      .selectFrom('run_asks as a')
      .innerJoin('responses as r', 'r.id', 'a.response_id')
      .select([
        'a.sample',
        'a.outcome',
        'a.error',
        'r.outcome as stored',
        'r.mentioned',
        'r.has_mention_data',
      ])
      .where('a.run_id', '=', run.runId)
      .orderBy('a.sample')
      .execute();
    assert.deepEqual(
      rows.map((r) => [r.sample, r.outcome, r.stored, r.mentioned]),
      [
        [1, 'error', 'error', 0],
        [2, 'empty', 'empty', 0],
        [3, 'no_result', 'no_result', 0],
      ],
    );
    assert.match(rows[0]?.error ?? '', /^server error \(HTTP 500/);
    assert.equal(fakes.chatgpt.requests.length, 4);
    assert.equal((await findMonitorRun(ctx.dbs.primary, run.runId))?.status, 'completed');
  });

  // Unstorable, the answer would be asked again when its lease ran out: the timeout ends that here.
  it('stores an answer with a stray NUL character without it, once', { timeout: 20_000 }, async () => {
    const t = await tenant(1);
    const deps = askDeps(ctx.dbs.primary, fakes.env);
    fakes.chatgpt.script({ kind: 'answer', text: `${ANSWER}\u0000` });
    const { run, work } = await runOnce(deps, t, { engines: ['chatgpt'], samples: 1 });
    await work;
    const rows = await ctx.dbs.primary
      .selectFrom('responses')
      .select(['answer_text', 'outcome'])
      .where('run_id', '=', run.runId)
      .execute();
    assert.deepEqual(
      rows.map((r) => ({ ...r })),
      [{ answer_text: ANSWER, outcome: 'ok' }],
    );
    assert.equal(fakes.chatgpt.requests.length, 1);
  });

  /** One ChatGPT ask answered as scripted: what its ask and response stored. */
  const askedOnce = async (answer: { text?: string; model?: string }) => {
    const t = await tenant(1);
    const deps = askDeps(ctx.dbs.primary, fakes.env);
    fakes.chatgpt.script({ kind: 'answer', ...answer });
    const { run, work } = await runOnce(deps, t, { engines: ['chatgpt'], samples: 1 });
    await work;
    assert.equal(fakes.chatgpt.requests.length, 1);
    const rows = await ctx.dbs.primary
      .selectFrom('run_asks as a')
      .innerJoin('responses as r', 'r.id', 'a.response_id')
      .select(['a.outcome', 'a.vendor_model', 'r.answer_text'])
      .where('a.run_id', '=', run.runId)
      .execute();
    return rows.map((r) => ({ ...r }));
  };

  it('stores the model name a vendor reports without a stray NUL character, once', {
    timeout: 20_000,
  }, async () => {
    assert.deepEqual(await askedOnce({ model: 'gpt-5\u0000-2025-08-07' }), [
      { outcome: 'ok', vendor_model: 'gpt-5-2025-08-07', answer_text: ANSWER },
    ]);
  });

  it('stores an answer and model name with a lone surrogate as U+FFFD, once', {
    timeout: 20_000,
  }, async () => {
    // The vendor's JSON escapes it ("\ud800"); the answer line refuses a lone surrogate, which
    // would have made this paid-for answer an error.
    assert.deepEqual(await askedOnce({ text: `${ANSWER}\ud800`, model: 'gpt-5\udc00' }), [
      { outcome: 'ok', vendor_model: 'gpt-5\ufffd', answer_text: `${ANSWER}\ufffd` },
    ]);
  });

  it('ends an ask whose answer cannot be stored as an error with the reason, asked once', {
    timeout: 20_000,
  }, async () => {
    const t = await tenant(1);
    const deps = askDeps(ctx.dbs.primary, fakes.env);
    // Blank once its NUL is dropped, while the vendor called it an answer.
    fakes.chatgpt.script({ kind: 'answer', text: '\u0000' });
    const { run, work } = await runOnce(deps, t, { engines: ['chatgpt'], samples: 1 });
    await work;
    const rows = await ctx.dbs.primary
      .selectFrom('run_asks as a')
      .innerJoin('responses as r', 'r.id', 'a.response_id')
      .select(['a.outcome', 'a.error', 'r.outcome as stored', 'r.answer_text'])
      .where('a.run_id', '=', run.runId)
      .execute();
    assert.deepEqual(
      rows.map((r) => ({ ...r })),
      [
        {
          outcome: 'error',
          error:
            'the answer could not be stored: "answerText" is required when outcome is ok (use outcome "empty" for a blank answer)',
          stored: 'error',
          answer_text: null,
        },
      ],
    );
    assert.equal(fakes.chatgpt.requests.length, 1);
    assert.equal((await findMonitorRun(ctx.dbs.primary, run.runId))?.status, 'completed');
  });

  it('takes again an ask whose answer failed to store, up to its attempts, and finishes the run', {
    timeout: 20_000,
  }, async () => {
    const t = await tenant(1);
    // The database refuses every answered response (as a full disk or a lost connection would
    // fail the store); the error row of an exhausted ask still goes in.
    const db = ctx.dbs.primary;
    const allow = await refusing('refuse_answer', 'insert on responses', "new.outcome = 'ok'", 'disk full');
    try {
      // A lease of 300 ms: a released ask is taken again once it runs out.
      const deps = askDeps(db, fakes.env, { leaseMs: 300 });
      const { run, work } = await runOnce(deps, t, { engines: ['chatgpt'], samples: 1, concurrency: 1 });
      await work;
      const [ask] = await db
        .selectFrom('run_asks')
        .select(['state', 'attempts', 'outcome', 'error'])
        .where('run_id', '=', run.runId)
        .execute();
      assert.deepEqual(
        { ...ask, attempts: Number(ask?.attempts) },
        {
          state: 'done',
          attempts: 4,
          outcome: 'error',
          error: 'taken 3 times without its answer being stored; not asked again',
        },
      );
      // Asked on each of its three takes; the fourth finds it exhausted.
      assert.equal(fakes.chatgpt.requests.length, 3);
      assert.equal(deps.log.lines.filter((l) => l.fields.event === 'ask_failed').length, 3);
      assert.equal((await findMonitorRun(db, run.runId))?.status, 'completed');
    } finally {
      await allow();
    }
  });

  it('completes a run left running with every answer stored (its completion failed), at the next look', {
    timeout: 20_000,
  }, async () => {
    const t = await tenant(1);
    const db = ctx.dbs.primary;
    // The database refuses to mark a run completed, as a process killed just before would leave it.
    const allow = await refusing(
      'refuse_completion',
      'update on runs',
      "new.status = 'completed'",
      'connection lost',
    );
    const deps = askDeps(db, fakes.env);
    const runId = await plannedOnChatgpt(t, deps);
    const once = () => runAsks(deps, { runIds: [runId], concurrency: 1, pollMs: 20, done: async () => true });
    try {
      await once();
    } finally {
      await allow();
    }
    const [ask] = await db
      .selectFrom('run_asks')
      .select(['state', 'response_id'])
      .where('run_id', '=', runId)
      .execute();
    assert.equal(ask?.state, 'done');
    assert.notEqual(ask?.response_id, null);
    assert.equal((await findMonitorRun(db, runId))?.status, 'running');
    assert.ok(deps.log.lines.some((l) => l.fields.event === 'run_completion_failed'));
    // Nothing is left to ask; the next runner to look completes and publishes it.
    await once();
    assert.equal((await findMonitorRun(db, runId))?.status, 'completed');
    assert.equal((await get(t.key, `/api/runs/${runId}/status/`)).body.status, 'completed');
    assert.equal(fakes.chatgpt.requests.length, 1);
  });

  /**
   * A run of `prompts` prompts on ChatGPT, one ask at a time, with a circuit that opens after two
   * failed attempts in a row and cools down in `cooldownMs`: its asks in order, the month's count
   * and how many asks were handed back.
   */
  async function throughTheCircuit(prompts: number, cooldownMs: number) {
    const t = await tenant(prompts);
    const deps = askDeps(ctx.dbs.primary, {
      ...fakes.env,
      SIGHTLINE_ENGINE_BREAKER_FAILURES: '2',
      SIGHTLINE_ENGINE_BREAKER_COOLDOWN_MS: String(cooldownMs),
    });
    const { run, work } = await runOnce(deps, t, { engines: ['chatgpt'], samples: 1, concurrency: 1 });
    await work;
    const asks = await ctx.dbs.primary
      .selectFrom('run_asks')
      .select(['outcome', 'error', 'attempts'])
      .where('run_id', '=', run.runId)
      .orderBy('id')
      .execute();
    const usage = await ctx.dbs.primary
      .selectFrom('org_ask_usage')
      .select('asks')
      .where('org_id', '=', t.orgId)
      .executeTakeFirstOrThrow();
    return {
      asks: asks.map((a) => [a.outcome, a.error, Number(a.attempts)]),
      counted: Number(usage.asks),
      deferred: deps.log.lines.filter((l) => l.fields.event === 'ask_deferred').length,
      status: (await findMonitorRun(ctx.dbs.primary, run.runId))?.status,
    };
  }

  it('hands back the asks an open circuit refused and asks them once it closes, counting what was sent', {
    timeout: 20_000,
  }, async () => {
    const rateLimited = { kind: 'status', status: 429, headers: { 'retry-after-ms': '1' } } as const;
    fakes.chatgpt.script(rateLimited, rateLimited);
    const result = await throughTheCircuit(4, 300);
    // Ask 1: two 429s in a row (its two attempts) open the circuit and end it. Asks 2–4: refused
    // while it is open, handed back, and asked once it lets asks through again.
    assert.deepEqual(result, {
      asks: [
        ['error', 'rate limited (HTTP 429 requests)', 1],
        ['ok', null, 1],
        ['ok', null, 1],
        ['ok', null, 1],
      ],
      counted: 4,
      deferred: 3,
      status: 'completed',
    });
    assert.equal(fakes.chatgpt.requests.length, 2 + 3);
  });

  it('ends, counted, an ask that was sent and then met the open circuit; only an unsent one is handed back', {
    timeout: 20_000,
  }, async () => {
    fakes.chatgpt.fallback = { kind: 'status', status: 500 };
    // A second of cooldown: ask 3 is claimed well within it of the probe that reopened the circuit.
    const result = await throughTheCircuit(3, 1000);
    // Ask 1: two 500s open the circuit. Ask 2: refused unsent, handed back; once the circuit lets
    // one through, its probe fails (reopening it) and its retry meets the open circuit: sent, so
    // ended on its probe's 500 and counted. Ask 3: handed back twice, then the same as ask 2.
    assert.deepEqual(result, {
      asks: [
        ['error', 'server error (HTTP 500 server_error)', 1],
        ['error', 'server error (HTTP 500 server_error)', 1],
        ['error', 'server error (HTTP 500 server_error)', 1],
      ],
      counted: 3,
      deferred: 3,
      status: 'completed',
    });
    assert.equal(fakes.chatgpt.requests.length, 2 + 1 + 1);
  });

  it('ends an ask taken three times without a stored answer as an error, without asking again', {
    timeout: 20_000,
  }, async () => {
    const t = await tenant(1);
    const deps = askDeps(ctx.dbs.primary, fakes.env);
    const usage = () =>
      ctx.dbs.primary.selectFrom('org_ask_usage').select('asks').where('org_id', '=', t.orgId).execute();
    let before: Awaited<ReturnType<typeof usage>> = [];
    const { run, work } = await runOnce(
      deps,
      t,
      { engines: ['chatgpt'], samples: 1, concurrency: 1 },
      async (runId) => {
        // As if three workers had each taken it, sent it, and died before storing the answer.
        await ctx.dbs.primary
          .updateTable('run_asks')
          .set({
            state: 'asking',
            attempts: 3,
            lease_owner: 'gone',
            lease_expires_at: new Date(Date.now() - 60_000).toISOString(),
          })
          .where('run_id', '=', runId)
          .execute();
        before = await usage();
      },
    );
    await work;
    const rows = await ctx.dbs.primary
      .selectFrom('run_asks as a')
      .innerJoin('responses as r', 'r.id', 'a.response_id')
      .select(['a.state', 'a.attempts', 'a.outcome', 'a.error', 'r.outcome as stored'])
      .where('a.run_id', '=', run.runId)
      .execute();
    assert.deepEqual(
      rows.map((r) => ({ ...r, attempts: Number(r.attempts) })),
      [
        {
          state: 'done',
          attempts: 4,
          outcome: 'error',
          error: 'taken 3 times without its answer being stored; not asked again',
          stored: 'error',
        },
      ],
    );
    assert.equal(fakes.chatgpt.requests.length, 0, 'the engine was not asked a fourth time');
    assert.deepEqual(await usage(), before, 'nothing was sent, so nothing was counted');
    assert.equal((await findMonitorRun(ctx.dbs.primary, run.runId))?.status, 'completed');
  });

  it('shows progress while the engines answer', async () => {
    const t = await tenant(2);
    const deps = askDeps(ctx.dbs.primary, fakes.env);
    // In id order: prompt 1 on chatgpt, prompt 1 on perplexity, prompt 2 on chatgpt (held), …
    fakes.chatgpt.script({ kind: 'answer' }, { kind: 'hold' });
    const { run, work } = await runOnce(deps, t, {
      engines: ['chatgpt', 'perplexity'],
      samples: 1,
      concurrency: 1,
    });
    while (fakes.chatgpt.held === 0) await sleep(10);
    const brand = await get(t.key, `/api/brands/${t.brandId}/`);
    assert.equal(brand.body.hasInFlightRun, true);
    assert.equal(brand.body.monitoringRefreshInProgress, true);
    assert.deepEqual(
      { ...brand.body.runInFlightProgress, startedAt: undefined },
      {
        runId: String(run.runId),
        categoryId: String(t.categoryId),
        completedPrompts: 1,
        totalPrompts: 2,
        startedAt: undefined,
      },
    );
    assert.equal((await get(t.key, `/api/runs/${run.runId}/status/`)).body.status, 'running');
    fakes.chatgpt.release();
    await work;
    assert.equal((await get(t.key, `/api/brands/${t.brandId}/`)).body.hasInFlightRun, false);
    assert.equal((await get(t.key, `/api/runs/${run.runId}/status/`)).body.status, 'completed');
  });

  /** How many of the run's asks were ever claimed, and how many asks the organization's month counts. */
  async function claimedAndCounted(runId: number, orgId: number) {
    const asks = await ctx.dbs.primary
      .selectFrom('run_asks')
      .select('attempts')
      .where('run_id', '=', runId)
      .execute();
    const usage = await ctx.dbs.primary
      .selectFrom('org_ask_usage')
      .select('asks')
      .where('org_id', '=', orgId)
      .executeTakeFirst();
    return { claimed: asks.filter((a) => Number(a.attempts) > 0).length, counted: Number(usage?.asks ?? 0) };
  }

  it('claims and counts no more asks of an engine than it sends at once', async () => {
    const t = await tenant(2);
    // ChatGPT takes one ask at a time in this process; the runner would take four.
    const deps = askDeps(ctx.dbs.primary, { ...fakes.env, SIGHTLINE_CHATGPT_CONCURRENCY: '1' });
    fakes.chatgpt.script({ kind: 'hold' });
    const { run, work } = await runOnce(deps, t, { engines: ['chatgpt'], samples: 2, concurrency: 4 });
    while (fakes.chatgpt.held === 0) await sleep(10);
    // Time for the three other asks to reach their claims, were they to claim while waiting.
    await sleep(300);
    // Killed now, one ask would be counted: the one the vendor holds.
    assert.deepEqual(await claimedAndCounted(run.runId, t.orgId), { claimed: 1, counted: 1 });
    assert.equal(fakes.chatgpt.requests.length, 1);
    fakes.chatgpt.release();
    await work;
    // 2 prompts × 2 samples: four sent, four counted.
    assert.deepEqual(await claimedAndCounted(run.runId, t.orgId), { claimed: 4, counted: 4 });
    assert.equal(fakes.chatgpt.requests.length, 4);
  });

  it('claims an ask only once the engine’s request window lets it go, and leaves the waiting ones unclaimed when told to stop', async () => {
    const t = await tenant(2);
    // One request a minute: the first ask goes, the three others wait a minute for the window.
    const deps = askDeps(ctx.dbs.primary, { ...fakes.env, SIGHTLINE_CHATGPT_REQUESTS_PER_MINUTE: '1' });
    const stop = new AbortController();
    const { run, work } = await runOnce(deps, t, {
      engines: ['chatgpt'],
      samples: 2,
      concurrency: 4,
      signal: stop.signal,
    });
    const done = () =>
      ctx.dbs.primary
        .selectFrom('run_asks')
        .select('id')
        .where('run_id', '=', run.runId)
        .where('state', '=', 'done')
        .execute();
    while ((await done()).length === 0) await sleep(10);
    await sleep(300);
    assert.deepEqual(await claimedAndCounted(run.runId, t.orgId), { claimed: 1, counted: 1 });
    // Stopped, the runner returns without waiting out the window, and claims none of the three.
    stop.abort();
    await work;
    assert.deepEqual(await claimedAndCounted(run.runId, t.orgId), { claimed: 1, counted: 1 });
    assert.equal(fakes.chatgpt.requests.length, 1);
    assert.equal((await findMonitorRun(ctx.dbs.primary, run.runId))?.status, 'running');
  });

  it('asks the other engines while one waits for its rate limit, each keeping to its own turns', async () => {
    const t = await tenant(1);
    // ChatGPT: one request a minute, one ask at a time; Perplexity unlimited. Two asks at once.
    const deps = askDeps(ctx.dbs.primary, {
      ...fakes.env,
      SIGHTLINE_CHATGPT_REQUESTS_PER_MINUTE: '1',
      SIGHTLINE_CHATGPT_CONCURRENCY: '1',
    });
    const stop = new AbortController();
    const { run, work } = await runOnce(deps, t, {
      engines: ['chatgpt', 'perplexity'],
      samples: 4,
      concurrency: 2,
      signal: stop.signal,
    });
    const doneBy = async (engine: string) =>
      (
        await ctx.dbs.primary
          .selectFrom('run_asks')
          .select('id')
          .where('run_id', '=', run.runId)
          .where('engine', '=', engine)
          .where('state', '=', 'done')
          .execute()
      ).length;
    const deadline = Date.now() + 15_000;
    while ((await doneBy('perplexity')) < 4 && Date.now() < deadline) await sleep(50);
    try {
      // Planned c, p, c, p, …: had ChatGPT's waiting asks taken both places, Perplexity's last two
      // would wait out ChatGPT's minute.
      assert.equal(await doneBy('perplexity'), 4);
      assert.equal(await doneBy('chatgpt'), 1);
    } finally {
      stop.abort();
      await work;
    }
  });

  it('counts every finished prompt when many answers are stored at once', async () => {
    const t = await tenant(4);
    const deps = askDeps(ctx.dbs.primary, fakes.env);
    // 4 prompts × 2 engines × 2 samples = 16 asks, 8 at a time: their answers are stored side by
    // side, and each store counts the run's finished prompts again.
    const { run, work } = await runOnce(deps, t, {
      engines: ['chatgpt', 'perplexity'],
      samples: 2,
      concurrency: 8,
    });
    await work;
    const stored = await ctx.dbs.primary
      .selectFrom('runs')
      .select(['status', 'completed_prompts', 'total_prompts'])
      .where('id', '=', run.runId)
      .executeTakeFirstOrThrow();
    assert.deepEqual({ ...stored }, { status: 'completed', completed_prompts: 4, total_prompts: 4 });
  });

  it('waits for review when the organization reviews before publishing', async () => {
    const t = await tenant(1);
    await setOrgMonitoring(ctx.dbs.primary, t.orgId, { reviewBeforePublish: true });
    const deps = askDeps(ctx.dbs.primary, fakes.env);
    const { run, work } = await runOnce(deps, t, { engines: ['chatgpt'], samples: 1 });
    await work;
    // Completed but unpublished: hidden from the API as if it did not exist.
    assert.equal((await findMonitorRun(ctx.dbs.primary, run.runId))?.status, 'completed');
    assert.equal((await get(t.key, `/api/runs/${run.runId}/`)).status, 404);
    assert.equal((await get(t.key, `/api/brands/${t.brandId}/runs/`)).body.count, 0);
    assert.match(
      deps.log.lines.find((l) => l.fields.event === 'run_completed')?.message ?? '',
      /awaiting review/,
    );
    await setRunPublished(ctx.dbs.primary, t.orgId, run.runId, new Date().toISOString());
    assert.equal((await get(t.key, `/api/runs/${run.runId}/`)).status, 200);
    assert.equal((await get(t.key, `/api/brands/${t.brandId}/runs/`)).body.count, 1);
  });

  it('stops at the monthly ask budget with the reason on the run and in the log', async () => {
    const t = await tenant(2);
    await setOrgMonitoring(ctx.dbs.primary, t.orgId, { monthlyAskBudget: 3 });
    const deps = askDeps(ctx.dbs.primary, fakes.env);
    const { run, work } = await runOnce(deps, t, {
      engines: ['chatgpt', 'perplexity'],
      samples: 1,
      concurrency: 1,
    });
    await work;
    // 4 planned, 3 allowed: the fourth claim finds the month spent and stops the run.
    assert.equal(fakes.chatgpt.requests.length + fakes.perplexity.requests.length, 3);
    const stopped = await findMonitorRun(ctx.dbs.primary, run.runId);
    assert.equal(stopped?.status, 'failed');
    assert.match(stopped?.statusReason ?? '', /^monthly ask budget reached: 3 asks in \d{4}-\d{2} \(UTC\)$/);
    assert.equal((await get(t.key, `/api/runs/${run.runId}/status/`)).body.status, 'failed');
    const line = deps.log.lines.find((l) => l.fields.event === 'run_stopped');
    assert.equal(line?.fields.reason, stopped?.statusReason);
    const pending = await ctx.dbs.primary
      .selectFrom('run_asks')
      .select('state')
      .where('run_id', '=', run.runId)
      .where('state', '=', 'pending')
      .execute();
    assert.equal(pending.length, 1);
  });

  it('leaves the asks of an engine this process lacks unclaimed and uncounted, for a process that has it', async () => {
    const t = await tenant(2);
    const { PERPLEXITY_API_KEY: _, ...chatgptOnly } = fakes.env;
    const partial = askDeps(ctx.dbs.primary, chatgptOnly);
    assert.deepEqual([...partial.configured].sort(), ['chatgpt', 'simulated']);
    const full = askDeps(ctx.dbs.primary, fakes.env);
    const monitoring = await findBrandMonitoring(ctx.dbs.primary, t.orgId, t.brandId);
    assert.ok(monitoring);
    const options = { engines: ['chatgpt' as const, 'perplexity' as const], samples: 1 };
    const [run] = await planRuns(ctx.dbs.primary, monitoring, options, full.configured, new Date());
    assert.ok(run);
    const asks = () =>
      ctx.dbs.primary
        .selectFrom('run_asks')
        .select(['id', 'engine', 'state', 'attempts'])
        .where('run_id', '=', run.runId)
        .orderBy('id')
        .execute();
    const perplexityAsk = (await asks()).find((a) => a.engine === 'perplexity');
    assert.equal(await executeAsk(partial, perplexityAsk?.id ?? 0), 'elsewhere');

    // The process without Perplexity's key asks ChatGPT's two and stops with nothing left for it.
    await runAsks(partial, { runIds: [run.runId], concurrency: 4, pollMs: 20, done: async () => true });
    assert.equal(fakes.chatgpt.requests.length, 2);
    assert.equal(fakes.perplexity.requests.length, 0);
    assert.deepEqual(
      (await asks()).map((a) => [a.engine, a.state, a.attempts]),
      [
        ['chatgpt', 'done', 1],
        ['perplexity', 'pending', 0],
        ['chatgpt', 'done', 1],
        ['perplexity', 'pending', 0],
      ],
    );
    const usage = async () =>
      (
        await ctx.dbs.primary
          .selectFrom('org_ask_usage')
          .select('asks')
          .where('org_id', '=', t.orgId)
          .execute()
      ).map((u) => Number(u.asks));
    assert.deepEqual(await usage(), [2]);
    assert.equal((await findMonitorRun(ctx.dbs.primary, run.runId))?.status, 'running');

    // A worker without the key says what waits, once it starts.
    const stop = new AbortController();
    stop.abort();
    await runWorker(partial, { concurrency: 1, pollMs: 20, configured: partial.configured }, stop.signal);
    const waiting = partial.log.lines.filter((l) => l.fields.event === 'asks_waiting_for_engine');
    assert.deepEqual(
      waiting.map((l) => l.message),
      [`run ${run.runId}: 2 asks for engine perplexity wait for a worker with it configured`],
    );

    await runAsks(full, {
      runIds: [run.runId],
      concurrency: 4,
      pollMs: 20,
      done: async () => (await findMonitorRun(ctx.dbs.primary, run.runId))?.status !== 'running',
    });
    assert.equal(fakes.perplexity.requests.length, 2);
    assert.equal(fakes.chatgpt.requests.length, 2);
    assert.deepEqual(await usage(), [4]);
    assert.equal((await findMonitorRun(ctx.dbs.primary, run.runId))?.status, 'completed');
  });

  it('asks nothing of a paused brand’s unfinished run until the brand is active again', async () => {
    const t = await tenant(2);
    const db = ctx.dbs.primary;
    const deps = askDeps(db, fakes.env);
    const runId = await plannedOnChatgpt(t, deps);
    const status = (value: string) =>
      db.updateTable('brands').set({ status: value }).where('id', '=', t.brandId).execute();
    await status('paused');
    const [first] = await db
      .selectFrom('run_asks')
      .select('id')
      .where('run_id', '=', runId)
      .orderBy('id')
      .execute();
    assert.equal(await executeAsk(deps, first?.id ?? 0), 'taken');
    await runAsks(deps, { runIds: [runId], concurrency: 2, pollMs: 20, done: async () => true });
    assert.equal(fakes.chatgpt.requests.length, 0);
    await status('active');
    await runAsks(deps, {
      runIds: [runId],
      concurrency: 2,
      pollMs: 20,
      done: async () => (await findMonitorRun(db, runId))?.status !== 'running',
    });
    assert.equal(fakes.chatgpt.requests.length, 2);
  });

  /** The tenant's brand monitored daily on `engines`, its next run due a minute ago (returned). */
  async function dueAMinuteAgo(t: { orgId: number; brandId: number }, engines: EngineName[]) {
    const db = ctx.dbs.primary;
    await updateBrandMonitoring(
      db,
      t.orgId,
      t.brandId,
      { cadence: 'daily', engines, samples: 1 },
      new Date(),
    );
    const due = new Date(Date.now() - 60_000).toISOString();
    await db.updateTable('brands').set({ next_monitored_run_at: due }).where('id', '=', t.brandId).execute();
    return due;
  }

  it('leaves a due schedule to a worker with all its engines, saying so once', async () => {
    const t = await tenant(1);
    const db = ctx.dbs.primary;
    const due = await dueAMinuteAgo(t, ['chatgpt', 'perplexity']);
    const { PERPLEXITY_API_KEY: _, ...chatgptOnly } = fakes.env;
    const partial = askDeps(db, chatgptOnly);
    const noted = new Set<string>();
    // Claimed here, the slot was skipped for the whole fleet ("engine perplexity is not configured").
    assert.equal(await scheduleDue(partial, partial.configured, noted), 0);
    assert.equal(await scheduleDue(partial, partial.configured, noted), 0);
    assert.deepEqual(
      partial.log.lines.map((l) => l.message),
      [`brand ${t.brandId}: its run due ${due} waits for a worker with perplexity configured`],
    );
    assert.equal((await findBrandMonitoring(db, t.orgId, t.brandId))?.nextRunAt, due);
    const full = askDeps(db, fakes.env);
    assert.equal(await scheduleDue(full, full.configured), 1);
    const runs = await db.selectFrom('runs').select('id').where('brand_id', '=', t.brandId).execute();
    assert.equal(runs.length, 1);
  });

  it('gives a due slot back when the database fails while its runs are planned', async () => {
    const t = await tenant(1);
    const other = await tenant(1);
    const db = ctx.dbs.primary;
    const due = await dueAMinuteAgo(t, ['chatgpt']);
    await dueAMinuteAgo(other, ['chatgpt']);
    // The database refuses the first brand's run row (a full disk, a lost connection).
    const postgres = ctx.config.databaseUrl.startsWith('postgres');
    const refused = sql.lit(t.brandId);
    if (postgres) {
      await sql`create function refuse_runs() returns trigger language plpgsql as ${sql.raw(
        `$$ begin raise exception 'disk full'; end $$`,
      )}`.execute(db);
      await sql`create trigger refuse_runs before insert on runs for each row
        when (new.brand_id = ${refused}) execute function refuse_runs()`.execute(db);
    } else {
      await sql`create trigger refuse_runs before insert on runs when new.brand_id = ${refused}
        begin select raise(abort, 'disk full'); end`.execute(db);
    }
    const deps = askDeps(db, fakes.env);
    try {
      // Said, and the poll goes on to the other brand.
      assert.equal(await scheduleDue(deps, deps.configured), 1);
      const planned = await db
        .selectFrom('runs')
        .select('id')
        .where('brand_id', '=', other.brandId)
        .execute();
      assert.equal(planned.length, 1);
      assert.deepEqual(
        deps.log.lines.map((l) => [
          l.fields.event,
          l.fields.brandId,
          String(l.fields.err).includes('disk full'),
        ]),
        [
          ['schedule_failed', t.brandId, true],
          ['run_planned', other.brandId, false],
        ],
      );
    } finally {
      await sql`drop trigger refuse_runs${sql.raw(postgres ? ' on runs' : '')}`.execute(db);
      if (postgres) await sql`drop function refuse_runs()`.execute(db);
    }
    // The slot is still due: the next poll plans it.
    assert.equal((await findBrandMonitoring(db, t.orgId, t.brandId))?.nextRunAt, due);
    assert.equal(await scheduleDue(deps, deps.configured), 1);
    const runs = await db.selectFrom('runs').select('id').where('brand_id', '=', t.brandId).execute();
    assert.equal(runs.length, 1);
  });

  it('serves a brand due after a hundred it must leave to other workers', { timeout: 60_000 }, async () => {
    const t = await tenant(1);
    const db = ctx.dbs.primary;
    const long = new Date(Date.now() - 3_600_000).toISOString();
    const brandIds: number[] = [];
    for (let i = 0; i < 100; i++)
      brandIds.push((await createBrand(db, t.orgId, { name: `Waiting ${i}` })).id);
    // A hundred brands on Perplexity, due an hour ago; this worker has only ChatGPT's key.
    await db
      .updateTable('brands')
      .set({ monitoring_cadence: 'daily', monitoring_engines: '["perplexity"]', next_monitored_run_at: long })
      .where('id', 'in', brandIds)
      .execute();
    await dueAMinuteAgo(t, ['chatgpt']);
    const { PERPLEXITY_API_KEY: _, ...chatgptOnly } = fakes.env;
    const partial = askDeps(db, chatgptOnly);
    try {
      // Read 100 at a time, the first page was all brands it leaves: the chatgpt brand waited for good.
      assert.equal(await scheduleDue(partial, partial.configured), 1);
      assert.equal(partial.log.lines.filter((l) => l.fields.event === 'schedule_waiting').length, 100);
      const runs = await db.selectFrom('runs').select('id').where('brand_id', '=', t.brandId).execute();
      assert.equal(runs.length, 1);
    } finally {
      await db.updateTable('brands').set({ monitoring_cadence: 'off' }).where('id', 'in', brandIds).execute();
    }
  });

  it('resumes the category run in flight instead of planning a second one', async () => {
    const t = await tenant(1);
    const deps = askDeps(ctx.dbs.primary, fakes.env);
    const monitoring = await findBrandMonitoring(ctx.dbs.primary, t.orgId, t.brandId);
    assert.ok(monitoring);
    const options = { engines: ['chatgpt' as const], samples: 1 };
    const [first] = await planRuns(ctx.dbs.primary, monitoring, options, deps.configured, new Date());
    const [second] = await planRuns(ctx.dbs.primary, monitoring, options, deps.configured, new Date());
    assert.deepEqual([first?.resumed, second?.resumed, second?.runId], [false, true, first?.runId]);
    await runAsks(deps, { runIds: [first?.runId ?? 0], concurrency: 2, pollMs: 20, done: async () => true });
    assert.equal(fakes.chatgpt.requests.length, 1);
  });
});
