import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { once } from 'node:events';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { buildApp } from '../src/app.ts';
import { MAIN } from './support/cli.ts';
import { listen } from './support/context.ts';
import { allScopesBut, createDemoContext, type DemoContext } from './support/demo.ts';
import { BrandFixture } from './support/fixtures.ts';
import { freePort } from './support/server-process.ts';

// The MCP server through the MCP SDK's own client, over both transports, against a real server on
// the demo data: each tool's output is checked against the JSON API's answer to the same request.

const TOOLS = [
  'brand_overview',
  'latest_report',
  'list_brands',
  'list_prompts',
  'list_reports',
  'platform_breakdown',
  'prompt_changes',
  'recommendations',
  'report_download_link',
  'share_of_voice',
  'top_cited_sources',
];

let demo: DemoContext;
let baseUrl: string;
before(async () => {
  demo = await createDemoContext();
  baseUrl = await listen(demo.ctx.app);
});
after(async () => {
  await demo?.ctx.close();
});

/**
 * A globex brand of 21 categories of one prompt each (made once, for both transports; in globex so
 * that acme's listings stay the demo's).
 */
let many: Promise<{ brandId: number; categoryIds: number[]; promptIds: number[] }> | undefined;
function manyCategories() {
  many ??= (async () => {
    const brand = await BrandFixture.insert(demo.ctx.dbs.primary, demo.orgIds.globex, {
      name: 'Many categories',
    });
    const categoryIds = [];
    const promptIds = [];
    for (let i = 1; i <= 21; i++) {
      const category = await brand.category(`Category ${String(i).padStart(2, '0')}`);
      categoryIds.push(category);
      promptIds.push(await brand.prompt(category, { text: `Question ${i}?` }));
    }
    return { brandId: brand.brandId, categoryIds, promptIds };
  })();
  return many;
}

/** A globex brand of one category of 101 prompts: a page of 100 and one more. */
let manyPrompts: Promise<{ brandId: number; categoryId: number }> | undefined;
function aCategoryOfManyPrompts() {
  manyPrompts ??= (async () => {
    const brand = await BrandFixture.insert(demo.ctx.dbs.primary, demo.orgIds.globex, {
      name: 'Many prompts',
    });
    const categoryId = await brand.category('Questions');
    for (let i = 1; i <= 101; i++) await brand.prompt(categoryId, { text: `Question ${i}?` });
    return { brandId: brand.brandId, categoryId };
  })();
  return manyPrompts;
}

// biome-ignore lint/suspicious/noExplicitAny: raw JSON, compared with what the tools answer
async function api(url: string, key = demo.keys.acme): Promise<any> {
  const res = await fetch(new URL(url, baseUrl), { headers: { authorization: `Bearer ${key}` } });
  assert.equal(res.status, 200, url);
  return res.json();
}

type Connect = (key: string, url?: string) => Promise<Client>;

const overHttp: Connect = async (key, url = baseUrl) => {
  const client = new Client({ name: 'sightline-test', version: '1.0.0' });
  await client.connect(
    new StreamableHTTPClientTransport(new URL('/mcp', url), {
      requestInit: { headers: { authorization: `Bearer ${key}` } },
    }),
  );
  return client;
};

const overStdio: Connect = async (key, url = baseUrl) => {
  const client = new Client({ name: 'sightline-test', version: '1.0.0' });
  await client.connect(
    new StdioClientTransport({
      command: process.execPath,
      args: [MAIN, 'mcp'],
      env: { PATH: process.env.PATH ?? '', SIGHTLINE_API_KEY: key, SIGHTLINE_BASE_URL: url },
      stderr: 'pipe',
    }),
  );
  return client;
};

// biome-ignore lint/suspicious/noExplicitAny: the tool's JSON output
async function call(client: Client, name: string, args: Record<string, unknown>): Promise<any> {
  const result = (await client.callTool({ name, arguments: args })) as CallToolResult;
  const text = result.content[0]?.type === 'text' ? result.content[0].text : '';
  assert.notEqual(result.isError, true, `${name}: ${text}`);
  assert.deepEqual(JSON.parse(text), result.structuredContent, 'the text is the structured content');
  return result.structuredContent;
}

