import type { FastifyRequest } from 'fastify';
import { NotFound } from '../errors.ts';

export interface PageRequest {
  page: number;
  pageSize: number;
  offset: number;
}

export interface PageEnvelope {
  count: number;
  next: string | null;
  previous: string | null;
}

export const LIST_PAGE_SIZE = { fallback: 25, max: 100 } as const;
export const RUN_RESPONSES_PAGE_SIZE = { fallback: 200, max: 500 } as const;

/** page is 1-based; page_size is clamped to the endpoint's maximum rather than refused. */
export function pageRequest(
  query: { page?: number; page_size?: number },
  sizes: { fallback: number; max: number } = LIST_PAGE_SIZE,
): PageRequest {
  const page = query.page ?? 1;
  const pageSize = Math.min(query.page_size ?? sizes.fallback, sizes.max);
  return { page, pageSize, offset: (page - 1) * pageSize };
}

/** A page past the end is 404 "Invalid page." (page 1 of an empty list is a valid empty page). */
export function assertPageExists(page: PageRequest, count: number): void {
  if (page.page > 1 && page.offset >= count) throw new NotFound('Invalid page.');
}

function linkTo(request: FastifyRequest, publicBaseUrl: string | undefined, page: number): string {
  const [path = '', search = ''] = request.url.split('?');
  const params = new URLSearchParams(search);
  if (page === 1) params.delete('page');
  else params.set('page', String(page));
  const query = params.toString();
  const base = publicBaseUrl ?? `${request.protocol}://${request.host}`;
  return `${base}${path}${query ? `?${query}` : ''}`;
}

function pageEnvelope(request: FastifyRequest, page: PageRequest, count: number): PageEnvelope {
  const base = request.server.config.publicBaseUrl;
  return {
    count,
    next: page.offset + page.pageSize < count ? linkTo(request, base, page.page + 1) : null,
    previous: page.page > 1 ? linkTo(request, base, page.page - 1) : null,
  };
}

/**
 * Every paginated list: the total first, 404 for a page past the end (so an absurd page never
 * reaches the database), then the page's rows, in the contract's envelope with absolute
 * next/previous links.
 */
export async function listPage<T, R>(
  request: FastifyRequest,
  query: { page?: number; page_size?: number },
  source: { count: () => Promise<number>; rows: (page: PageRequest) => Promise<readonly T[]> },
  serialise: (row: T) => R,
): Promise<PageEnvelope & { results: R[] }> {
  const page = pageRequest(query);
  const count = await source.count();
  assertPageExists(page, count);
  const rows = page.offset < count ? await source.rows(page) : [];
  return { ...pageEnvelope(request, page, count), results: rows.map(serialise) };
}
