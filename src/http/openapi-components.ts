import type { FastifyDynamicSwaggerOptions } from '@fastify/swagger';
import type { RouteAccess } from '../auth/gate.ts';
import { type CsvRows, csvMedia } from './csv.ts';

// @fastify/swagger hoists the named schemas (those with an $id, src/schemas) nested in a route's
// schemas into components, but writes a route's own top-level body schema inline. These two hooks
// give the top-level ones the same treatment: the route's response is marked with its name, then
// moved into components and referenced, so a generated client has one `RunDetail` type, not an
// anonymous shape per operation.

/** Either key scheme (app.ts's securitySchemes): the document-wide requirement. */
export const KEY_SECURITY: Record<string, string[]>[] = [{ bearer: [] }, { apiKey: [] }];

const MARK = 'x-component';
// A route that also answers CSV (src/http/csv.ts) gets text/csv beside its JSON 200 body.
const CSV_MARK = 'x-csv';

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
      return [status, csv && status === '200' ? { ...named, [CSV_MARK]: csvMedia(csv) } : named];
    }),
  );
  return { schema: { ...schema, ...security, response: marked } as typeof schema, url };
};

export const hoistNamedResponses: NonNullable<FastifyDynamicSwaggerOptions['transformObject']> = (
  documentObject,
) => {
  const document = (documentObject as { openapiObject: Json }).openapiObject as {
    paths?: Record<
      string,
      Record<string, { responses?: Record<string, { content?: Record<string, Json> }> }>
    >;
    components?: { schemas?: Record<string, Json> };
  };
  const schemas: Record<string, Json> = { ...document.components?.schemas };
  document.components = { ...document.components, schemas };
  for (const operations of Object.values(document.paths ?? {})) {
    for (const operation of Object.values(operations)) {
      for (const response of Object.values(operation.responses ?? {})) {
        for (const media of Object.values(response.content ?? {})) {
          if (!media.schema) continue;
          const { [CSV_MARK]: csv, ...body } = media.schema as Json;
          if (csv && response.content) response.content['text/csv'] = csv as Json;
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