async function toolError(client: Client, name: string, args: Record<string, unknown>): Promise<string> {
  const result = (await client.callTool({ name, arguments: args })) as CallToolResult;
  assert.equal(result.isError, true, `${name} should fail`);
  return result.content[0]?.type === 'text' ? result.content[0].text : '';
}

for (const [transport, connect] of [
  ['stdio (`sightline mcp`)', overStdio],
  ['Streamable HTTP (/mcp)', overHttp],
] as const) {
  describe(`MCP over ${transport}`, () => {
    let client: Client;
    before(async () => {
      client = await connect(demo.keys.acme);
    });
    after(async () => {
      await client?.close();
    });

    it('lists the read-only tools, each with a description and typed inputs', async () => {
      const { tools } = await client.listTools();
      assert.deepEqual(tools.map((t) => t.name).sort(), TOOLS);
      for (const tool of tools) {
        assert.ok((tool.description ?? '').length > 40, tool.name);
        assert.equal(tool.annotations?.readOnlyHint, true, tool.name);
        assert.equal(tool.inputSchema.type, 'object', tool.name);
      }
      const overview = tools.find((t) => t.name === 'brand_overview');
      assert.deepEqual(overview?.inputSchema.required, ['brandId']);
      const range = overview?.inputSchema.properties?.range as { enum: string[] } | undefined;
      assert.deepEqual(range?.enum, ['7d', '30d', '90d', 'all', 'custom']);
    });

    it('list_brands: the organization brands with their scores, as the API lists them', async () => {
      const out = await call(client, 'list_brands', {});
      const raw = await api('/api/brands/?sort=name&page_size=100');
      assert.equal(out.count, raw.count);
      assert.equal(out.hasMore, false);
      assert.deepEqual(
        out.brands.map((b: { id: string; score: number | null }) => [b.id, b.score]),
        raw.results.map((b: { id: string; averageScore: number; hasScoreData: boolean }) => [
          b.id,
          b.hasScoreData ? b.averageScore : null,
        ]),
      );
      // Only acme's brands: the key's organization.
      assert.ok(out.brands.every((b: { id: string }) => demo.brandIds.acme.includes(Number(b.id))));
    });

    it('brand_overview: score, windowed delta, mention rate with interval, rank, sentiment, sample', async () => {
      const { brandId } = demo.fixtures;
      // Over the whole history the figures do not depend on the request time.
      const out = await call(client, 'brand_overview', { brandId, range: 'all' });
      const analytics = await api(`/api/brands/${brandId}/analytics/?range=all`);
      const history = await api(`/api/brands/${brandId}/score-history/?range=all`);
      assert.equal(out.window.range, 'all');
      assert.equal(out.window.label, 'All time');
      assert.equal(out.window.start, analytics.window.start);
      assert.equal(out.score.latest, history.windowedDelta.latestScore);
      assert.equal(out.score.delta, history.windowedDelta.delta);
      assert.equal(out.score.deltaSuppressedReason, history.windowedDelta.suppressedReason);
      assert.deepEqual(out.score.interval, history.windowedDelta.latestScoreInterval);
      assert.equal(out.score.intervalReason, history.windowedDelta.latestScoreIntervalReason);
      assert.equal(out.score.significance, history.windowedDelta.significance);
      assert.ok(out.score.interval !== null, 'the demo brand has enough prompts for a score interval');
      assert.equal(out.mentionRate.value, analytics.metrics.mentionRate.value);
      assert.deepEqual(out.mentionRate.interval, analytics.metrics.mentionRate.interval);
      assert.ok(out.mentionRate.interval !== null, 'the demo brand has enough prompts for an interval');
      assert.equal(out.averageRank.value, analytics.metrics.avgRank.value);
      assert.deepEqual(out.sentiment, analytics.metrics.sentiment);
      assert.deepEqual(out.sample, {
        answers: analytics.coverage.usableSampleCount,
        samples: analytics.metrics.sampleCount,
        prompts: analytics.coverage.promptCoverageCount,
      });
      assert.ok(out.sample.answers > 0);
      // `all` has no comparison window: the deltas say why they are absent.
      assert.equal(out.mentionRate.delta, null);
      assert.equal(out.mentionRate.deltaSuppressedReason, 'no_prior');
    });

    it('share_of_voice, top_cited_sources and platform_breakdown: the analytics blocks, trimmed', async () => {
      const { brandId } = demo.fixtures;
      const analytics = await api(`/api/brands/${brandId}/analytics/?range=all`);

      const sov = await call(client, 'share_of_voice', { brandId: String(brandId), range: 'all' });
      assert.deepEqual(
        sov.entities.map((e: { name: string; mentions: number; share: number }) => [
          e.name,
          e.mentions,
          e.share,
        ]),
        analytics.shareOfVoice.visible.map((e: { name: string; mentions: number; share: number }) => [
          e.name,
          e.mentions,
          e.share,
        ]),
      );
      assert.equal(sov.entities.filter((e: { isUserBrand: boolean }) => e.isUserBrand).length, 1);
      assert.equal(sov.hiddenCount, analytics.shareOfVoice.hidden.length);
      assert.equal(sov.hidden, undefined);

      const sources = await call(client, 'top_cited_sources', { brandId, range: 'all', limit: 3 });
      assert.equal(sources.totalCitations, analytics.sources.totalCitations);
      assert.equal(sources.totalDomains, analytics.sources.totalDomains);
      assert.deepEqual(
        sources.sources.map(
          (s: { domain: string; citations: number; interval: unknown; intervalReason: unknown }) => [
            s.domain,
            s.citations,
            s.interval,
            s.intervalReason,
          ],
        ),
        analytics.sources.items
          .slice(0, 3)
          .map((s: { domain: string; count: number; interval: unknown; intervalReason: unknown }) => [
            s.domain,
            s.count,
            s.interval,
            s.intervalReason,
          ]),
      );

      const platforms = await call(client, 'platform_breakdown', { brandId, range: 'all' });
      assert.deepEqual(
        platforms.engines.map((p: { model: string; mentionRate: number; answers: number }) => [
          p.model,
          p.mentionRate,
          p.answers,
        ]),
        analytics.platforms.apiPlatforms.map(
          (p: { model: string; mentionRate: number; totalAnswers: number }) => [
            p.model,
            p.mentionRate,
            p.totalAnswers,
          ],
        ),
      );
      assert.equal(platforms.surfaces.length, analytics.platforms.surfacePlatforms.length);
      assert.deepEqual(platforms.sample, sov.sample);
    });

    it('list_prompts and prompt_changes: the change feed of a prompt', async () => {
      const { brandId, categoryId, promptId } = demo.fixtures;
      const out = await call(client, 'list_prompts', { brandId });
      const category = out.categories.find((c: { id: string }) => c.id === String(categoryId));
      const raw = await api(`/api/categories/${categoryId}/prompts/?page_size=100`);
      assert.deepEqual(
        category.prompts.map((p: { id: string }) => p.id),
        raw.results.map((p: { id: string }) => p.id),
      );

      const changes = await call(client, 'prompt_changes', { promptId });
      const feed = await api(`/api/prompts/${promptId}/changes/`);
      assert.equal(changes.hasBaseline, true, 'the fixture prompt has two scored runs');
      assert.equal(changes.comparedToRunId, feed.comparedToRunId);
      assert.deepEqual(changes.changes, feed.changes);
      assert.equal(changes.comparison, `the prompt's latest scored run against run ${feed.comparedToRunId}`);
    });

    it('list_prompts on a brand of many categories: the first 20 with prompts, the others on request', async () => {
      const { brandId, categoryIds, promptIds } = await manyCategories();
      const globex = await connect(demo.keys.globex);
      try {
        await manyCategoryListings(globex, brandId, categoryIds, promptIds);
      } finally {
        await globex.close();
      }
    });

    async function manyCategoryListings(
      client: Client,
      brandId: number,
      categoryIds: number[],
      promptIds: number[],
    ): Promise<void> {
      const out = await call(client, 'list_prompts', { brandId });
      assert.equal(out.categories.length, 21);
      // By name: "Category 01" … "Category 21"; the 21st is listed without its prompts.
      assert.deepEqual(
        out.categories.map((c: { id: string }) => c.id),
        categoryIds.map(String),
      );
      for (const [i, category] of out.categories.entries()) {
        assert.equal(category.promptCount, 1);
        if (i < 20)
          assert.deepEqual(
            category.prompts.map((p: { id: string }) => p.id),
            [String(promptIds[i])],
          );
        else assert.equal(category.prompts, null);
      }
      assert.match(out.note, /^prompts listed for the first 20 of 21 categories/);

      const one = await call(client, 'list_prompts', { brandId, categoryId: categoryIds[20] });
      assert.equal(one.note, undefined);
      assert.deepEqual(
        one.categories.map((c: { id: string; prompts: { id: string }[] }) => [
          c.id,
          c.prompts.map((p) => p.id),
        ]),
        [[String(categoryIds[20]), [String(promptIds[20])]]],
      );
      const foreign = await toolError(client, 'list_prompts', {
        brandId,
        categoryId: demo.fixtures.categoryId,
      });
      assert.equal(
        foreign,
        `list_prompts of brand ${brandId}: category ${demo.fixtures.categoryId} is not a live category of brand ${brandId}`,
      );
    }

    it('list_prompts gives a category a page of 100 prompts, the next on request', async () => {
      const { brandId, categoryId } = await aCategoryOfManyPrompts();
      const globex = await connect(demo.keys.globex);
      try {
        const ids = (out: { categories: { prompts: { id: string }[] }[] }) =>
          out.categories.flatMap((c) => c.prompts.map((p) => p.id));
        const raw = (page: number) =>
          api(`/api/categories/${categoryId}/prompts/?page_size=100&page=${page}`, demo.keys.globex);
        const first = await call(globex, 'list_prompts', { brandId });
        assert.equal(first.categories[0].promptCount, 101);
        assert.deepEqual(
          ids(first),
          (await raw(1)).results.map((p: { id: string }) => p.id),
        );
        assert.equal(
          first.note,
          'page 1 of 100 prompts a category: call list_prompts with a categoryId and page 2 for the next',
        );
        const second = await call(globex, 'list_prompts', { brandId, categoryId, page: 2 });
        assert.deepEqual(
          ids(second),
          (await raw(2)).results.map((p: { id: string }) => p.id),
        );
        assert.equal(ids(second).length, 1);
        assert.equal(second.note, undefined);
        assert.equal(
          await toolError(globex, 'list_prompts', { brandId, categoryId, page: 3 }),
          `list_prompts of brand ${brandId}: Sightline API 404: Invalid page. The page is past the last one: the first page says how many there are.`,
        );
        assert.equal(
          await toolError(globex, 'list_prompts', { brandId, page: 2 }),
          `list_prompts of brand ${brandId}: page 2 is a page of one category's prompts: give its categoryId`,
        );
      } finally {
        await globex.close();
      }
    });

    it('a 404 that names what is missing is not said to be another organization’s', async () => {
      assert.equal(
        await toolError(client, 'list_brands', { page: 99 }),
        'list_brands: Sightline API 404: Invalid page. The page is past the last one: the first page says how many there are.',
      );
    });

    it('list_reports, latest_report and report_download_link: the artifacts and their download URL', async () => {
      const { report } = demo.fixtures;
      const list = await call(client, 'list_reports', { brandId: report.brandId });
      const raw = await api(`/api/brands/${report.brandId}/reports/`);
      assert.equal(list.count, raw.count);
      assert.deepEqual(
        list.reports.map((r: { id: string; status: string }) => [r.id, r.status]),
        raw.results.map((r: { id: string; status: string }) => [r.id, r.status]),
      );

      const latest = await call(client, 'latest_report', { brandId: report.brandId, type: report.type });
      const rawLatest = await api(`/api/brands/${report.brandId}/reports/latest/?type=${report.type}`);
      assert.equal(latest.id, rawLatest.id);

      const link = await call(client, 'report_download_link', { reportId: report.id });
      // The link names the address the agent used, and the file answers to the same key.
      assert.equal(link.downloadUrl, `${baseUrl}/api/reports/${report.id}/download/`);
      const file = await fetch(link.downloadUrl, { headers: { authorization: `Bearer ${demo.keys.acme}` } });
      assert.equal(file.status, 200);
      assert.equal(file.headers.get('content-type'), 'application/pdf');
    });

    it('recommendations: highest priority first, as the API orders them', async () => {
      const { brandId } = demo.fixtures;
      const out = await call(client, 'recommendations', { brandId, limit: 3 });
      const raw = await api(`/api/brands/${brandId}/recommendations/?page_size=3`);
      assert.equal(out.count, raw.count);
      assert.ok(out.recommendations.length > 0);
      assert.deepEqual(
        out.recommendations.map((r: { id: string; priority: string; score: number }) => [
          r.id,
          r.priority,
          r.score,
        ]),
        raw.results.map((r: { id: string; priority: string; score: number }) => [r.id, r.priority, r.score]),
      );
    });

    it("another organization's brand is a not-found tool error, not its data", async () => {
      const globexBrand = demo.brandIds.globex[0];
      const message = await toolError(client, 'brand_overview', { brandId: globexBrand });
      assert.match(message, new RegExp(`^brand_overview of brand ${globexBrand}: Sightline API 404`));
      assert.match(message, /another organization/);
    });

    it('an id written with leading zeros is the id outputs spell without them', async () => {
      const { brandId, categoryId } = demo.fixtures;
      const padded = (n: number) => `00${n}`;
      const overview = await call(client, 'brand_overview', { brandId: padded(brandId) });
      assert.equal(overview.brandId, String(brandId));
      const one = await call(client, 'list_prompts', {
        brandId: padded(brandId),
        categoryId: padded(categoryId),
      });
      assert.deepEqual(
        one.categories.map((c: { id: string }) => c.id),
        [String(categoryId)],
      );
    });

    it('a bad input is refused by the input schema or, past it, as the API refuses it', async () => {
      const schema = await toolError(client, 'brand_overview', { brandId: 'nine' });
      assert.match(schema, /brandId/);
      // No id has 33 digits: refused before it is read, however long.
      assert.match(await toolError(client, 'brand_overview', { brandId: '7'.repeat(33) }), /brandId/);
      // No object has the id 0, however it is written.
      for (const brandId of [0, '0', '000']) {
        assert.match(await toolError(client, 'brand_overview', { brandId }), /brandId/);
      }
      const api400 = await toolError(client, 'brand_overview', {
        brandId: demo.fixtures.brandId,
        range: 'custom',
      });
      assert.match(api400, /Sightline API 400/);
    });

    it('a key without a scope gets a tool error naming the scope', async () => {
      const limited = await connect(await demo.mint('acme', { scopes: allScopesBut('runs:read') }));
      try {
        const message = await toolError(limited, 'prompt_changes', { promptId: demo.fixtures.promptId });
        assert.match(message, /403: This API key lacks the required scope: runs:read\./);
        // The other scopes still answer.
        await call(limited, 'list_brands', {});
      } finally {
        await limited.close();
      }
    });
  });
}

