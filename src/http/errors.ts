import type { FastifyError, FastifyInstance, FastifyReply } from 'fastify';
import { ApiError, ServiceUnavailable, ValidationFailed } from '../errors.ts';
import { fieldErrors } from './validation.ts';

// Connection-level failures of the database driver: the database is restarting or unreachable.
const UNAVAILABLE_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'EPIPE',
  '57P01', // admin_shutdown
  '57P02', // crash_shutdown
  '57P03', // cannot_connect_now
  '08000',
  '08003',
  '08006',
  '53300', // too_many_connections
]);

function isUnavailable(error: unknown): boolean {
  const err = error as { code?: string; message?: string };
  return (
    (err.code !== undefined && UNAVAILABLE_CODES.has(err.code)) ||
    /Connection terminated|timeout exceeded when trying to connect/i.test(err.message ?? '')
  );
}

/** Writes an error in the documented shapes: 400 as field errors, others as `{detail}`; none is a bare 500. */
export function sendApiError(reply: FastifyReply, mapped: ApiError | undefined): FastifyReply {
  reply.status(mapped?.statusCode ?? 500).headers(mapped?.headers ?? {});
  if (mapped instanceof ValidationFailed) return reply.send(mapped.fields);
  return reply.send({ detail: mapped?.message ?? 'A server error occurred.' });
}

/** The one place where an error becomes a status and a body. 5xx bodies never carry internals. */
export function registerErrorHandling(app: FastifyInstance): void {
  app.setErrorHandler((error: FastifyError, request, reply) => {
    let mapped: ApiError | undefined;
    if (error instanceof ApiError) mapped = error;
    else if (error.validation) {
      mapped = new ValidationFailed(fieldErrors(error.validation, request.query as Record<string, unknown>));
    } else if (isUnavailable(error)) mapped = new ServiceUnavailable();
    else if (error.statusCode === 400) mapped = ValidationFailed.field('non_field_errors', 'Bad request.');
    else if (error.statusCode && error.statusCode > 400 && error.statusCode < 500) {
      mapped = new ApiError(error.statusCode, error.statusCode === 404 ? 'Not found.' : 'Bad request.');
    }

    if (!mapped || mapped.statusCode >= 500) {
      request.log.error({ err: error }, 'request failed');
    }
    return sendApiError(reply, mapped);
  });

  app.setNotFoundHandler((_request, reply) => {
    reply.status(404).send({ detail: 'Not found.' });
  });
}
