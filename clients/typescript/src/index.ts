// The ergonomic layer: one namespace per resource, every endpoint of the API as a method, typed from
// the OpenAPI document (schema.ts). Lists are Pagers (iterate items, fetch one page, or `csv()`);
// the run's responses are walked through `responsesNext`. Analytics, score history and category
// deltas answer CSV text when called with `format: 'csv'`.
import { type ClientOptions, Pager, poll, Transport, type WaitOptions } from './http.ts';
import type { components, operations } from './schema.ts';

export * from './errors.ts';
export type { ClientOptions, Envelope, WaitOptions } from './http.ts';
export { Pager, parseRetryAfter } from './http.ts';
export type { components, operations, paths } from './schema.ts';

type Schemas = components['schemas'];
export type Brand = Schemas['Brand'];
export type Category = Schemas['Category'];
export type Prompt = Schemas['Prompt'];
export type RunListItem = Schemas['RunListItem'];
export type RunStatus = Schemas['RunStatus'];
export type RunDetail = Schemas['RunDetail'];
export type LightResponse = Schemas['LightResponse'];
export type FullResponse = Schemas['FullResponse'];
export type Analytics = Schemas['Analytics'];
export type ScoreHistory = Schemas['ScoreHistory'];
export type CategoryDeltas = Schemas['CategoryDeltas'];
export type Recommendation = Schemas['Recommendation'];
export type PromptChanges = Schemas['PromptChanges'];
export type ReportArtifact = Schemas['ReportArtifact'];
export type ReportList = Schemas['ReportList'];

/** The query parameters of an operation, as the document declares them. */
export type QueryOf<K extends keyof operations> = NonNullable<operations[K]['parameters']['query']>;
/** The JSON body an operation answers with 200. */
export type ResultOf<K extends keyof operations> = operations[K]['responses'][200] extends {
  content: { 'application/json': infer T };
}
  ? T
  : never;

/** The parameters of a call answered as JSON (the default). */
export type AsJson<Q> = Omit<Q, 'format'> & { format?: 'json' };
/** The parameters of a call answered as CSV text (docs/csv.md); `block` picks an analytics block. */
export type AsCsv<Q> = Omit<Q, 'format'> & { format: 'csv' };

/** Path ids are integers; bodies carry them as strings. Either is accepted. */
export type Id = number | string;

/** An id as one path segment; `.` and `..` would name another path (`reports.get('..')` read a brand). */
const seg = (id: Id) => {
  const text = String(id);
  if (text === '' || text === '.' || text === '..')
    throw new TypeError(`Sightline: ${JSON.stringify(text)} is not an id.`);
  return encodeURIComponent(text);
};

/** Run states after which a run does not change any more. */
const RUN_DONE = new Set(['completed', 'failed', 'cancelled']);
/** Report states after which an artifact does not change any more. */
const REPORT_DONE = new Set(['complete', 'failed', 'aborted']);

/** A downloaded report file. `body` and `bytes()` read the same stream: use one of them, once. */
export interface ReportFile {
  contentType: string;
  /**
   * From Content-Disposition, e.g. `acme-in_depth_report-2026-03-14.pdf`, in the brand's own
   * spelling when the server gives it (`filename*`, e.g. `café-…`); null when absent. Always a
   * bare name: a directory part the header carries (`../x.pdf`) is dropped.
   */
  filename: string | null;
  body: ReadableStream<Uint8Array>;
  bytes(): Promise<Uint8Array>;
}

export class Sightline {
  readonly brands: Brands;
  readonly categories: Categories;
  readonly runs: Runs;
  readonly responses: Responses;
  readonly prompts: Prompts;
  readonly reports: Reports;

  constructor(options: ClientOptions = {}) {
    const t = new Transport(options);
    this.brands = new Brands(t);
    this.categories = new Categories(t);
    this.runs = new Runs(t);
    this.responses = new Responses(t);
    this.prompts = new Prompts(t);
    this.reports = new Reports(t);
  }
}

