// What a failed attempt means: whether trying again can help, how long the vendor asked us to
// wait, and a short message that is safe to store and log. Vendors' own error texts are never
// passed on: some quote the API key they were sent (OpenAI's "Incorrect API key provided: sk-…"),
// others the prompt.
import { BrokenCircuitError, TaskCancelledError } from 'cockatiel';

/** A failed HTTP answer seen below an SDK that does not expose response headers itself. */
export class VendorHttpError extends Error {
  override name = 'VendorHttpError';
  readonly status: number;
  readonly retryAfterMs: number | undefined;
  readonly code: string | undefined;

  constructor(status: number, retryAfterMs: number | undefined, code: string | undefined) {
    super(`HTTP ${status}`);
    this.status = status;
    this.retryAfterMs = retryAfterMs;
    this.code = code;
  }
}

/** A reply that is JSON but not in the vendor's format (a proxy's answer, an API that changed). */
export class MalformedReply extends Error {
  override name = 'MalformedReply';
  constructor() {
    super("the reply is not in the vendor's format");
  }
}

/**
 * Reads a vendor's parsed reply. Anything not in its format (a missing field, a number where a
 * text goes) is a MalformedReply, retried like a body that is not JSON: thrown as it was (a
 * TypeError), it was an "unexpected failure" that ended a paid ask without another attempt.
 */
export function readVendor<T>(read: () => T): T {
  try {
    return read();
  } catch {
    throw new MalformedReply();
  }
}

export interface Failure {
  /** Worth another attempt: rate limits, overload, server errors, lost connections, timeouts. */
  transient: boolean;
  /** The vendor's own wait hint (Retry-After), in milliseconds. */
  retryAfterMs: number | undefined;
  message: string;
}

const TRANSIENT_STATUSES = new Set([408, 409, 425, 429, 500, 502, 503, 504, 529]);

/** `retry-after-ms` (OpenAI), else `retry-after` in seconds or as an HTTP date. */
export function retryAfterFromHeaders(headers: Headers | undefined, now = Date.now()): number | undefined {
  const ms = Number(headers?.get('retry-after-ms') ?? Number.NaN);
  if (Number.isFinite(ms) && ms >= 0) return ms;
  const raw = headers?.get('retry-after')?.trim();
  if (!raw) return undefined;
  if (/^\d+(\.\d+)?$/.test(raw)) return Number(raw) * 1000;
  const at = Date.parse(raw);
  return Number.isNaN(at) ? undefined : Math.max(0, at - now);
}

function statusLabel(status: number): string {
  if (status === 401 || status === 403) return 'authentication failed';
  if (status === 429) return 'rate limited';
  if (status === 529) return 'overloaded';
  if (status === 408 || status === 504) return 'vendor timed out';
  if (status >= 500) return 'server error';
  if (status === 404) return 'not found (is the model name right?)';
  return 'request rejected';
}

// A vendor's machine-readable error code (`overloaded_error`, `RESOURCE_EXHAUSTED`) helps an
// operator and carries nothing secret; anything that does not look like one is dropped.
function safeCode(code: unknown): string | undefined {
  return typeof code === 'string' && /^[A-Za-z0-9_.-]{1,60}$/.test(code) ? code : undefined;
}

// OpenAI's APIError holds the body's `error` object; Anthropic's the whole body around it.
function vendorCode(body: unknown): string | undefined {
  if (typeof body !== 'object' || body === null) return undefined;
  const nested = (body as { error?: unknown }).error;
  const inner = (typeof nested === 'object' && nested !== null ? nested : body) as Record<string, unknown>;
  return safeCode(inner.type) ?? safeCode(inner.code) ?? safeCode(inner.status);
}

interface StatusError {
  status: number;
  headers?: Headers;
  error?: unknown;
}

function hasStatus(error: unknown): error is StatusError {
  return typeof error === 'object' && error !== null && typeof (error as StatusError).status === 'number';
}

export function describeFailure(error: unknown, timeoutMs: number): Failure {
  // instanceof, not cockatiel's isTaskCancelledError: in 3.2.1 that tests for a bulkhead error.
  if (error instanceof BrokenCircuitError) {
    return { transient: false, retryAfterMs: undefined, message: 'circuit open after repeated failures' };
  }
  if (error instanceof TaskCancelledError) {
    return { transient: true, retryAfterMs: undefined, message: `timed out after ${timeoutMs} ms` };
  }
  if (error instanceof VendorHttpError || hasStatus(error)) {
    const status = error.status;
    const code = error instanceof VendorHttpError ? safeCode(error.code) : vendorCode(error.error);
    const retryAfterMs =
      error instanceof VendorHttpError
        ? error.retryAfterMs
        : retryAfterFromHeaders(error.headers instanceof Headers ? error.headers : undefined);
    return {
      transient: TRANSIENT_STATUSES.has(status),
      retryAfterMs,
      message: `${statusLabel(status)} (HTTP ${status}${code ? ` ${code}` : ''})`,
    };
  }
  if (error instanceof Error && (error.name === 'AbortError' || error.name === 'APIUserAbortError')) {
    return { transient: false, retryAfterMs: undefined, message: 'cancelled' };
  }
  if (error instanceof SyntaxError || error instanceof MalformedReply) {
    // A 200 whose body is not JSON: a proxy or a vendor hiccup, not something we sent wrong.
    return { transient: true, retryAfterMs: undefined, message: 'malformed response from the vendor' };
  }
  if (error instanceof Error && isConnectionError(error)) {
    return { transient: true, retryAfterMs: undefined, message: 'connection to the vendor failed' };
  }
  return { transient: false, retryAfterMs: undefined, message: 'unexpected failure' };
}

// The OpenAI and Anthropic SDKs wrap network failures in APIConnectionError (status undefined);
// Gemini's lets fetch's TypeError through. OpenAI's keeps `name` "Error" (6.x), so the class is
// known by its constructor's name too: by `name` alone a lost connection to ChatGPT, Perplexity
// or an OpenAI-compatible endpoint was an "unexpected failure", never retried.
const CONNECTION_ERRORS = new Set(['APIConnectionError', 'APIConnectionTimeoutError']);

function isConnectionError(error: Error): boolean {
  return (
    CONNECTION_ERRORS.has(error.name) ||
    CONNECTION_ERRORS.has(error.constructor.name) ||
    (error instanceof TypeError && /fetch failed|network|socket/i.test(error.message))
  );
}

/** Replaces every secret in `text`: a last guard, since no message is built from vendor text. */
export function redact(text: string, secrets: readonly string[]): string {
  let out = text;
  for (const secret of secrets) if (secret.length >= 4) out = out.split(secret).join('[redacted]');
  return out;
}
