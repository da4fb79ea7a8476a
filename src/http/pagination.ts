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

export function pageEnvelope(
  request: FastifyRequest,
  publicBaseUrl: string | undefined,
  page: PageRequest,
  count: number,
): PageEnvelope {
  return {
    count,
    next: page.offset + page.pageSize < count ? linkTo(request, publicBaseUrl, page.page + 1) : null,
    previous: page.page > 1 ? linkTo(request, publicBaseUrl, page.page - 1) : null,
  };
}