class Resource {
  protected readonly t: Transport;
  constructor(transport: Transport) {
    this.t = transport;
  }
  /** The JSON body, or the CSV text when the parameters ask for it. */
  protected read(path: string, params: { format?: 'json' | 'csv' }): Promise<unknown> {
    return params.format === 'csv' ? this.t.csv(path, params) : this.t.json(path, params);
  }
}

export class Brands extends Resource {
  list(params: QueryOf<'listBrands'> = {}): Pager<ResultOf<'listBrands'>> {
    return new Pager(this.t, '/api/brands/', params);
  }
  get(id: Id): Promise<ResultOf<'getBrand'>> {
    return this.t.json(`/api/brands/${seg(id)}/`);
  }
  /** Needs no key for the public demo brand (9). */
  categories(id: Id, params: QueryOf<'listBrandCategories'> = {}): Pager<ResultOf<'listBrandCategories'>> {
    return new Pager(this.t, `/api/brands/${seg(id)}/categories/`, params);
  }
  analytics(id: Id, params: AsCsv<QueryOf<'getBrandAnalytics'>>): Promise<string>;
  analytics(id: Id, params?: AsJson<QueryOf<'getBrandAnalytics'>>): Promise<ResultOf<'getBrandAnalytics'>>;
  analytics(id: Id, params: QueryOf<'getBrandAnalytics'> = {}): Promise<unknown> {
    return this.read(`/api/brands/${seg(id)}/analytics/`, params);
  }
  scoreHistory(id: Id, params: AsCsv<QueryOf<'getBrandScoreHistory'>>): Promise<string>;
  scoreHistory(
    id: Id,
    params?: AsJson<QueryOf<'getBrandScoreHistory'>>,
  ): Promise<ResultOf<'getBrandScoreHistory'>>;
  scoreHistory(id: Id, params: QueryOf<'getBrandScoreHistory'> = {}): Promise<unknown> {
    return this.read(`/api/brands/${seg(id)}/score-history/`, params);
  }
  categoryDeltas(id: Id, params: AsCsv<QueryOf<'getBrandCategoryDeltas'>>): Promise<string>;
  categoryDeltas(
    id: Id,
    params?: AsJson<QueryOf<'getBrandCategoryDeltas'>>,
  ): Promise<ResultOf<'getBrandCategoryDeltas'>>;
  categoryDeltas(id: Id, params: QueryOf<'getBrandCategoryDeltas'> = {}): Promise<unknown> {
    return this.read(`/api/brands/${seg(id)}/category-deltas/`, params);
  }
  /** Pro plan or higher: a lower plan is a SightlinePermissionError, not an empty list. */
  recommendations(
    id: Id,
    params: QueryOf<'listBrandRecommendations'> = {},
  ): Pager<ResultOf<'listBrandRecommendations'>> {
    return new Pager(this.t, `/api/brands/${seg(id)}/recommendations/`, params);
  }
  runs(id: Id, params: QueryOf<'listBrandRuns'> = {}): Pager<ResultOf<'listBrandRuns'>> {
    return new Pager(this.t, `/api/brands/${seg(id)}/runs/`, params);
  }
}

export class Categories extends Resource {
  prompts(id: Id, params: QueryOf<'listCategoryPrompts'> = {}): Pager<ResultOf<'listCategoryPrompts'>> {
    return new Pager(this.t, `/api/categories/${seg(id)}/prompts/`, params);
  }
  analytics(id: Id, params: AsCsv<QueryOf<'getCategoryAnalytics'>>): Promise<string>;
  analytics(
    id: Id,
    params?: AsJson<QueryOf<'getCategoryAnalytics'>>,
  ): Promise<ResultOf<'getCategoryAnalytics'>>;
  analytics(id: Id, params: QueryOf<'getCategoryAnalytics'> = {}): Promise<unknown> {
    return this.read(`/api/categories/${seg(id)}/analytics/`, params);
  }
  scoreHistory(id: Id, params: AsCsv<QueryOf<'getCategoryScoreHistory'>>): Promise<string>;
  scoreHistory(
    id: Id,
    params?: AsJson<QueryOf<'getCategoryScoreHistory'>>,
  ): Promise<ResultOf<'getCategoryScoreHistory'>>;
  scoreHistory(id: Id, params: QueryOf<'getCategoryScoreHistory'> = {}): Promise<unknown> {
    return this.read(`/api/categories/${seg(id)}/score-history/`, params);
  }
  runs(id: Id, params: QueryOf<'listCategoryRuns'> = {}): Pager<ResultOf<'listCategoryRuns'>> {
    return new Pager(this.t, `/api/categories/${seg(id)}/runs/`, params);
  }
}

