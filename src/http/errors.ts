import { randomUUID } from 'node:crypto';
import { maxHeaderSize, STATUS_CODES } from 'node:http';
import type { Duplex } from 'node:stream';
import type { FastifyBaseLogger, FastifyError, FastifyInstance, FastifyReply } from 'fastify';
import { ApiError, ValidationFailed } from '../errors.ts';
import { fieldErrors } from './validation.ts';

// Everything that can go wrong between a socket and a handler (a typed error from the code, a
// schema verdict, a framework refusal, a request Node's HTTP parser rejected before Fastify saw
// it) becomes a status and a body here, in the contract's shapes: 400 as field errors, anything
// else as `{"detail": ...}`. None is a bare 500, and no 5xx body carries internals.

const READABLE: Record<number, string> = {
  404: 'Not found.',
  408: 'The request took too long to arrive.',
  413: 'The request body is too large.',
  414: 'The request URL is too long.',
  415: 'Unsupported media type.',
};

const notHttp = () => ValidationFailed.field('non_field_errors', 'The request is not valid HTTP.');

/** The contract's form of `error`; undefined means an unexpected failure (500). */
export function apiErrorOf(error: unknown, query?: Record<string, unknown>): ApiError | undefined {
  if (error instanceof ApiError) return error;
  const err = error as Partial<FastifyError>;
  if (err.validation) return new ValidationFailed(fieldErrors(err.validation, query));
  switch (err.code) {
    case 'FST_ERR_BAD_URL':
      return ValidationFailed.field('non_field_errors', 'The URL path is not validly percent-encoded.');
    case 'HPE_HEADER_OVERFLOW':
      return new ApiError(
        431,
        `The request line and headers are too large: at most ${maxHeaderSize / 1024} KB in all.`,
      );
    case 'ERR_HTTP_REQUEST_TIMEOUT':
      return new ApiError(408, READABLE[408] as string);
  }
  // Node's HTTP parser refused the bytes: a control character in a header, a bad request line.
  if (err.code?.startsWith('HPE_')) return notHttp();
  const status = err.statusCode;
  if (status === 400) return ValidationFailed.field('non_field_errors', 'Bad request.');
  if (status && status > 400 && status < 500) {
    return new ApiError(status, READABLE[status] ?? `${STATUS_CODES[status] ?? 'Client error'}.`);
  }
  return undefined;
}

function bodyOf(mapped: ApiError | undefined): unknown {
  if (mapped instanceof ValidationFailed) return mapped.fields;
  return { detail: mapped?.message ?? 'A server error occurred.' };
}

/** Writes an error in the documented shapes. */
export function sendApiError(reply: FastifyReply, mapped: ApiError | undefined): FastifyReply {
  reply.status(mapped?.statusCode ?? 500).headers(mapped?.headers ?? {});
  return reply.send(bodyOf(mapped));
}

/** Every answer's: one organization's data, never to be kept by a shared cache (decisions.md). */
export const CACHE_CONTROL = 'private, no-store';

/**
 * Fastify's clientErrorHandler: Node's parser refused a request (oversized or malformed headers,
 * a timeout) before any route or hook could see it, so the answer is written to the socket
 * directly, still in the contract's shapes, and the connection closed.
 */
export function answerClientError(
  this: { log: FastifyBaseLogger },
  error: NodeJS.ErrnoException,
  socket: Duplex,
): void {
  if (error.code === 'ECONNRESET' || socket.destroyed) return;
  const mapped = apiErrorOf(error) ?? notHttp();
  // The error carries the raw bytes received, which may hold a key: only its code is logged.
  this.log.debug({ code: error.code, statusCode: mapped.statusCode }, 'client error');
  if (socket.writable) {
    const body = JSON.stringify(bodyOf(mapped));
    const headers = {
      'content-type': 'application/json; charset=utf-8',
      'content-length': String(Buffer.byteLength(body)),
      'x-request-id': randomUUID(),
      'cache-control': CACHE_CONTROL,
      connection: 'close',
      ...mapped.headers,
    };
    const head = Object.entries(headers).map(([name, value]) => `${name}: ${value}\r\n`);
    socket.write(
      `HTTP/1.1 ${mapped.statusCode} ${STATUS_CODES[mapped.statusCode]}\r\n${head.join('')}\r\n${body}`,
    );
  }
  socket.destroy(error);
}

/** The one handler of errors thrown in the request lifecycle. */
export function registerErrorHandling(app: FastifyInstance): void {
  app.setErrorHandler((error: FastifyError, request, reply) => {
    const mapped = apiErrorOf(error, request.query as Record<string, unknown>);
    if (!mapped || mapped.statusCode >= 500) {
      request.log.error({ err: error }, 'request failed');
    }
    return sendApiError(reply, mapped);
  });

  app.setNotFoundHandler((_request, reply) => {
    sendApiError(reply, apiErrorOf({ statusCode: 404 }));
  });
}
