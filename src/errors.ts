// Typed errors: every module throws one of these, and the single error handler in http/errors.ts
// maps it to a status and a body. Nothing else decides what a client sees when something fails.

export type FieldErrors = Record<string, string[]>;

/** What reading an input gives: its value, or the field errors that refuse it. */
export type Parsed<T> = { ok: true; value: T } | { ok: false; errors: FieldErrors };

export class ApiError extends Error {
  readonly statusCode: number;
  readonly headers: Record<string, string>;
  constructor(statusCode: number, detail: string, headers: Record<string, string> = {}) {
    super(detail);
    this.statusCode = statusCode;
    this.headers = headers;
  }
}

export class NotAuthenticated extends ApiError {
  constructor(detail = 'Authentication credentials were not provided.') {
    super(401, detail, { 'www-authenticate': 'Bearer realm="api"' });
  }
}

export class PermissionDenied extends ApiError {
  constructor(detail: string) {
    super(403, detail);
  }
}

export class NotFound extends ApiError {
  constructor(detail = 'Not found.') {
    super(404, detail);
  }
}

export class Throttled extends ApiError {
  constructor(retryAfterSeconds: number) {
    super(429, `Request was throttled. Expected available in ${retryAfterSeconds} seconds.`, {
      'retry-after': String(retryAfterSeconds),
    });
  }
}

/** 400 in the DRF shape: each offending parameter maps to its messages. */
export class ValidationFailed extends ApiError {
  readonly fields: FieldErrors;
  constructor(fields: FieldErrors) {
    super(400, 'Invalid request.');
    this.fields = fields;
  }
  static field(name: string, message: string): ValidationFailed {
    return new ValidationFailed({ [name]: [message] });
  }
}

/** The per-request cap on database work was exceeded; the statement has been stopped. */
export class QueryTimeout extends ApiError {
  constructor(capMs: number) {
    super(
      500,
      `The database work for this request exceeded the ${capMs} ms cap and was stopped. ` +
        'Narrow the date window or request a smaller page_size.',
    );
  }
}

/** The database (or another backing service) cannot be reached right now. */
export class ServiceUnavailable extends ApiError {
  constructor(detail = 'The service is temporarily unavailable. Retry shortly.', retryAfterSeconds = 5) {
    super(503, detail, { 'retry-after': String(retryAfterSeconds) });
  }
}

/** The database could not be reached, or the connection was lost under the statement. */
export class DatabaseUnavailable extends ServiceUnavailable {
  constructor(cause: unknown) {
    super();
    this.cause = cause;
  }
}
