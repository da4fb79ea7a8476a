// The MCP tools, one set for both transports (stdio in cli/commands/mcp.ts, Streamable HTTP in
// mcp/http.ts). Every tool reads through the typed SDK (clients/typescript), so each call is an
// ordinary API request: the key's scopes, its organization and the rate limit apply exactly as
// they do to any other client. Outputs are trimmed to what an agent needs and always say which
// window and how many answers a figure rests on.
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';
import {
  type Analytics,
  type ReportArtifact,
  type Sightline,
  SightlineConnectionError,
  SightlineError,
  SightlineRateLimitError,
} from '../../clients/typescript/src/index.ts';

/** What every MCP session is told about the server. */
const SERVER_INFO = { name: 'sightline', version: '1.0.0' } as const;

const INSTRUCTIONS =
  'Read-only brand-visibility data from Sightline: how answer engines (ChatGPT, Perplexity, Gemini, ' +
  'Claude, ...) mention a brand. Start with list_brands to get brand ids. Scores are 0-100, rates and ' +
  'shares fractions 0-1; each figure comes with the window and the sample it rests on, and a 95% ' +
  'interval where the API gives one. A null delta has a reason (no_data, no_prior, no_boundary, cross_era).';

const id = (what: string) =>
  z
    // A database id has at most 19 digits; the length bound keeps a megabyte of digits from
    // being read at all.
    // "0" (or "000") is refused as the number 0 is: no object has it.
    .union([z.int().positive(), z.string().regex(/^(?=[0-9]{1,32}$)0*[1-9]/)])
    // As the outputs spell ids: "0009" named brand 9 but was echoed as "0009", and a category
    // id "013" was not found among the brand's "13".
    .transform((value) => String(value).replace(/^0+(?=\d)/, ''))
    .describe(`${what} id: a number, or the string id every output carries (e.g. "9").`);

// The API's report type syntax (src/schemas/reports.ts); src/mcp may not import it.
const reportType = z.string().regex(/^[A-Za-z0-9_.-]{1,100}$/);

const windowInput = {
  range: z
    .enum(['7d', '30d', '90d', 'all', 'custom'])
    .default('30d')
    .describe(
      'The window: the last 7, 30 or 90 days (compared with the same span before it), all time, or custom (then start and end).',
    ),
  start: z
    .string()
    .regex(/^\d{4}-\d{2}-\d{2}$/)
    .optional()
    .describe('YYYY-MM-DD, first day of a custom range (organization time zone). Only with range=custom.'),
  end: z
    .string()
    .regex(/^\d{4}-\d{2}-\d{2}$/)
    .optional()
    .describe('YYYY-MM-DD, last day of a custom range, not after today. Only with range=custom.'),
};
type WindowInput = z.infer<z.ZodObject<typeof windowInput>>;

const windowQuery = (input: WindowInput) => ({ range: input.range, start: input.start, end: input.end });

/** The window an analytics answer covers, as the agent should quote it. */
function windowOf(a: Analytics) {
  return {
    range: a.window.range,
    label: a.metrics.label,
    start: a.window.start,
    end: a.window.end,
    timezone: a.window.timezone,
    comparedWith: a.window.previous,
  };
}

/** The sample under an analytics answer: usable answers, their weight, the prompts they cover. */
function sampleOf(a: Analytics) {
  return {
    answers: a.coverage.usableSampleCount,
    samples: a.metrics.sampleCount,
    prompts: a.coverage.promptCoverageCount,
  };
}

type Output = Record<string, unknown>;

/** Categories whose prompts one list_prompts call lists. */
const EXPANDED_CATEGORIES = 20;
/** Prompts list_prompts gives a category in one call: one page of the API's largest. */
const PROMPTS_PAGE = 100;

/** A tool's own refusal of its input, told to the agent as a tool error. */
class Refused extends Error {}

/** The hint of a 404 "Not found." when the address itself serves no Sightline API. */
const NOT_THE_API =
  ' SIGHTLINE_BASE_URL does not point at the Sightline API (its /api/openapi.json is not found either): check its path.';

/** A 404's detail: the API's "Not found." (the object), "Invalid page." or what else is missing. */
const detailOf404 = (error: SightlineError) =>
  error.status === 404 ? (error.body as { detail?: unknown } | null)?.detail : undefined;

