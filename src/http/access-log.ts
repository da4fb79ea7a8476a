import type { FastifyInstance } from 'fastify';

/**
 * One structured line per request, written when the response is done. It names the key by its
 * public identifier and carries no credential header; a key sent anywhere else (the URL as sent,
 * the User-Agent) is masked by the logger's redaction (auth/redact.ts).
 */
export function registerAccessLog(app: FastifyInstance): void {
  app.addHook('onResponse', async (request, reply) => {
    request.log.info(
      {
        method: request.method,
        url: request.originalUrl,
        route: request.routeOptions.url ?? null,
        statusCode: reply.statusCode,
        durationMs: Math.round(reply.elapsedTime * 10) / 10,
        ip: request.ip,
        keyId: request.caller?.keyId ?? null,
        orgId: request.caller?.organization.id ?? null,
        userAgent: request.headers['user-agent'] ?? null,
      },
      'request completed',
    );
  });
}