export class Runs extends Resource {
  /** One page of the run's responses (default 200, at most 500) with its whole-run aggregates. */
  get(id: Id, params: AsJson<QueryOf<'getRun'>> = {}): Promise<RunDetail> {
    return this.t.json(`/api/runs/${seg(id)}/`, params);
  }
  /** The run's responses from the page `params` names to the last, as one CSV document. */
  csv(id: Id, params: Omit<QueryOf<'getRun'>, 'format'> = {}): Promise<string> {
    return this.t.csv(`/api/runs/${seg(id)}/`, params);
  }
  /** Every response row of the run, following `responsesNext` from the page `params` names. */
  async *responses(
    id: Id,
    params: AsJson<QueryOf<'getRun'>> = {},
  ): AsyncGenerator<LightResponse, void, undefined> {
    let run = await this.get(id, params);
    yield* run.responses;
    const seen = this.t.walk(`/api/runs/${seg(id)}/`, params);
    while (run.responsesNext !== null) {
      seen(run.responsesNext);
      run = await this.t.json<RunDetail>(run.responsesNext);
      yield* run.responses;
    }
  }
  status(id: Id): Promise<RunStatus> {
    return this.t.json(`/api/runs/${seg(id)}/status/`);
  }
  /** Polls the status endpoint until the run is completed, failed or cancelled, and returns that status. */
  waitUntilDone(id: Id, options: WaitOptions = {}): Promise<RunStatus> {
    return poll(
      () => this.status(id),
      (s) => RUN_DONE.has(s.status),
      options,
      `run ${id}`,
    );
  }
}

export class Responses extends Resource {
  get(id: Id, params: QueryOf<'getResponse'> = {}): Promise<FullResponse> {
    return this.t.json(`/api/responses/${seg(id)}/`, params);
  }
}

export class Prompts extends Resource {
  changes(id: Id): Promise<PromptChanges> {
    return this.t.json(`/api/prompts/${seg(id)}/changes/`);
  }
}