describe('/mcp as plain HTTP', () => {
  const post = (headers: Record<string, string>, message: Record<string, unknown>) =>
    fetch(new URL('/mcp', baseUrl), {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        ...headers,
      },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, ...message }),
    });
  const initialize = (headers: Record<string, string>) =>
    post(headers, {
      method: 'initialize',
      params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 't', version: '1' } },
    });

  it('is stateless: a tool call needs no session before it', async () => {
    const res = await post(
      { authorization: `Bearer ${demo.keys.acme}` },
      { method: 'tools/call', params: { name: 'list_brands', arguments: {} } },
    );
    assert.equal(res.status, 200);
    assert.equal(res.headers.get('mcp-session-id'), null);
    const body = (await res.json()) as { result: { structuredContent: { count: number } } };
    assert.equal(body.result.structuredContent.count, (await api('/api/brands/')).count);
  });

  it('serves a client that accepts JSON however it says so; one that refuses JSON gets a 406', async () => {
    const call = { method: 'tools/call', params: { name: 'list_brands', arguments: {} } };
    const key = { authorization: `Bearer ${demo.keys.acme}` };
    for (const accept of ['application/json', '*/*', 'application/*', 'text/html, application/json;q=0.5']) {
      const res = await post({ ...key, accept }, call);
      assert.equal(res.status, 200, accept);
      assert.match(String(res.headers.get('content-type')), /^application\/json/, accept);
    }
    // Node's fetch sends `Accept: */*` when none is given; the transport's own 406 stays for a
    // client that takes neither JSON nor anything.
    assert.equal((await post({ ...key, accept: 'text/html' }, call)).status, 406);
  });

  it('answers 401 in the contract shape without a key, or with a bad one', async () => {
    const none = await initialize({});
    assert.equal(none.status, 401);
    assert.equal(none.headers.get('www-authenticate'), 'Bearer realm="api"');
    assert.deepEqual(await none.json(), { detail: 'Authentication credentials were not provided.' });

    const bad = await initialize({ 'x-api-key': 'sl_live_nope' });
    assert.equal(bad.status, 401);
    assert.deepEqual(await bad.json(), { detail: 'Invalid API key.' });
  });

  it("records the key's first use on a protocol message that reads no data", async () => {
    const key = await demo.mint('acme');
    const lastUsed = async () =>
      (
        await demo.ctx.dbs.primary
          .selectFrom('api_keys')
          .select('last_used_at')
          .where('key_id', '=', key.split('_')[2] as string)
          .executeTakeFirstOrThrow()
      ).last_used_at;
    assert.equal(await lastUsed(), null);
    assert.equal((await initialize({ authorization: `Bearer ${key}` })).status, 200);
    // Written after the answer: give it a moment.
    let used: unknown = null;
    for (let i = 0; i < 50 && used === null; i++) {
      await sleep(20);
      used = await lastUsed();
    }
    assert.ok(used, 'last_used_at was recorded');
  });

  it('accepts the key in X-API-Key as the API does', async () => {
    const ok = await initialize({ 'x-api-key': demo.keys.acme });
    assert.equal(ok.status, 200);
    assert.equal(
      ((await ok.json()) as { result: { serverInfo: { name: string } } }).result.serverInfo.name,
      'sightline',
    );
  });

  it("answers 403 when the organization's API access add-on is off", async () => {
    const off = await initialize({ authorization: `Bearer ${demo.keys.initech}` });
    assert.equal(off.status, 403);
    assert.match(((await off.json()) as { detail: string }).detail, /paid add-on/);
  });

  it('is stateless: GET and DELETE answer 405', async () => {
    for (const method of ['GET', 'DELETE']) {
      const res = await fetch(new URL('/mcp', baseUrl), {
        method,
        headers: { authorization: `Bearer ${demo.keys.acme}` },
      });
      assert.equal(res.status, 405, method);
      assert.equal(res.headers.get('allow'), 'POST', method);
    }
  });
});

