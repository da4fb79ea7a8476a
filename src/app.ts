import { randomUUID } from 'node:crypto';
import { maxHeaderSize } from 'node:http';
import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import ajvFormats from 'ajv-formats';
import Fastify, { type FastifyServerOptions, LogController } from 'fastify';
import { AnalyticsCache } from './analytics/cache.ts';
import { createGate } from './auth/gate.ts';
import { lastUseRecorder } from './auth/last-use.ts';
import type { RateLimitStore } from './auth/rate-limit.ts';
import { createRateLimitStore } from './auth/rate-limit-store.ts';
import { containsKey, redactSecrets } from './auth/redact.ts';
import type { Config } from './config.ts';
import { withQueryBudget } from './db/budget.ts';
import { connectDatabases, type Databases } from './db/connect.ts';
import { ValidationFailed } from './errors.ts';
import { registerAccessLog } from './http/access-log.ts';
import { canonicalUrl } from './http/canonical-url.ts';
import { lazyCompilers } from './http/compilers.ts';
import { assertDeclared } from './http/endpoint.ts';
import {
  answerClientError,
  apiErrorOf,
  CACHE_CONTROL,
  registerErrorHandling,
  sendApiError,
} from './http/errors.ts';
import { registerMetrics } from './http/metrics.ts';
import { hoistNamedResponses, KEY_SECURITY, markNamedResponses } from './http/openapi-components.ts';
import { ResponseCache } from './http/response-cache.ts';
import type { App } from './http/types.ts';
import { unusedConnections } from './http/unused-connections.ts';
import { rejectNonDecimalIntegers } from './http/validation.ts';
import { registerMcpEndpoint } from './mcp/http.ts';
import { analyticsRoutes } from './routes/analytics.ts';
import { brandRoutes } from './routes/brands.ts';
import { categoryRoutes } from './routes/categories.ts';
import { healthRoutes } from './routes/health.ts';
import { recommendationRoutes } from './routes/recommendations.ts';
import { reportRoutes } from './routes/reports.ts';
import { runRoutes } from './routes/runs.ts';
import { Detail, FieldErrorsBody } from './schemas/common.ts';

/**
 * A host name or IPv4 address (letters, digits, `-._~`; `_` for names such as a Compose
 * service's), or an [IPv6] literal; an optional port.
 */
const HOST = /^(?:[\w.~-]+|\[[0-9A-Fa-f:.]+\])(?::[0-9]{1,5})?$/;

export interface BuildOptions {
  /** Share already-open databases (tests, the CLI); the app then leaves closing them to the caller. */
  databases?: Databases;
  rateLimitStore?: RateLimitStore;
  /** Where "now" comes from (date windows, "end in the future"); tests pin it. */
  clock?: () => Date;
  /** false for none; otherwise pino options (tests pass a stream to read the lines back). */
  logger?: false | PinoLoggerOptions;
}

type PinoLoggerOptions = Exclude<FastifyServerOptions['logger'], boolean | undefined>;

const REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;

/** Every line the app logs passes one redaction, whatever field a key turns up in. */
function loggerOptions(config: Config, given: BuildOptions['logger']): FastifyServerOptions['logger'] {
  if (given === false) return false;
  return {
    level: config.logLevel,
    // `err.command`: ioredis puts the failed command on its error, and for a refused password that
    // is `AUTH user password`.
    redact: {
      paths: ['req.headers.authorization', 'req.headers["x-api-key"]', 'err.command'],
      censor: '[redacted]',
    },
    ...given,
    hooks: { streamWrite: redactSecrets },
  };
}

