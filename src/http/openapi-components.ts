import type { FastifyDynamicSwaggerOptions } from '@fastify/swagger';
import type { RouteAccess } from '../auth/gate.ts';
import { type CsvRows, csvMedia } from './csv.ts';
import { CACHE_CONTROL } from './errors.ts';

// @fastify/swagger hoists the named schemas (those with an $id, src/schemas) nested in a route's
// schemas into components, but writes a route's own top-level body schema inline. These two hooks
// give the top-level ones the same treatment: the route's response is marked with its name, then
// moved into components and referenced, so a generated client has one `RunDetail` type, not an
// anonymous shape per operation.

/** Either key scheme (app.ts's securitySchemes): the document-wide requirement. */
export const KEY_SECURITY: Record<string, string[]>[] = [{ bearer: [] }, { apiKey: [] }];

const MARK = 'x-component';
// A route that also answers CSV (src/http/csv.ts) gets text/csv beside its JSON 200 body, and
// when its CSV carries the page's envelope as headers, those headers.
const CSV_MARK = 'x-csv';
const PAGED_MARK = 'x-csv-paged';

type Json = Record<string, unknown>;

export const markNamedResponses: NonNullable<FastifyDynamicSwaggerOptions['transform']> = ({
  schema,
  url,
  route,
}) => {
  const response = (schema as { response?: Record<string, Json> } | undefined)?.response;
  if (!response) return { schema, url };
  const config = route?.config as { csv?: CsvRows; access?: RouteAccess } | undefined;
  const csv = config?.csv;
  // A route some requests may read without a key (the public demo brand's) says so: the empty
  // requirement beside the two key schemes.
  const security = config?.access?.allowAnonymous ? { security: [{}, ...KEY_SECURITY] } : {};
  const marked = Object.fromEntries(
    Object.entries(response).map(([status, body]) => {
      const named = typeof body?.$id === 'string' ? { ...body, [MARK]: body.$id } : body;
      if (!csv || status !== '200') return [status, named];
      const paged = csv.total !== undefined || csv.next !== undefined || csv.previous !== undefined;
      return [status, { ...named, [CSV_MARK]: csvMedia(csv), ...(paged ? { [PAGED_MARK]: true } : {}) }];
    }),
  );
  return { schema: { ...schema, ...security, response: marked } as typeof schema, url };
};

// The headers the service sets (decisions.md, *Response headers in the OpenAPI document*), declared so a client
// generator and a reader of the document see them; `$ref`d from every response that carries one.
const text = (description: string, required = false) => ({
  description,
  schema: { type: 'string' },
  ...(required ? { required } : {}),
});
const HEADERS: Record<string, Json> = {
  'X-Request-Id': text(
    'The id of this request, as the service logged it; quote it when reporting a problem.',
    true,
  ),
  'Cache-Control': text(
    `\`${CACHE_CONTROL}\`: answers are one organization’s, never kept by a shared cache.`,
    true,
  ),
  'RateLimit-Policy': text('The key’s limit: `"default";q={requests};w=60`.'),
  RateLimit: text('What is left of it: `"default";r={remaining};t={seconds until the window resets}`.'),
  'WWW-Authenticate': text('`Bearer realm="api"`: how to present a key.', true),
  'Retry-After': text('Seconds to wait before asking again.', true),
  Vary: text('`Accept`: the JSON and the CSV answer of one URL are different answers.', true),
  'X-Total-Count': text('The CSV answer’s row total (the JSON body’s `count`).'),
  Link: text('The CSV answer’s neighbouring pages: `<url>; rel="next"`, `<url>; rel="prev"`.'),
  'Content-Disposition': text('The file name to save the download under.', true),
  'X-Content-Type-Options': text('`nosniff`: the download is its declared type.', true),
};

/**
 * The headers a response of `status` carries. `csv`: the route also answers CSV, `paged` with its
 * page's total and links as headers; `file`: a download.
 */
function headersOf(status: string, route: { csv: boolean; paged: boolean; file: boolean }): string[] {
  const names = ['X-Request-Id', 'Cache-Control'];
  // Node's own refusals (408, 431) are written before any key is read.
  if (status === '408' || status === '431') return names;
  // Counted against the key's limit once the key is known: every answer but a missing or bad key.
  if (status === '401') names.push('WWW-Authenticate');
  else names.push('RateLimit-Policy', 'RateLimit');
  if (status === '429' || status === '503') names.push('Retry-After');
  if (status === '200' && route.csv) names.push('Vary');
  if (status === '200' && route.paged) names.push('X-Total-Count', 'Link');
  if (status === '200' && route.file) names.push('Content-Disposition', 'X-Content-Type-Options');
  return names;
}

export const hoistNamedResponses: NonNullable<FastifyDynamicSwaggerOptions['transformObject']> = (
  documentObject,
) => {
  const document = (documentObject as { openapiObject: Json }).openapiObject as {
    paths?: Record<
      string,
      Record<
        string,
        { responses?: Record<string, { content?: Record<string, Json>; headers?: Record<string, Json> }> }
      >
    >;
    components?: { schemas?: Record<string, Json>; headers?: Record<string, Json> };
  };
  const schemas: Record<string, Json> = { ...document.components?.schemas };
  document.components = { ...document.components, schemas, headers: HEADERS };
  for (const operations of Object.values(document.paths ?? {})) {
    for (const operation of Object.values(operations)) {
      const ok = Object.entries(operation.responses?.['200']?.content ?? {});
      const marked = (mark: string) =>
        ok.some(([, media]) => mark in ((media.schema as Json | undefined) ?? {}));
      const route = {
        csv: marked(CSV_MARK),
        paged: marked(PAGED_MARK),
        file: ok.some(([type]) => type !== 'application/json' && type !== 'text/csv'),
      };
      for (const [status, response] of Object.entries(operation.responses ?? {})) {
        response.headers = Object.fromEntries(
          headersOf(status, route).map((name) => [name, { $ref: `#/components/headers/${name}` }]),
        );
        for (const media of Object.values(response.content ?? {})) {
          if (!media.schema) continue;
          const { [CSV_MARK]: csvBody, [PAGED_MARK]: _paged, ...body } = media.schema as Json;
          if (csvBody && response.content) response.content['text/csv'] = csvBody as Json;
          media.schema = body;
          const name = body[MARK];
          if (typeof name !== 'string') continue;
          const { [MARK]: _, ...component } = body;
          schemas[name] = component;
          media.schema = { $ref: `#/components/schemas/${name}` };
        }
      }
    }
  }
  return document as never;
};
