import { randomUUID } from 'node:crypto';
import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import ajvFormats from 'ajv-formats';
import Fastify, { type FastifyServerOptions } from 'fastify';
import { createGate } from './auth/gate.ts';
import { MemoryRateLimitStore, type RateLimitStore } from './auth/rate-limit.ts';
import type { Config } from './config.ts';
import { withQueryBudget } from './db/budget.ts';
import { connectDatabases, type Databases } from './db/connect.ts';
import { registerErrorHandling } from './http/errors.ts';
import type { App } from './http/types.ts';
import { analyticsRoutes } from './routes/analytics.ts';
import { brandRoutes } from './routes/brands.ts';
import { categoryRoutes } from './routes/categories.ts';
import { recommendationRoutes } from './routes/recommendations.ts';
import { reportRoutes } from './routes/reports.ts';
import { runRoutes } from './routes/runs.ts';
import { Detail, FieldErrorsBody } from './schemas/common.ts';

export interface BuildOptions {
  /** Share already-open databases (tests, the CLI); the app then leaves closing them to the caller. */
  databases?: Databases;
  rateLimitStore?: RateLimitStore;
  logger?: FastifyServerOptions['logger'];
}

const REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;

export async function buildApp(config: Config, options: BuildOptions = {}): Promise<App> {
  const dbs = options.databases ?? connectDatabases(config);
  const rateLimit = options.rateLimitStore ?? new MemoryRateLimitStore();

  const app = Fastify({
    logger: options.logger ?? {
      level: config.logLevel,
      redact: { paths: ['req.headers.authorization', 'req.headers["x-api-key"]'], censor: '[redacted]' },
    },
    trustProxy: config.trustProxy,
    routerOptions: { ignoreTrailingSlash: true },
    requestIdHeader: false,
    genReqId: (request) => {
      const sent = request.headers['x-request-id'];
      return typeof sent === 'string' && REQUEST_ID.test(sent) ? sent : randomUUID();
    },
    ajv: { customOptions: { allErrors: true, coerceTypes: 'array' }, plugins: [ajvFormats as never] },
  }).withTypeProvider<TypeBoxTypeProvider>();

  app.decorate('config', config);
  app.decorate('dbs', dbs);
  app.addSchema(Detail);
  app.addSchema(FieldErrorsBody);

  // Every API route validates with attachValidation (404 is decided before 400) and runs its
  // database work under the request's time budget.
  app.addHook('onRoute', (route) => {
    if (route.url.startsWith('/api/docs')) {
      route.config = { ...route.config, access: { public: true } };
      return;
    }
    if (!route.url.startsWith('/api/') || route.config?.access?.public) return;
    route.attachValidation = true;
    const handler = route.handler;
    route.handler = function budgeted(request, reply) {
      return withQueryBudget(config.queryTimeoutMs, async () => handler.call(this, request, reply));
    };
  });

  await app.register(swagger, {
    openapi: {
      openapi: '3.1.0',
      info: {
        title: 'Sightline API',
        version: '1.0.0',
        description: 'Read-only brand-visibility monitoring data: brands, runs, answers, analytics and reports.',
      },
      components: {
        securitySchemes: {
          bearer: { type: 'http', scheme: 'bearer', description: 'Authorization: Bearer sl_live_...' },
          apiKey: { type: 'apiKey', in: 'header', name: 'X-API-Key' },
        },
      },
      security: [{ bearer: [] }, { apiKey: [] }],
    },
  });
  await app.register(swaggerUi, { routePrefix: '/api/docs', uiConfig: { deepLinking: false } });

  registerErrorHandling(app);
  app.addHook(
    'onRequest',
    createGate({
      read: dbs.read,
      primary: dbs.primary,
      pepper: config.keyPepper,
      rateLimit,
      rateLimitPerMinute: config.rateLimitPerMinute,
    }),
  );
  app.addHook('onSend', async (request, reply) => {
    reply.header('X-Request-Id', request.id);
  });

  app.get(
    '/api/openapi.json',
    { schema: { hide: true }, config: { access: { public: true } } },
    async () => app.swagger(),
  );

  await app.register(brandRoutes);
  await app.register(categoryRoutes);
  await app.register(runRoutes);
  await app.register(reportRoutes);
  await app.register(recommendationRoutes);
  await app.register(analyticsRoutes);

  app.addHook('onClose', async () => {
    await rateLimit.close();
    if (!options.databases) await dbs.close();
  });
  return app;
}