export async function buildApp(config: Config, options: BuildOptions = {}): Promise<App> {
  // The service writes only bookkeeping (keys' last use), and on SQLite waiting for another
  // process's write lock (a long import holds it for minutes) would stall every request: such a
  // write fails at once and is tried again later (auth/last-use.ts).
  const dbs = options.databases ?? connectDatabases(config, { sqliteWriters: 'fail' });

  const app = Fastify({
    logger: loggerOptions(config, options.logger),
    trustProxy: config.trustProxy,
    // One access line per request is written by http/access-log.ts instead.
    logController: new LogController({ disableRequestLogging: true }),
    // The gate and the router read one normalised path.
    rewriteUrl: (request) => canonicalUrl(request.url ?? '/'),
    // No id segment is too long to route (it cannot outgrow the request line, which Node caps at
    // maxHeaderSize): an over-long id goes through the gate like any other and answers 404 after
    // it, not before authentication.
    routerOptions: { ignoreTrailingSlash: true, maxParamLength: maxHeaderSize },
    // Refusals made before routing (a path that cannot be percent-decoded) and requests Node's
    // parser rejects (oversized or malformed headers) answer through the one error mapper too.
    frameworkErrors: (error, request, reply) => {
      sendApiError(
        reply.header('X-Request-Id', request.id).header('cache-control', CACHE_CONTROL),
        apiErrorOf(error),
      );
    },
    clientErrorHandler: answerClientError,
    // Node would answer an HTTP/1.1 request without Host with an empty 400 of its own; the hook
    // below gives the same refusal in the contract's shape.
    http: { requireHostHeader: false },
    requestIdHeader: false,
    // A caller's id is echoed and logged, so one that carries a key is replaced like a malformed one.
    genReqId: (request) => {
      const sent = request.headers['x-request-id'];
      return typeof sent === 'string' && REQUEST_ID.test(sent) && !containsKey(sent) ? sent : randomUUID();
    },
    ajv: { customOptions: { allErrors: true, coerceTypes: 'array' }, plugins: [ajvFormats as never] },
    schemaController: { compilersFactory: lazyCompilers },
  }).withTypeProvider<TypeBoxTypeProvider>();
  const rateLimit = options.rateLimitStore ?? (await createRateLimitStore(config, app.log));

  app.decorate('config', config);
  app.decorate('dbs', dbs);
  app.decorate('clock', options.clock ?? (() => new Date()));
  const responseCache =
    config.responseCacheBytes > 0 ? new ResponseCache(config.responseCacheBytes) : undefined;
  app.decorate('responseCache', responseCache);
  const analyticsCache =
    config.analyticsCacheBytes > 0 ? new AnalyticsCache(config.analyticsCacheBytes) : undefined;
  app.decorate('analyticsCache', analyticsCache);
  app.addSchema(Detail);
  app.addSchema(FieldErrorsBody);

  // Every keyed API route is declared through the route toolkit (checked here, at start-up) and
  // runs its database work under the request's time budget.
  app.addHook('onRoute', (route) => {
    if (route.url.startsWith('/api/docs')) {
      route.config = { ...route.config, access: { public: true } };
      return;
    }
    if (!route.url.startsWith('/api/') || route.config?.access?.public) return;
    assertDeclared(route);
    route.preValidation = [rejectNonDecimalIntegers, ...[route.preValidation ?? []].flat()];
    const handler = route.handler;
    route.handler = function budgeted(request, reply) {
      return withQueryBudget(config.queryTimeoutMs, async () => handler.call(this, request, reply));
    };
  });

  await app.register(swagger, {
    // Schemas with an $id (src/schemas) become components under that name, so generated clients
    // get `Brand`, `RunDetail`, ... rather than numbered definitions.
    transform: markNamedResponses,
    transformObject: hoistNamedResponses,
    refResolver: {
      buildLocalReference: (json, _baseUri, _fragment, i) =>
        typeof json.$id === 'string' ? json.$id : `def-${i}`,
    },
    openapi: {
      openapi: '3.1.0',
      info: {
        title: 'Sightline API',
        version: '1.0.0',
        description:
          'Read-only brand-visibility monitoring data: brands, runs, answers, analytics and reports.',
        license: { name: 'Proprietary', identifier: 'LicenseRef-Sightline-Proprietary' },
      },
      servers: [{ url: config.publicBaseUrl ?? '/', description: 'This Sightline service' }],
      components: {
        securitySchemes: {
          bearer: { type: 'http', scheme: 'bearer', description: 'Authorization: Bearer sl_live_...' },
          apiKey: { type: 'apiKey', in: 'header', name: 'X-API-Key' },
        },
      },
      security: KEY_SECURITY,
    },
  });
  await app.register(swaggerUi, { routePrefix: '/api/docs', uiConfig: { deepLinking: false } });

  registerErrorHandling(app);
  // The id goes on the reply first, so every answer carries it, refusals too, without a hook of
  // its own when the answer is sent.
  app.addHook('onRequest', async (request, reply) => {
    reply.header('X-Request-Id', request.id);
    // Answers are one organization's: a shared cache (a CDN, Varnish) may keep an answer to a
    // request with X-API-Key, which HTTP's rules hold back only for Authorization.
    reply.header('cache-control', CACHE_CONTROL);
    if (request.raw.httpVersion === '1.1' && request.headers.host === undefined) {
      throw ValidationFailed.field('non_field_errors', 'An HTTP/1.1 request must have a Host header.');
    }
    // Absolute links are built from the host (without PUBLIC_BASE_URL): one that is not a host
    // name, address or [IPv6] literal with an optional port would make them point elsewhere
    // (`Host: a/b` gave `http://a/b/api/…`).
    if (request.headers.host !== undefined && !HOST.test(request.host)) {
      throw ValidationFailed.field('non_field_errors', 'The Host header is not a valid host name.');
    }
  });
  registerAccessLog(app);
  registerMetrics(app, { dbs, rateLimit, responseCache, analyticsCache });
  const lastUse = lastUseRecorder(dbs.primary);
  app.addHook(
    'onRequest',
    createGate({
      read: dbs.read,
      pepper: config.keyPepper,
      rateLimit,
      rateLimitPerMinute: config.rateLimitPerMinute,
      lastUse,
    }),
  );
  app.get('/api/openapi.json', { schema: { hide: true }, config: { access: { public: true } } }, async () =>
    app.swagger(),
  );

  await app.register(brandRoutes);
  await app.register(categoryRoutes);
  await app.register(runRoutes);
  await app.register(reportRoutes);
  await app.register(recommendationRoutes);
  await app.register(analyticsRoutes);
  await app.register(healthRoutes, { dbs, rateLimit });
  // Outside /api: the MCP endpoint is a client of the API above, not one of its routes.
  registerMcpEndpoint(app);

  // Before Fastify closes the listener: a socket that never sent a request would hold it open.
  const unused = unusedConnections(app.server);
  app.addHook('preClose', async () => unused.close());
  app.addHook('onClose', async () => {
    await analyticsCache?.settled();
    await lastUse.close();
    await rateLimit.close();
    if (!options.databases) await dbs.close();
  });
  return app;
}
