import type { Plan } from '../../src/db/organizations.ts';
import type { Scope } from '../../src/domain/scopes.ts';
import type { DemoFixtures } from './demo.ts';

// Every keyed GET endpoint of the contract, in one table the cross-cutting suites iterate over
// (security matrix, bad input, OpenAPI). Adding an endpoint to the service means adding it here;
// the OpenAPI suite fails for a documented GET route that this table lacks.

/** Path ids a template may name, filled from the demo fixtures. */
export type PathId = 'brand_id' | 'category_id' | 'run_id' | 'response_id' | 'prompt_id' | 'artifact_id';

export interface Endpoint {
  /** Path template with `{id}` segments, as the contract writes it (trailing slash included). */
  path: string;
  scope: Scope;
  /** The lowest plan allowed (recommendations need pro). */
  minimumPlan?: Plan;
  /** The acme objects whose ids fill the template. */
  ids(f: DemoFixtures): Partial<Record<PathId, number>>;
  /** A valid query string (without `?`) that answers 200 on the demo data. */
  query: string | ((f: DemoFixtures) => string);
  /** Query parameters the endpoint reads. */
  params: readonly string[];
  /** A query the endpoint answers with 400 when its objects are visible to the caller. */
  invalidQuery?: string;
  /** Streams a file (PDF or HTML) rather than JSON. */
  download?: boolean;
  /** The demo brand's variant of this endpoint answers without a key. */
  anonymousForDemoBrand?: boolean;
  /**
   * Also answers text/csv (docs/csv.md): the JSON path of its rows for each `block` (the first is
   * the default), and for a body keyed by id the column of the key.
   */
  csv?: { rows: readonly string[]; key?: string };
}

const PAGE = ['page', 'page_size', 'format'] as const;
const WINDOW = ['range', 'start', 'end'] as const;
const LIST_CSV = { rows: ['results'] };
const ANALYTICS_CSV = {
  rows: [
    'metrics',
    'shareOfVoice.visible',
    'shareOfVoice.hidden',
    'sources.items',
    'platforms.apiPlatforms',
    'platforms.surfacePlatforms',
    'coverage',
    'window',
  ],
};
const HISTORY_CSV = { rows: ['points'] };

const brand = (f: DemoFixtures) => ({ brand_id: f.brandId });
const category = (f: DemoFixtures) => ({ category_id: f.categoryId });
const reportBrand = (f: DemoFixtures) => ({ brand_id: f.report.brandId });
const report = (f: DemoFixtures) => ({ artifact_id: f.report.id });