describe('sightline mcp and its configuration', () => {
  it('says where it serves without the base URL’s query string', async () => {
    const child = spawn(process.execPath, [MAIN, 'mcp'], {
      env: {
        PATH: process.env.PATH ?? '',
        SIGHTLINE_API_KEY: demo.keys.acme,
        SIGHTLINE_BASE_URL: `${baseUrl}/?token=s3cret-in-query`,
      },
      stdio: ['pipe', 'ignore', 'pipe'],
    });
    let stderr = '';
    for await (const chunk of child.stderr) {
      stderr += chunk;
      if (stderr.includes('\n')) break;
    }
    child.kill();
    assert.equal(stderr, `sightline mcp: serving the MCP tools over stdio for ${baseUrl}\n`);
  });

  it('says the base URL is not the API when its path serves none, not that the object is another organization’s', async () => {
    const wrong = await overStdio(demo.keys.acme, `${baseUrl}/not-sightline`);
    try {
      assert.equal(
        await toolError(wrong, 'brand_overview', { brandId: demo.fixtures.brandId }),
        `brand_overview of brand ${demo.fixtures.brandId}: Sightline API 404: Not found. SIGHTLINE_BASE_URL does not point at the Sightline API (its /api/openapi.json is not found either): check its path.`,
      );
    } finally {
      await wrong.close();
    }
  });

  it('asks whether the address serves the API once for several calls, and a probe without answer is not held against it', async () => {
    // A service that answers every call "Not found." and never answers the probe.
    let probes = 0;
    const silent = createServer((request, response) => {
      if (request.url?.endsWith('/api/openapi.json')) {
        probes++;
        return;
      }
      response.writeHead(404, { 'content-type': 'application/json' });
      response.end('{"detail":"Not found."}');
    });
    silent.listen(0, '127.0.0.1');
    await once(silent, 'listening');
    const client = await overStdio(
      demo.keys.acme,
      `http://127.0.0.1:${(silent.address() as AddressInfo).port}`,
    );
    try {
      for (let i = 0; i < 3; i++) {
        assert.match(
          await toolError(client, 'brand_overview', { brandId: 9 }),
          /It does not exist, or it belongs to another organization than this API key\.$/,
        );
      }
      assert.equal(probes, 1);
    } finally {
      await client.close();
      silent.closeAllConnections();
      silent.close();
    }
  });

  it('exits 2 with one line on stderr and nothing on stdout on a configuration it cannot use', () => {
    const cases: [Record<string, string>, string][] = [
      [
        { SIGHTLINE_BASE_URL: baseUrl },
        'SIGHTLINE_API_KEY is not set: create a key with `sightline keys create` and export it',
      ],
      // The password is not printed back.
      [
        { SIGHTLINE_API_KEY: demo.keys.acme, SIGHTLINE_BASE_URL: 'http://ops:s3cret@127.0.0.1:8000' },
        'SIGHTLINE_BASE_URL must not carry a user name or password (http://…@127.0.0.1:8000)',
      ],
      [
        { SIGHTLINE_API_KEY: 'sl_live_abc…', SIGHTLINE_BASE_URL: baseUrl },
        'SIGHTLINE_API_KEY has characters no key has (spaces, quotes or letters outside ASCII): copy it again',
      ],
    ];
    for (const [env, message] of cases) {
      const run = spawnSync(process.execPath, [MAIN, 'mcp'], {
        env: { PATH: process.env.PATH ?? '', ...env },
        encoding: 'utf8',
        input: '',
      });
      assert.equal(run.status, 2, message);
      assert.equal(run.stdout, '');
      assert.equal(run.stderr, `sightline: ${message}\n`);
    }
  });

  it('with no service at SIGHTLINE_BASE_URL, a tool call is a tool error that says so', async () => {
    const client = await overStdio(demo.keys.acme, `http://127.0.0.1:${await freePort()}`);
    try {
      const message = await toolError(client, 'list_brands', {});
      assert.match(message, /^list_brands: could not reach the Sightline API \(ECONNREFUSED\)/);
    } finally {
      await client.close();
    }
  });
});

