import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type {
  FastifyBaseLogger,
  FastifyInstance,
  RawReplyDefaultExpression,
  RawRequestDefaultExpression,
  RawServerDefault,
} from 'fastify';
import type { AnalyticsCache } from '../analytics/cache.ts';
import type { Config } from '../config.ts';
import type { Databases } from '../db/connect.ts';
import type { ResponseCache } from './response-cache.ts';

/** The Fastify instance routes are registered on, typed by the TypeBox provider. */
export type App = FastifyInstance<
  RawServerDefault,
  RawRequestDefaultExpression<RawServerDefault>,
  RawReplyDefaultExpression<RawServerDefault>,
  FastifyBaseLogger,
  TypeBoxTypeProvider
>;

declare module 'fastify' {
  interface FastifyInstance {
    config: Config;
    dbs: Databases;
    clock: () => Date;
    /** Undefined when RESPONSE_CACHE_MB is 0. */
    responseCache: ResponseCache | undefined;
    /** Undefined when ANALYTICS_CACHE_MB is 0. */
    analyticsCache: AnalyticsCache | undefined;
  }
}
