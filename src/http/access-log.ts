import type { FastifyInstance } from 'fastify';
import { KEY_PREFIX } from '../auth/keys.ts';

// Anything after the key prefix up to the identifier is safe to log; the rest is a secret even
// when the key is malformed, so it is masked wherever a key shows up by mistake (a query string).
const KEY_IN_TEXT = new RegExp(`(${KEY_PREFIX}[0-9A-Za-z]{0,8})[0-9A-Za-z_-]*`, 'g');

export function redactKeys(text: string): string {
  return text.replace(KEY_IN_TEXT, '$1…[redacted]');
}

/**
 * One structured line per request, written when the response is done. It names the key by its
 * public identifier and never carries headers, so a key's secret cannot reach the log.
 */
export function registerAccessLog(app: FastifyInstance): void {
  app.addHook('onResponse', async (request, reply) => {
    request.log.info(
      {
        method: request.method,
        url: redactKeys(request.url),
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
