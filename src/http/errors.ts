import type { FastifyError, FastifyInstance, FastifyReply } from 'fastify';
import { ApiError, ValidationFailed } from '../errors.ts';
import { fieldErrors } from './validation.ts';

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
    } else if (error.statusCode === 400) mapped = ValidationFailed.field('non_field_errors', 'Bad request.');
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