function explain(what: string, error: SightlineError, notTheApi = false): string {
  const detail = detailOf404(error);
  const hint =
    // Only the API's "Not found." means the object; "No … report exists" says what is missing.
    detail === 'Not found.'
      ? notTheApi
        ? NOT_THE_API
        : ' It does not exist, or it belongs to another organization than this API key.'
      : detail === 'Invalid page.'
        ? ' The page is past the last one: the first page says how many there are.'
        : error instanceof SightlineRateLimitError
          ? ` The API key's rate limit is spent${error.retryAfter === null ? '' : `: retry in ${error.retryAfter} s`}.`
          : '';
  return `${what}: Sightline API ${error.message}${hint}`;
}

/** The line an agent reads for a failed call; undefined for anything but the API's refusal or silence. */
function failure(what: string, error: unknown, notTheApi: boolean): string | undefined {
  if (error instanceof Refused) return `${what}: ${error.message}`;
  if (error instanceof SightlineError) return explain(what, error, notTheApi);
  if (!(error instanceof SightlineConnectionError)) return undefined;
  return `${what}: could not reach the Sightline API (${error.reason}): is SIGHTLINE_BASE_URL right and the service running?`;
}

export interface McpServerOptions {
  /**
   * Whether the base URL serves the Sightline API, asked when a call is not found (stdio, where
   * the address is the agent's configuration): a wrong path answers every call 404, which read as
   * another organization's object.
   */
  servesApi?: () => Promise<boolean>;
}

/** Runs one tool: its result as JSON text and structured content, or a refusal as a tool error. */
function answerer(options: McpServerOptions) {
  return async (what: string, read: () => Promise<Output>): Promise<CallToolResult> => {
    try {
      const output = await read();
      return { content: [{ type: 'text', text: JSON.stringify(output) }], structuredContent: output };
    } catch (error) {
      const notFound = error instanceof SightlineError && detailOf404(error) === 'Not found.';
      const notTheApi = notFound && options.servesApi !== undefined && !(await options.servesApi());
      const text = failure(what, error, notTheApi);
      if (text === undefined) throw error;
      return { isError: true, content: [{ type: 'text', text }] };
    }
  };
}

const reportOf = (r: ReportArtifact) => ({
  id: r.id,
  reportType: r.reportType,
  reportTypeLabel: r.reportTypeLabel,
  categoryId: r.categoryId,
  status: r.status,
  format: r.format,
  createdAt: r.createdAt,
  completedAt: r.completedAt,
  downloadUrl: r.downloadUrl === '' ? null : r.downloadUrl,
});

const READ_ONLY = { readOnlyHint: true, openWorldHint: false } as const;