export const ENDPOINTS: readonly Endpoint[] = [
  {
    path: '/api/brands/',
    scope: 'brands:read',
    ids: () => ({}),
    query: 'sort=name&page_size=2',
    params: ['archived', 'monitoring', 'q', 'sort', ...PAGE],
    invalidQuery: 'sort=sideways',
    csv: LIST_CSV,
  },
  { path: '/api/brands/{brand_id}/', scope: 'brands:read', ids: brand, query: '', params: [] },
  {
    path: '/api/brands/{brand_id}/score-history/',
    scope: 'brands:read',
    ids: brand,
    query: 'limit=10',
    params: ['limit', 'since', 'format', ...WINDOW],
    invalidQuery: 'limit=abc',
    csv: HISTORY_CSV,
  },
  {
    path: '/api/brands/{brand_id}/category-deltas/',
    scope: 'brands:read',
    ids: brand,
    query: 'since=all',
    params: ['since', 'format'],
    invalidQuery: 'since=yesterday',
    csv: { rows: ['deltas'], key: 'categoryId' },
  },
  {
    path: '/api/brands/{brand_id}/analytics/',
    scope: 'brands:read',
    ids: brand,
    query: 'range=7d',
    params: [...WINDOW, 'format', 'block'],
    invalidQuery: 'range=13d',
    csv: ANALYTICS_CSV,
  },
  {
    path: '/api/brands/{brand_id}/recommendations/',
    scope: 'brands:read',
    minimumPlan: 'pro',
    ids: brand,
    query: 'page_size=2',
    params: PAGE,
    invalidQuery: 'page=0',
    csv: LIST_CSV,
  },
  {
    path: '/api/brands/{brand_id}/categories/',
    scope: 'brands:read',
    ids: brand,
    query: 'archived=true',
    params: ['archived', ...PAGE],
    invalidQuery: 'archived=maybe',
    anonymousForDemoBrand: true,
    csv: LIST_CSV,
  },
  {
    path: '/api/categories/{category_id}/prompts/',
    scope: 'brands:read',
    ids: category,
    query: 'page_size=3',
    params: PAGE,
    invalidQuery: 'page_size=abc',
    csv: LIST_CSV,
  },
  {
    path: '/api/categories/{category_id}/score-history/',
    scope: 'brands:read',
    ids: category,
    query: 'range=90d',
    params: [...WINDOW, 'format'],
    invalidQuery: 'range=13d',
    csv: HISTORY_CSV,
  },
  {
    path: '/api/categories/{category_id}/analytics/',
    scope: 'brands:read',
    ids: category,
    query: 'range=90d',
    params: [...WINDOW, 'format', 'block'],
    invalidQuery: 'range=custom&start=2025-02-10&end=2025-02-01',
    csv: ANALYTICS_CSV,
  },
  {
    path: '/api/brands/{brand_id}/runs/',
    scope: 'runs:read',
    ids: brand,
    query: 'page=2&page_size=5',
    params: PAGE,
    invalidQuery: 'page=-1',
    csv: LIST_CSV,
  },
  {
    path: '/api/categories/{category_id}/runs/',
    scope: 'runs:read',
    ids: category,
    query: 'page_size=5',
    params: PAGE,
    invalidQuery: 'page=1.5',
    csv: LIST_CSV,
  },
  {
    path: '/api/runs/{run_id}/',
    scope: 'runs:read',
    ids: (f) => ({ run_id: f.runId }),
    query: 'page_size=20',
    params: PAGE,
    invalidQuery: 'page_size=0',
    csv: { rows: ['responses'] },
  },
  {
    path: '/api/runs/{run_id}/status/',
    scope: 'runs:read',
    ids: (f) => ({ run_id: f.runId }),
    query: '',
    params: [],
  },
  {
    path: '/api/responses/{response_id}/',
    scope: 'runs:read',
    ids: (f) => ({ response_id: f.responseId }),
    query: 'includeHtml=true',
    params: ['includeHtml'],
    invalidQuery: 'includeHtml=maybe',
  },
  {
    path: '/api/prompts/{prompt_id}/changes/',
    scope: 'runs:read',
    ids: (f) => ({ prompt_id: f.promptId }),
    query: '',
    params: [],
  },
  {
    path: '/api/brands/{brand_id}/reports/',
    scope: 'reports:read',
    ids: reportBrand,
    query: (f) => `reportType=${f.report.type}&page_size=5`,
    params: ['categoryId', 'reportType', 'type', ...PAGE],
    invalidQuery: 'categoryId=abc',
    csv: LIST_CSV,
  },
  {
    path: '/api/brands/{brand_id}/reports/latest/',
    scope: 'reports:read',
    ids: reportBrand,
    query: (f) => `type=${f.report.type}`,
    params: ['type'],
    // `type` is required.
    invalidQuery: '',
  },
  {
    path: '/api/brands/{brand_id}/reports/{artifact_id}/',
    scope: 'reports:read',
    ids: (f) => ({ ...reportBrand(f), ...report(f) }),
    query: '',
    params: [],
  },
  { path: '/api/reports/{artifact_id}/', scope: 'reports:read', ids: report, query: '', params: [] },
  {
    path: '/api/reports/{artifact_id}/download/',
    scope: 'reports:read',
    ids: report,
    query: '',
    params: [],
    download: true,
  },
  {
    path: '/api/reports/{artifact_id}/download.pdf',
    scope: 'reports:read',
    ids: report,
    query: '',
    params: [],
    download: true,
  },
];

/** The path ids a template names, in order. */
export function pathIds(endpoint: Endpoint): PathId[] {
  return [...endpoint.path.matchAll(/\{(\w+)\}/g)].map((m) => m[1] as PathId);
}

/** Fills a template's ids; `override` replaces some of them (with raw text, e.g. odd ids). */
export function pathFor(
  endpoint: Endpoint,
  f: DemoFixtures,
  override: Partial<Record<PathId, string | number>> = {},
): string {
  const ids: Partial<Record<PathId, string | number>> = { ...endpoint.ids(f), ...override };
  return endpoint.path.replace(/\{(\w+)\}/g, (_, name: PathId) => {
    const id = ids[name];
    if (id === undefined) throw new Error(`no fixture id for ${name} in ${endpoint.path}`);
    return String(id);
  });
}

export function validQuery(endpoint: Endpoint, f: DemoFixtures): string {
  return typeof endpoint.query === 'function' ? endpoint.query(f) : endpoint.query;
}

/** The endpoint's URL for the demo fixtures, with its valid example query unless one is given. */
export function urlFor(endpoint: Endpoint, f: DemoFixtures, query = validQuery(endpoint, f)): string {
  const path = pathFor(endpoint, f);
  return query ? `${path}?${query}` : path;
}

/** A short label for test names: the template itself. */
export const label = (endpoint: Endpoint) => `GET ${endpoint.path}`;