describe('the rate limit over /mcp', () => {
  /** A second app on the same data with `limit` requests a minute. */
  async function limitedTo(limit: number, use: (url: string, key: string) => Promise<void>): Promise<void> {
    // The count is the point, so the limit is the in-process one in both passes: under a loaded
    // machine a Redis answer can outlast the limiter's 500 ms and the request is counted by the
    // per-instance fallback instead (redis-rate-limit.test covers Redis).
    const limited = await buildApp(
      { ...demo.ctx.config, rateLimitPerMinute: limit, redisUrl: undefined },
      { databases: demo.ctx.dbs, logger: false },
    );
    try {
      await use(await listen(limited), await demo.mint('acme'));
    } finally {
      await limited.close();
    }
  }

  it('counts each protocol message once and a tool call as the API requests it makes', async () => {
    // 7 a minute: connecting is 3 (initialize, the initialized notification, the client's GET for
    // a stream of its own, answered 405) and listing tools 1; brand_overview makes 2 API requests
    // (analytics, score history) and share_of_voice 1: 4 + 2 + 1 = 7 spends the minute, so the
    // next tool call is refused with the API's 429.
    await limitedTo(7, async (url, key) => {
      const client = await overHttp(key, url);
      try {
        await client.listTools();
        await call(client, 'brand_overview', { brandId: demo.fixtures.brandId });
        await call(client, 'share_of_voice', { brandId: demo.fixtures.brandId });
        await assert.rejects(client.callTool({ name: 'list_brands', arguments: {} }), (error: Error) => {
          assert.match(error.message, /Request was throttled\. Expected available in \d+ seconds\./);
          return true;
        });
      } finally {
        await client.close();
      }
    });
  });

  it('counts a call of no tool, an empty batch and a body that is no JSON as one request each', async () => {
    await limitedTo(3, async (url, key) => {
      const post = (body: unknown) =>
        fetch(new URL('/mcp', url), {
          method: 'POST',
          headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
          body: JSON.stringify(body),
        });
      const noTool = { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'no_such_tool' } };
      assert.equal((await post(noTool)).status, 200);
      assert.equal((await post([])).status, 202);
      // A body that is no JSON is refused before it is read, and counted as a request still.
      const notJson = await fetch(new URL('/mcp', url), {
        method: 'POST',
        headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
        body: '{"jsonrpc":',
      });
      assert.equal(notJson.status, 400);
      // Three requests of three: the key's next API request is refused, a payment token made up
      // by the client or none.
      for (const paid of [undefined, randomUUID()]) {
        const brands = await fetch(new URL('/api/brands/', url), {
          headers: { authorization: `Bearer ${key}`, ...(paid ? { 'x-sightline-paid': paid } : {}) },
        });
        assert.equal(brands.status, 429);
      }
    });
  });

  it('answers a batch that cancels its own request (nothing is cancelled)', async () => {
    type Answer = { id: number; result: { isError?: boolean } };
    await limitedTo(10, async (url, key) => {
      const res = await fetch(new URL('/mcp', url), {
        method: 'POST',
        headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
        body: JSON.stringify([
          { jsonrpc: '2.0', id: 7, method: 'tools/call', params: { name: 'list_brands', arguments: {} } },
          { jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 7 } },
        ]),
        signal: AbortSignal.timeout(10_000),
      });
      assert.equal(res.status, 200);
      // The transport answers a batch of one request as that request's answer.
      const body = (await res.json()) as Answer | Answer[];
      const answer = Array.isArray(body) ? body[0] : body;
      assert.equal(answer?.id, 7);
      assert.notEqual(answer?.result.isError, true);
    });
  });

  it('refuses a batch of protocol messages past the limit with the API’s 429', async () => {
    await limitedTo(2, async (url, key) => {
      const list = (id: number) => ({ jsonrpc: '2.0', id, method: 'tools/list' });
      const res = await fetch(new URL('/mcp', url), {
        method: 'POST',
        headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
        body: JSON.stringify([list(1), list(2), list(3)]),
      });
      assert.equal(res.status, 429);
      assert.match(res.headers.get('retry-after') ?? '', /^\d+$/);
      assert.match(((await res.json()) as { detail: string }).detail, /^Request was throttled\./);
    });
  });
});