/** A new MCP server whose tools read through `sl`. */
export function createMcpServer(sl: Sightline, options: McpServerOptions = {}): McpServer {
  const server = new McpServer(SERVER_INFO, { instructions: INSTRUCTIONS });
  const answer = answerer(options);

  server.registerTool(
    'list_brands',
    {
      title: 'List brands',
      description:
        "The brands of the API key's organization with their current score (mean of each monitored prompt's latest score) and the score before that. Use the ids with the other tools.",
      inputSchema: {
        query: z.string().max(200).optional().describe('Case-insensitive part of the name or website.'),
        includeArchived: z.boolean().default(false).describe('Also list archived brands.'),
        page: z.int().positive().default(1).describe('Page of 100 brands.'),
      },
      annotations: READ_ONLY,
    },
    ({ query, includeArchived, page }) =>
      answer('list_brands', async () => {
        const list = await sl.brands
          .list({ q: query, archived: includeArchived, sort: 'name', page, page_size: 100 })
          .page();
        return {
          count: list.count,
          page,
          hasMore: list.next !== null,
          basis: "score: each monitored prompt's latest scored run; previousScore: the scored run before it",
          brands: list.results.map((b) => ({
            id: b.id,
            name: b.name,
            website: b.website,
            status: b.status,
            score: b.hasScoreData ? b.averageScore : null,
            previousScore: b.hasScoreData ? b.previousScore : null,
            monitoredPromptCount: b.monitoredPromptCount,
            lastMonitoredRunAt: b.lastMonitoredRunAt,
          })),
        };
      }),
  );

  server.registerTool(
    'brand_overview',
    {
      title: 'Brand overview',
      description:
        "A brand's headline figures over a window: score and how it moved (windowed delta), mention rate with its 95% interval, average rank, sentiment counts, and the sample they rest on.",
      inputSchema: { brandId: id('Brand'), ...windowInput },
      annotations: READ_ONLY,
    },
    (input) =>
      answer(`brand_overview of brand ${input.brandId}`, async () => {
        const [analytics, history] = await Promise.all([
          sl.brands.analytics(input.brandId, windowQuery(input)),
          sl.brands.scoreHistory(input.brandId, { ...windowQuery(input), limit: 1 }),
        ]);
        const delta = history.windowedDelta;
        const { mentionRate, avgRank, sentiment } = analytics.metrics;
        const figure = (f: typeof mentionRate) => ({
          value: f.value,
          interval: f.interval,
          intervalReason: f.intervalReason,
          previousValue: f.previousValue,
          delta: f.delta,
          deltaSuppressedReason: f.suppressedReason,
          significance: f.significance,
        });
        return {
          brandId: String(input.brandId),
          window: windowOf(analytics),
          score: {
            latest: delta.latestScore,
            asOfRunId: delta.asOfRunId,
            boundaryScore: delta.boundaryScore,
            delta: delta.delta,
            deltaSuppressedReason: delta.suppressedReason,
            span: delta.spanLabel,
            interval: delta.latestScoreInterval,
            intervalReason: delta.latestScoreIntervalReason,
            significance: delta.significance,
          },
          mentionRate: figure(mentionRate),
          averageRank: figure(avgRank),
          sentiment,
          sample: sampleOf(analytics),
        };
      }),
  );

  server.registerTool(
    'share_of_voice',
    {
      title: 'Share of voice',
      description:
        "How often answers mention the brand against its competitors over a window: each entity's share of all mentions with its 95% interval and change against the previous window, its mentions, average rank and score. The brand's own row has isUserBrand true.",
      inputSchema: {
        brandId: id('Brand'),
        ...windowInput,
        includeHidden: z
          .boolean()
          .default(false)
          .describe('Also list the competitors beyond the 10 most mentioned.'),
      },
      annotations: READ_ONLY,
    },
    (input) =>
      answer(`share_of_voice of brand ${input.brandId}`, async () => {
        const analytics = await sl.brands.analytics(input.brandId, windowQuery(input));
        const { visible, hidden } = analytics.shareOfVoice;
        const entity = (e: (typeof visible)[number]) => ({
          id: e.id,
          name: e.name,
          isUserBrand: e.isUserBrand,
          mentions: e.mentions,
          share: e.share,
          interval: e.interval,
          intervalReason: e.intervalReason,
          previousShare: e.previousShare,
          shareDelta: e.shareDelta,
          shareDeltaSuppressedReason: e.shareDeltaSuppressedReason,
          significance: e.shareDeltaSignificance,
          averageRank: e.averageRank,
          score: e.score,
        });
        return {
          brandId: String(input.brandId),
          window: windowOf(analytics),
          sample: sampleOf(analytics),
          entities: visible.map(entity),
          hiddenCount: hidden.length,
          ...(input.includeHidden ? { hidden: hidden.map(entity) } : {}),
        };
      }),
  );

  server.registerTool(
    'top_cited_sources',
    {
      title: 'Top cited sources',
      description:
        'The web domains answer engines cite most in their answers about the brand over a window: citations, share of all citations with its 95% interval, change against the previous window, distinct URLs.',
      inputSchema: {
        brandId: id('Brand'),
        ...windowInput,
        limit: z.int().min(1).max(100).default(10).describe('How many domains, most cited first.'),
      },
      annotations: READ_ONLY,
    },
    (input) =>
      answer(`top_cited_sources of brand ${input.brandId}`, async () => {
        const analytics = await sl.brands.analytics(input.brandId, windowQuery(input));
        const { sources } = analytics;
        return {
          brandId: String(input.brandId),
          window: windowOf(analytics),
          sample: sampleOf(analytics),
          totalDomains: sources.totalDomains,
          totalCitations: sources.totalCitations,
          sources: sources.items.slice(0, input.limit).map((s) => ({
            domain: s.domain,
            citations: s.count,
            share: s.share,
            interval: s.interval,
            intervalReason: s.intervalReason,
            previousShare: s.previousShare,
            shareDelta: s.shareDelta,
            shareDeltaSuppressedReason: s.shareDeltaSuppressedReason,
            significance: s.shareDeltaSignificance,
            urlCount: s.urlCount,
          })),
        };
      }),
  );

  server.registerTool(
    'platform_breakdown',
    {
      title: 'Per-platform breakdown',
      description:
        'The brand per answer engine (ChatGPT, Perplexity, Gemini, Claude, ...) and per surface (API, scraped UI, AI overview) over a window: score, mention rate with its 95% interval, and the answers each rests on.',
      inputSchema: { brandId: id('Brand'), ...windowInput },
      annotations: READ_ONLY,
    },
    (input) =>
      answer(`platform_breakdown of brand ${input.brandId}`, async () => {
        const analytics = await sl.brands.analytics(input.brandId, windowQuery(input));
        const { apiPlatforms, surfacePlatforms } = analytics.platforms;
        const row = (p: (typeof apiPlatforms)[number] | (typeof surfacePlatforms)[number]) => ({
          score: p.score,
          mentionRate: p.mentionRate,
          mentionRateInterval: p.mentionRateInterval,
          mentionRateIntervalReason: p.mentionRateIntervalReason,
          answers: p.totalAnswers,
          samples: p.totalSamples,
        });
        return {
          brandId: String(input.brandId),
          window: windowOf(analytics),
          sample: sampleOf(analytics),
          engines: apiPlatforms.map((p) => ({ model: p.model, label: p.modelLabel, ...row(p) })),
          surfaces: surfacePlatforms.map((p) => ({ surface: p.surface, label: p.surfaceLabel, ...row(p) })),
        };
      }),
  );

  /**
   * One page of a category's prompts, as list_prompts shows them. One page, not every one: a
   * category of thousands of prompts spent the key's minute on one call and answered megabytes.
   */
  const promptsOf = async (categoryId: string, includeArchived: boolean, page: number) => {
    const listed = await sl.categories
      .prompts(categoryId, { archived: includeArchived, page_size: PROMPTS_PAGE, page })
      .page();
    const prompts = listed.results.map((p) => ({
      id: p.id,
      text: p.text,
      isMonitored: p.isMonitored,
      latestScore: p.hasScoreData ? p.latestScore : null,
      previousScore: p.hasScoreData ? p.previousScore : null,
      lastRunId: p.lastRunId,
      lastRunAt: p.lastRunAt,
    }));
    return { prompts, more: listed.next !== null };
  };

  server.registerTool(
    'list_prompts',
    {
      title: 'List prompts',
      description: `The brand's categories and the prompts (questions asked of the answer engines) in each, with each prompt's latest and previous score; the prompts of the first ${EXPANDED_CATEGORIES} categories, or of the one categoryId names. Use a prompt id with prompt_changes.`,
      inputSchema: {
        brandId: id('Brand'),
        categoryId: id('Category')
          .optional()
          .describe(
            `Only this category's prompts (a category of the brand): for a brand of more than ${EXPANDED_CATEGORIES} categories.`,
          ),
        includeArchived: z.boolean().default(false).describe('Also list archived categories and prompts.'),
        page: z
          .int()
          .positive()
          .default(1)
          .describe(`Page of ${PROMPTS_PAGE} prompts of the category categoryId names.`),
      },
      annotations: READ_ONLY,
    },
    ({ brandId, categoryId, includeArchived, page }) =>
      answer(`list_prompts of brand ${brandId}`, async () => {
        if (page > 1 && categoryId === undefined) {
          throw new Refused(`page ${page} is a page of one category's prompts: give its categoryId`);
        }
        const listed = [];
        for await (const category of sl.brands.categories(brandId, {
          archived: includeArchived,
          page_size: 100,
        })) {
          listed.push(category);
        }
        const chosen = categoryId === undefined ? listed : listed.filter((c) => c.id === String(categoryId));
        if (categoryId !== undefined && chosen.length === 0) {
          throw new Refused(
            `category ${categoryId} is not a ${includeArchived ? '' : 'live '}category of brand ${brandId}`,
          );
        }
        // Each listed category costs a request of the key's rate limit at least: a brand of many
        // categories would spend the minute's quota, and every retry with it.
        const categories = [];
        let more = false;
        for (const [index, category] of chosen.entries()) {
          const listed =
            index < EXPANDED_CATEGORIES ? await promptsOf(category.id, includeArchived, page) : null;
          more ||= listed?.more === true;
          categories.push({
            id: category.id,
            name: category.name,
            isArchived: category.isArchived,
            promptCount: category.promptCount,
            prompts: listed?.prompts ?? null,
          });
        }
        const notes = [
          ...(chosen.length > EXPANDED_CATEGORIES
            ? [
                `prompts listed for the first ${EXPANDED_CATEGORIES} of ${chosen.length} categories (by name; the others' prompts are null): call list_prompts with a categoryId for another's`,
              ]
            : []),
          ...(more
            ? [
                `page ${page} of ${PROMPTS_PAGE} prompts a category: call list_prompts with a categoryId and page ${page + 1} for the next`,
              ]
            : []),
        ];
        return {
          brandId: String(brandId),
          basis: "latestScore: the prompt's latest scored run; previousScore: the scored run before it",
          ...(notes.length > 0 ? { note: notes.join('; ') } : {}),
          categories,
        };
      }),
  );

  server.registerTool(
    'prompt_changes',
    {
      title: 'Prompt changes',
      description:
        'What changed for one prompt between its latest scored run and the one before: engines that started or stopped mentioning the brand, rank shift, competitors appearing or disappearing, sentiment shift. Prompt ids come from list_prompts.',
      inputSchema: { promptId: id('Prompt') },
      annotations: READ_ONLY,
    },
    ({ promptId }) =>
      answer(`prompt_changes of prompt ${promptId}`, async () => {
        const feed = await sl.prompts.changes(promptId);
        return {
          promptId: String(promptId),
          comparison: feed.hasBaseline
            ? `the prompt's latest scored run against run ${feed.comparedToRunId}`
            : 'the prompt has one scored run: nothing to compare with',
          ...feed,
        };
      }),
  );

  server.registerTool(
    'list_reports',
    {
      title: 'List reports',
      description:
        "The brand's generated reports (executive summaries, in-depth reports, ...), newest first, with their status and, once complete, a download URL (fetch it with the same API key).",
      inputSchema: {
        brandId: id('Brand'),
        type: reportType
          .optional()
          .describe('Only this report type, e.g. executive_summary_v2 or in_depth_report.'),
        page: z.int().positive().default(1).describe('Page of 25 reports.'),
      },
      annotations: READ_ONLY,
    },
    ({ brandId, type, page }) =>
      answer(`list_reports of brand ${brandId}`, async () => {
        const list = await sl.reports.list(brandId, { type, page }).page();
        return {
          brandId: String(brandId),
          count: list.count,
          page,
          hasMore: list.next !== null,
          canViewReports: list.permissions.canViewReports,
          reports: list.results.map(reportOf),
        };
      }),
  );

  server.registerTool(
    'latest_report',
    {
      title: 'Latest report',
      description:
        "The brand's newest report of one type, whatever its status, with its download URL once complete.",
      inputSchema: {
        brandId: id('Brand'),
        type: reportType.describe('The report type, e.g. executive_summary_v2 or in_depth_report.'),
      },
      annotations: READ_ONLY,
    },
    ({ brandId, type }) =>
      answer(`latest_report ${type} of brand ${brandId}`, async () =>
        reportOf(await sl.reports.latest(brandId, type)),
      ),
  );

  server.registerTool(
    'report_download_link',
    {
      title: 'Report download link',
      description:
        'Where to download one report: the URL of the rendered file (PDF, else HTML), which answers to the same API key header. Null with the status while the report is not complete.',
      inputSchema: { reportId: id('Report') },
      annotations: READ_ONLY,
    },
    ({ reportId }) =>
      answer(`report_download_link of report ${reportId}`, async () => {
        const report = reportOf(await sl.reports.get(reportId));
        return {
          ...report,
          note:
            report.downloadUrl === null
              ? report.status === 'queued' || report.status === 'running'
                ? `The report is ${report.status}: there is nothing to download yet.`
                : `The report is ${report.status}: it has no file to download.`
              : 'Send the API key (Authorization: Bearer <key>) with the download request.',
        };
      }),
  );

  server.registerTool(
    'recommendations',
    {
      title: 'Recommendations',
      description:
        "What to do to improve the brand's visibility: its recommendations, highest priority first, with rationale, suggested action, expected impact and measured outcomes. Pro plan or higher.",
      inputSchema: {
        brandId: id('Brand'),
        limit: z.int().min(1).max(100).default(10).describe('How many, highest priority first.'),
      },
      annotations: READ_ONLY,
    },
    ({ brandId, limit }) =>
      answer(`recommendations of brand ${brandId}`, async () => {
        const list = await sl.brands.recommendations(brandId, { page_size: limit }).page();
        return {
          brandId: String(brandId),
          count: list.count,
          recommendations: list.results.map((r) => ({
            id: r.id,
            title: r.title,
            recType: r.recType,
            status: r.status,
            priority: r.priority,
            score: r.score,
            why: r.why,
            suggestedAction: r.suggestedAction,
            expectedImpact: r.expectedImpact,
            measurementPlan: r.measurementPlan,
            artifacts: r.artifacts.map((a) => ({
              id: a.id,
              artifactType: a.artifactType,
              title: a.title,
              status: a.status,
            })),
            outcomes: r.outcomes.map((o) => ({
              metricName: o.metricName,
              metricSubject: o.metricSubject,
              baselineValue: o.baselineValue,
              currentValue: o.currentValue,
              baselineAt: o.baselineAt,
              measuredAt: o.measuredAt,
              measurementWindowDays: o.measurementWindowDays,
              isMeasured: o.isMeasured,
            })),
          })),
        };
      }),
  );

  return server;
}
