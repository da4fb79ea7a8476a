import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type {
  FastifyReply,
  FastifyRequest,
  FastifySchema,
  RawRequestDefaultExpression,
  RawServerDefault,
  RouteGenericInterface,
} from 'fastify';
import type { Caller, RouteAccess } from '../auth/gate.ts';
import type { Plan } from '../db/organizations.ts';
import type { Scope } from '../domain/scopes.ts';
import { NotAuthenticated, NotFound, type Parsed } from '../errors.ts';
import { type CsvRows, sendCsv, wantsCsv, withCsvQuery } from './csv.ts';
import { cacheKey } from './response-cache.ts';
import type { App } from './types.ts';
import { rejectInvalidParams, rejectInvalidQuery } from './validation.ts';

// The one way an API route is declared. It fixes the order of checks after the gate
// (docs/decisions.md, "Order of checks"): path ids (404), the caller, the object the path names
// (404), the query string (400), then the handler. A route cannot skip the query validation or
// read a missing caller: the toolkit does both, and buildApp refuses at start-up any /api route
// that was not declared here.

/** A request typed by its route schema, as Fastify's TypeBox provider infers it. */
export type ApiRequest<S extends FastifySchema> = FastifyRequest<
  RouteGenericInterface,
  RawServerDefault,
  RawRequestDefaultExpression<RawServerDefault>,
  S,
  TypeBoxTypeProvider
>;

/**
 * What a handler returns: a body or the reply it sent. The TypeBox provider does not narrow this
 * by the response schema, so the schema checks bodies at run time (serialisation, and
 * test/openapi.test.ts against the document).
 */
type Body = Promise<unknown>;

interface Declared<S extends FastifySchema> {
  scope: Scope;
  minimumPlan?: Plan;
  /** OpenAPI tags and summary go in the schema with the rest. */
  schema: S;
  /** Declared: the endpoint also answers text/csv, listing these rows (src/http/csv.ts). */
  csv?: CsvRows;
  /**
   * Declared: the JSON answer depends on nothing but the organization, the URL and the stored data
   * (no clock, no other field of the caller), so it may be kept until the data changes
   * (src/http/response-cache.ts).
   */
  cached?: true;
}

export interface KeyedEndpoint<S extends FastifySchema, Found, Query> extends Declared<S> {
  /** The object the path names, in the caller's organization; undefined answers 404. */
  find?: (request: ApiRequest<S>, caller: Caller) => Promise<Found | undefined>;
  /**
   * What the query string means beyond its schema (a window and its limit), judged with the
   * schema's checks so that one 400 lists every field's errors; the handler gets its value.
   */
  query?: (request: ApiRequest<S>, caller: Caller) => Parsed<Query>;
  handler: (
    request: ApiRequest<S>,
    context: { caller: Caller; found: Found; query: Query },
    reply: FastifyReply,
  ) => Body;
}

/** The contract's one anonymous read: the public demo brand (the gate admits it without a key). */
export interface PublicDemoEndpoint<S extends FastifySchema, Found> extends Declared<S> {
  allowAnonymous: (request: FastifyRequest) => boolean;
  /** Without a caller, the object must be the public demo's; undefined answers 401 then, else 404. */
  find: (request: ApiRequest<S>, caller: Caller | undefined) => Promise<Found | undefined>;
  handler: (request: ApiRequest<S>, context: { found: Found }) => Body;
}

const DECLARED = Symbol('declared through the route toolkit');
// What Fastify sends with the JSON it serialises; a kept answer goes out with the same.
const JSON_UTF8 = 'application/json; charset=utf-8';

declare module 'fastify' {
  interface FastifyContextConfig {
    [DECLARED]?: true;
    /** The rows the route answers as CSV; the OpenAPI document lists text/csv for it. */
    csv?: CsvRows;
  }
}

