import type { FastifyRequest } from 'fastify';
import { VersionedCache } from '../domain/versioned-cache.ts';

// Answers of the routes whose body is a function of the organization, the URL and the stored data
// alone (no clock, no caller field besides the organization), kept per process under the
// database's data version (domain/versioned-cache.ts): a kept answer is byte for byte what the
// database would give now. docs/performance.md, "Response cache".

/** Kept answers, bounded by their bytes. */
export class ResponseCache extends VersionedCache<Buffer> {
  constructor(maxBytes: number) {
    super(maxBytes, (body) => body.length);
  }
}

/**
 * What a cacheable answer depends on besides the data: the organization, and the URL as the
 * client sent it, with scheme and host (pagination links are absolute).
 */
export function cacheKey(request: FastifyRequest, orgId: number): string {
  return `${orgId} ${request.protocol}://${request.host}${request.url}`;
}