export class Reports extends Resource {
  /** The brand's artifacts; `pages()` gives the envelopes with their `permissions`. */
  list(brandId: Id, params: QueryOf<'listBrandReports'> = {}): Pager<ReportList> {
    return new Pager(this.t, `/api/brands/${seg(brandId)}/reports/`, params);
  }
  /** The newest artifact of `type` for the brand, whatever its status. */
  latest(brandId: Id, type: string): Promise<ReportArtifact> {
    return this.t.json(`/api/brands/${seg(brandId)}/reports/latest/`, { type });
  }
  /** With `brandId`, a 404 also when the artifact belongs to another brand. */
  get(id: Id, options: { brandId?: Id } = {}): Promise<ReportArtifact> {
    const path =
      options.brandId === undefined
        ? `/api/reports/${seg(id)}/`
        : `/api/brands/${seg(options.brandId)}/reports/${seg(id)}/`;
    return this.t.json(path);
  }
  /** Polls the artifact until it is complete, failed or aborted, and returns it. */
  waitUntilComplete(id: Id, options: WaitOptions = {}): Promise<ReportArtifact> {
    return poll(
      () => this.get(id),
      (a) => REPORT_DONE.has(a.status),
      options,
      `report ${id}`,
    );
  }
  /** The rendered file: the PDF when there is one, else the HTML; `{ pdf: true }` insists on the PDF. */
  async download(id: Id, options: { pdf?: boolean } = {}): Promise<ReportFile> {
    const path = downloadPath(id, options);
    const response = await this.t.send(path);
    const body = response.body;
    if (body === null) throw new TypeError(`report ${id}: the download has no body`);
    let read = false;
    const disposition = response.headers.get('content-disposition') ?? '';
    return {
      contentType: response.headers.get('content-type') ?? 'application/octet-stream',
      filename: filenameOf(disposition),
      body,
      bytes: async () => {
        // Read once: a second read found the stream closed and returned an empty file.
        if (body.locked || read) throw new TypeError(`report ${id}: the download was read already`);
        read = true;
        const chunks = [];
        for await (const chunk of this.t.chunks(this.t.url(path), body)) chunks.push(chunk);
        const bytes = new Uint8Array(chunks.reduce((size, chunk) => size + chunk.length, 0));
        let at = 0;
        for (const chunk of chunks) {
          bytes.set(chunk, at);
          at += chunk.length;
        }
        return bytes;
      },
    };
  }
  /** Node only: streams the file to `path` (node:fs is imported here, so the rest stays fetch-only). */
  async downloadTo(
    id: Id,
    path: string,
    options: { pdf?: boolean } = {},
  ): Promise<Pick<ReportFile, 'contentType' | 'filename'>> {
    const { chmod, readlink, realpath, rename, rm, stat, writeFile } = await import('node:fs/promises');
    const { dirname, join, resolve } = await import('node:path');
    // Written beside the file and renamed over it once whole: a connection lost mid-way leaves no
    // cut-off file where a complete one is expected, and an earlier file there stays as it was.
    // Through a symbolic link to the file it names (a link whose file is not there yet names
    // where it is to be), with the permissions of a file already there (a report kept private
    // stays so), under a short name whatever the target's.
    const target = await realpath(path).catch(() =>
      readlink(path).then(
        (to) => resolve(dirname(path), to),
        () => path,
      ),
    );
    const existing = await stat(target).catch(() => undefined);
    // Refused before asking, not after the whole body was written beside it.
    if (existing?.isDirectory()) {
      throw new TypeError(`Sightline: ${path} is a directory, not a file to write.`);
    }
    const mode = existing && existing.mode & 0o777;
    const file = await this.download(id, options);
    const partial = join(dirname(target), `.sightline-${Math.random().toString(36).slice(2, 10)}.part`);
    try {
      // Created no wider than the file it replaces (a private report is never readable by others
      // while it comes), then set exactly: a mode given at creation passes through the umask.
      await writeFile(partial, this.t.chunks(this.t.url(downloadPath(id, options)), file.body), {
        mode: mode ?? 0o666,
      });
      if (mode !== undefined) await chmod(partial, mode);
      await rename(partial, target);
    } catch (error) {
      // A file that could not be opened never read the body: let the connection go.
      await file.body.cancel().catch(() => undefined);
      await rm(partial, { force: true });
      throw error;
    }
    return { contentType: file.contentType, filename: file.filename };
  }
}

const downloadPath = (id: Id, options: { pdf?: boolean }) =>
  `/api/reports/${seg(id)}/${options.pdf ? 'download.pdf' : 'download/'}`;

/**
 * RFC 6266: `filename*` (UTF-8, percent-encoded) when present and well formed, else `filename`;
 * as a bare name (RFC 6266 §4.3: a recipient drops any path), so joining it to a folder stays in it.
 */
function filenameOf(disposition: string): string | null {
  const extended = /filename\*=UTF-8''([^;\s]+)/i.exec(disposition)?.[1];
  if (extended) {
    try {
      const name = bareName(decodeURIComponent(extended));
      if (name !== null) return name;
    } catch {
      // A malformed escape: the plain name is still there.
    }
  }
  return bareName(/filename="([^"]*)"/.exec(disposition)?.[1] ?? '');
}

function bareName(name: string): string | null {
  // Control characters dropped: a name that holds a line break or NUL is no file name to write.
  const last = (name.split(/[\\/]/).pop() ?? '').replace(/\p{Cc}/gu, '');
  return last === '' || last === '.' || last === '..' ? null : last;
}