function register<S extends FastifySchema>(
  app: App,
  url: string,
  declared: Declared<S> & { allowAnonymous?: RouteAccess['allowAnonymous'] },
  run: (request: ApiRequest<S>, reply: FastifyReply) => Promise<unknown>,
): void {
  const access: RouteAccess = { scope: declared.scope };
  if (declared.minimumPlan) access.minimumPlan = declared.minimumPlan;
  if (declared.allowAnonymous) access.allowAnonymous = declared.allowAnonymous;
  const { csv } = declared;
  const cache = declared.cached ? app.responseCache : undefined;
  app.route({
    method: 'GET',
    url,
    schema: csv ? withCsvQuery(declared.schema, csv) : declared.schema,
    config: { access, [DECLARED]: true, ...(csv ? { csv } : {}) },
    // Validation runs, but its verdict waits: a missing object is a 404 before a bad query is a 400.
    attachValidation: true,
    // Typed by the endpoint's declaration; Fastify's own handler type is not needed here.
    handler: (async (request: FastifyRequest, reply: FastifyReply) => {
      rejectInvalidParams(request);
      const asCsv = csv !== undefined && wantsCsv(request);
      // The version is read before any query: an answer computed under it is at least that new.
      const ticket =
        cache && request.caller && !asCsv
          ? cache.lookup(await app.dbs.dataVersion(), cacheKey(request, request.caller.organization.id))
          : undefined;
      // Caches must keep the JSON and the CSV answer of one URL apart.
      const varyByAccept = () => {
        if (csv) reply.header('vary', 'Accept');
      };
      if (ticket?.hit) {
        varyByAccept();
        return reply.type(JSON_UTF8).send(ticket.hit);
      }
      const body = await run(request as unknown as ApiRequest<S>, reply);
      varyByAccept();
      if (asCsv) {
        return sendCsv(request, reply, csv, (declared.schema.response as Record<number, unknown>)[200], body);
      }
      // Refusals throw; only a 200's body is kept. It is serialised here, by the route's own
      // serializer as Fastify would, so that the bytes kept are the bytes sent.
      if (!ticket || reply.statusCode !== 200) return body;
      const sent = Buffer.from(reply.serialize(body) as string);
      cache?.store(ticket, sent);
      return reply.type(JSON_UTF8).send(sent);
    }) as never,
  });
}

export function keyedGet<S extends FastifySchema, Found = undefined, Query = undefined>(
  app: App,
  url: string,
  endpoint: KeyedEndpoint<S, Found, Query>,
): void {
  register(app, url, endpoint, async (request, reply) => {
    // The gate sets the caller on every keyed route; without one, fail closed as unauthenticated.
    const caller = request.caller;
    if (!caller) throw new NotAuthenticated();
    const found = endpoint.find ? await endpoint.find(request, caller) : undefined;
    if (endpoint.find && found === undefined) throw new NotFound();
    const query = endpoint.query?.(request, caller);
    rejectInvalidQuery(request, query?.ok === false ? query.errors : undefined);
    const meant = (query?.ok ? query.value : undefined) as Query;
    return endpoint.handler(request, { caller, found: found as Found, query: meant }, reply);
  });
}

export function publicDemoGet<S extends FastifySchema, Found>(
  app: App,
  url: string,
  endpoint: PublicDemoEndpoint<S, Found>,
): void {
  register(app, url, endpoint, async (request) => {
    const found = await endpoint.find(request, request.caller);
    // Without a key, an object that is not the public demo's asks for credentials rather than
    // revealing whether it exists.
    if (found === undefined) throw request.caller ? new NotFound() : new NotAuthenticated();
    rejectInvalidQuery(request);
    return endpoint.handler(request, { found });
  });
}

/** Start-up check (buildApp's onRoute): every keyed /api route comes through this toolkit. */
export function assertDeclared(route: { url: string; config?: unknown }): void {
  const config = route.config as { [DECLARED]?: true; access?: RouteAccess } | undefined;
  if (config?.access?.public) return;
  if (!config?.[DECLARED]) {
    throw new Error(`${route.url} is an /api route not declared through src/http/endpoint.ts`);
  }
}
