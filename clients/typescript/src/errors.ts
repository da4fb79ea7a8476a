// One class per status the contract names, so callers branch with `instanceof` instead of reading
// numbers. The body is kept as the server sent it: `{detail}` for most, field errors for 400.

/** Field errors of a 400: each offending parameter (or `non_field_errors`) mapped to its messages. */
export type FieldErrors = Record<string, string[]>;

export class SightlineError extends Error {
  readonly status: number;
  readonly body: unknown;
  constructor(status: number, body: unknown, message?: string) {
    super(message ?? describe(status, body));
    this.name = new.target.name;
    this.status = status;
    this.body = body;
  }
}

export class SightlineValidationError extends SightlineError {
  readonly fields: FieldErrors;
  constructor(body: unknown) {
    super(400, body);
    this.fields = isFieldErrors(body) ? body : {};
  }
}

export class SightlineAuthError extends SightlineError {}
export class SightlinePermissionError extends SightlineError {}
export class SightlineNotFoundError extends SightlineError {}
export class SightlineServerError extends SightlineError {}

/** 503: the service could not reach its database for a moment; retried like a 429 before this is thrown. */
export class SightlineUnavailableError extends SightlineServerError {
  /** Seconds the server asked to wait (its Retry-After), or null when it sent none. */
  readonly retryAfter: number | null;
  constructor(body: unknown, retryAfter: number | null) {
    super(503, body);
    this.retryAfter = retryAfter;
  }
}

export class SightlineRateLimitError extends SightlineError {
  /** Seconds the server asked to wait (its Retry-After), or null when it sent none. */
  readonly retryAfter: number | null;
  constructor(body: unknown, retryAfter: number | null) {
    super(429, body);
    this.retryAfter = retryAfter;
  }
}

/**
 * The service did not answer at all: refused, unresolvable, reset. Not an HTTP error (no status);
 * `.reason` is the system's code (`ECONNREFUSED`, `ENOTFOUND`, ...) or, without one, its message.
 */
export class SightlineConnectionError extends Error {
  readonly reason: string;
  constructor(url: URL, cause: unknown) {
    const reason = reasonOf(cause);
    super(`could not reach the Sightline API at ${url.origin} (${reason})`, { cause });
    this.name = 'SightlineConnectionError';
    this.reason = reason;
  }
}

/** fetch reports a network failure as `TypeError: fetch failed`, the system's error in its `cause`. */
function reasonOf(error: unknown): string {
  const cause = (error as { cause?: { code?: string; message?: string } } | undefined)?.cause;
  return cause?.code ?? cause?.message ?? (error instanceof Error ? error.message : String(error));
}

/** A wait (`runs.waitUntilDone`, `reports.waitUntilComplete`) ran out of time; not an HTTP error. */
export class SightlineTimeoutError extends Error {
  /** The last state seen before giving up. */
  readonly last: unknown;
  constructor(message: string, last: unknown) {
    super(message);
    this.name = 'SightlineTimeoutError';
    this.last = last;
  }
}

export function errorFor(status: number, body: unknown, retryAfter: number | null): SightlineError {
  if (status === 400) return new SightlineValidationError(body);
  if (status === 401) return new SightlineAuthError(status, body);
  if (status === 403) return new SightlinePermissionError(status, body);
  if (status === 404) return new SightlineNotFoundError(status, body);
  if (status === 429) return new SightlineRateLimitError(body, retryAfter);
  if (status === 503) return new SightlineUnavailableError(body, retryAfter);
  if (status >= 500) return new SightlineServerError(status, body);
  return new SightlineError(status, body);
}

function isFieldErrors(body: unknown): body is FieldErrors {
  return (
    typeof body === 'object' &&
    body !== null &&
    Object.values(body).every((v) => Array.isArray(v) && v.every((m) => typeof m === 'string'))
  );
}

function describe(status: number, body: unknown): string {
  if (
    typeof body === 'object' &&
    body !== null &&
    typeof (body as { detail?: unknown }).detail === 'string'
  ) {
    return `${status}: ${(body as { detail: string }).detail}`;
  }
  if (isFieldErrors(body)) {
    const parts = Object.entries(body).map(([field, messages]) => `${field}: ${messages.join(' ')}`);
    return `${status}: ${parts.join('; ')}`;
  }
  return `HTTP ${status}`;
}
