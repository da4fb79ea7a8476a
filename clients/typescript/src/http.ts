// The transport under every method: one place that builds URLs, sends the key, honours the
// Retry-After of a 429 or 503 and turns error statuses into typed errors. It uses only the platform's fetch, so the
// SDK runs unchanged in Node, Deno, Bun and browsers.
import { errorFor, SightlineConnectionError, SightlineTimeoutError } from './errors.ts';

export type QueryValue = string | number | boolean | null | undefined;
export type Query = Record<string, QueryValue>;

export interface ClientOptions {
  /** `sl_live_…`; defaults to SIGHTLINE_API_KEY. Without one only the public demo brand answers. */
  apiKey?: string;
  /** The service's address, e.g. `https://sightline.example.com`; defaults to SIGHTLINE_BASE_URL. */
  baseUrl?: string;
  /**
   * Retries of a request answered 429 (rate limit) or 503 (database unreachable for a moment),
   * each after the server's Retry-After, 1 s when it sends none (default 2).
   */
  maxRetries?: number;
  /** A longer Retry-After than this is not waited out: the error is thrown at once (default 60 000). */
  maxRetryDelayMs?: number;
  /** A fetch to use instead of the global one (a proxy agent, instrumentation). */
  fetch?: typeof fetch;
  /**
   * How long a request waits for the answer to begin (its status and headers) before it is given up
   * as a `SightlineConnectionError` (default 120 000, past the service's own query cap): a service
   * that accepts the connection and never answers would otherwise hang forever. A body that stops
   * coming for as long is given up too; one that keeps coming (a large download) is not cut short.
   */
  requestTimeoutMs?: number;
}

const env = (name: string): string | undefined =>
  (globalThis as { process?: { env?: Record<string, string | undefined> } }).process?.env?.[name] ||
  undefined;

export const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

// RFC 9110 §5.6.7: IMF-fixdate, and the obsolete RFC 850 and asctime forms a recipient must read.
const HTTP_DATE = [
  /^[A-Z][a-z]{2}, \d{2} [A-Z][a-z]{2} \d{4} \d{2}:\d{2}:\d{2} GMT$/,
  /^[A-Z][a-z]+, \d{2}-[A-Z][a-z]{2}-\d{2} \d{2}:\d{2}:\d{2} GMT$/,
  /^[A-Z][a-z]{2} [A-Z][a-z]{2} [ \d]\d \d{2}:\d{2}:\d{2} \d{4}$/,
];
const ASCTIME = 2;

/** Retry-After in seconds: delay-seconds or an HTTP date (RFC 9110 §10.2.3); null when absent or unreadable. */
export function parseRetryAfter(value: string | null, now = Date.now()): number | null {
  if (value === null || value.trim() === '') return null;
  if (/^\d+$/.test(value.trim())) return Number(value.trim());
  // Only HTTP's three date forms: `1.5`, `-1` or `Mon 1` would parse as a date in 2001.
  const form = HTTP_DATE.findIndex((pattern) => pattern.test(value.trim()));
  if (form < 0) return null;
  // asctime names no zone, and Date.parse would read it in the machine's: it is GMT.
  const date = Date.parse(form === ASCTIME ? `${value.trim()} GMT` : value);
  return Number.isNaN(date) ? null : Math.max(0, Math.ceil((date - now) / 1000));
}

// setTimeout's largest delay; a longer one (or Infinity, NaN) fires after 1 ms.
const LONGEST_TIMER_MS = 2_147_483_647;

/** `value` when it is a whole number from `least` to the longest timer, else a TypeError naming `name`. */
function wholeOption(
  name: string,
  // null as undefined: plain JavaScript callers pass it for "the default".
  value: number | null | undefined,
  fallback: number,
  least: number,
): number {
  if (value === undefined || value === null) return fallback;
  if (!Number.isInteger(value) || value < least || value > LONGEST_TIMER_MS) {
    throw new TypeError(
      `Sightline: ${name} must be a whole number from ${least} to ${LONGEST_TIMER_MS}, not ${value}.`,
    );
  }
  return value;
}

/** Whether a key can be a key at all: printable ASCII without spaces (what fetch can send, too). */
export const looksLikeKey = (key: string) => /^[\x21-\x7e]+$/.test(key);

export class Transport {
  readonly baseUrl: URL;
  readonly #apiKey: string | undefined;
  readonly #fetch: typeof fetch;
  readonly #maxRetries: number;
  readonly #maxRetryDelayMs: number;
  readonly #requestTimeoutMs: number;

  constructor(options: ClientOptions) {
    const base = options.baseUrl ?? env('SIGHTLINE_BASE_URL');
    if (!base) throw new TypeError('Sightline: pass baseUrl or set SIGHTLINE_BASE_URL.');
    // A trailing slash makes relative resolution keep a path prefix (a service behind /sightline/).
    this.baseUrl = new URL(base.endsWith('/') ? base : `${base}/`);
    // fetch refuses such a URL with an error that quotes it, password and all.
    if (this.baseUrl.username || this.baseUrl.password) {
      throw new TypeError(
        'Sightline: baseUrl holds a user name or password, which fetch refuses: pass the key as apiKey.',
      );
    }
    this.#apiKey = options.apiKey ?? env('SIGHTLINE_API_KEY');
    // fetch refuses a header outside Latin-1 with an error that reads like a network failure.
    if (this.#apiKey !== undefined && !looksLikeKey(this.#apiKey)) {
      throw new TypeError(
        'Sightline: the API key has characters no key has (spaces, quotes or letters outside ASCII): copy it again.',
      );
    }
    this.#fetch = options.fetch ?? globalThis.fetch.bind(globalThis);
    this.#maxRetries = wholeOption('maxRetries', options.maxRetries, 2, 0);
    this.#maxRetryDelayMs = wholeOption('maxRetryDelayMs', options.maxRetryDelayMs, 60_000, 0);
    this.#requestTimeoutMs = wholeOption('requestTimeoutMs', options.requestTimeoutMs, 120_000, 1);
  }

  /** `path` is a server path (`/api/brands/`) or a link the server returned (`next`, `responsesNext`). */
  url(path: string, query: Query = {}): URL {
    const url = this.#resolve(path);
    for (const [name, value] of Object.entries(query)) {
      if (value !== undefined && value !== null) url.searchParams.set(name, String(value));
    }
    return url;
  }

  /** The 2xx response; any other status is thrown as the matching SightlineError. */
  async send(path: string, query?: Query, accept = 'application/json'): Promise<Response> {
    const url = this.url(path, query);
    const headers: Record<string, string> = { accept };
    if (this.#apiKey) headers.authorization = `Bearer ${this.#apiKey}`;
    for (let attempt = 0; ; attempt++) {
      const deadline = new AbortController();
      const timer = setTimeout(() => deadline.abort(), this.#requestTimeoutMs);
      const response = await this.#fetch(url, { headers, signal: deadline.signal })
        .catch((error: unknown) => {
          if (deadline.signal.aborted) {
            throw new SightlineConnectionError(
              url,
              new Error(`no answer within ${this.#requestTimeoutMs} ms`),
            );
          }
          // A caller's abort stays what it is; anything else thrown before an answer is the network.
          if (error instanceof Error && error.name === 'AbortError') throw error;
          throw new SightlineConnectionError(url, error);
        })
        .finally(() => clearTimeout(timer));
      if (response.ok) return response;
      const body = parsedOrText(await this.text(url, response));
      const retryAfter = parseRetryAfter(response.headers.get('retry-after'));
      const waitMs = (retryAfter ?? 1) * 1000;
      if (RETRIED.has(response.status) && attempt < this.#maxRetries && waitMs <= this.#maxRetryDelayMs) {
        await sleep(waitMs);
        continue;
      }
      throw errorFor(response.status, body, retryAfter);
    }
  }

  /**
   * A body's chunks, each within `requestTimeoutMs` of the one before: a body that stops coming is
   * a SightlineConnectionError (fetch itself waited 300 s), and a long download that keeps coming
   * is never cut short.
   */
  async *chunks(url: URL, body: ReadableStream<Uint8Array> | null): AsyncGenerator<Uint8Array> {
    if (body === null) return;
    const reader = body.getReader();
    const idleMs = this.#requestTimeoutMs;
    try {
      for (;;) {
        let timer: ReturnType<typeof setTimeout> | undefined;
        const stalled = new Promise<never>((_, reject) => {
          timer = setTimeout(() => reject(new Error(`the answer stopped for ${idleMs} ms`)), idleMs);
        });
        const next = await whileReading(url, () => Promise.race([reader.read(), stalled])).finally(() =>
          clearTimeout(timer),
        );
        if (next.done) return;
        yield next.value;
      }
    } finally {
      // Lets the connection go when the body is left unread (stalled, or the reader stopped).
      await reader.cancel().catch(() => undefined);
      reader.releaseLock();
    }
  }

  /** A body as text (UTF-8), read through `chunks`. */
  async text(url: URL, response: Response): Promise<string> {
    const decoder = new TextDecoder();
    let text = '';
    for await (const chunk of this.chunks(url, response.body))
      text += decoder.decode(chunk, { stream: true });
    return text + decoder.decode();
  }

  /** A JSON answer; a 2xx that is not JSON (a proxy's login page, another service) is a connection error. */
  async json<T>(path: string, query?: Query): Promise<T> {
    const response = await this.send(path, query);
    const text = await this.text(this.url(path, query), response);
    try {
      return JSON.parse(text) as T;
    } catch {
      const type = response.headers.get('content-type') ?? 'no content type';
      throw new SightlineConnectionError(
        this.url(path, query),
        new Error(`answered ${response.status} with ${type.split(';')[0]}, not the Sightline API's JSON`),
      );
    }
  }

  /**
   * The CSV answer of an endpoint (`format=csv`, docs/csv.md), every page of it: a paginated
   * answer's `Link: rel="next"` is followed and each later page's header line dropped, so the
   * result is one document with one header row (column names never hold a line break).
   */
  async csv(path: string, query: Query = {}): Promise<string> {
    let response = await this.send(path, { ...query, format: 'csv' }, 'text/csv');
    let text = await this.text(this.url(path, query), response);
    const seen = this.walk(path, { ...query, format: 'csv' });
    for (let next = nextLink(response); next !== null; next = nextLink(response)) {
      seen(next);
      response = await this.send(next, {}, 'text/csv');
      const page = await this.text(this.#resolve(next), response);
      // The header line dropped, whichever line end it has (a proxy may rewrite CRLF to LF or CR).
      const header = LINE_END.exec(page);
      const rows = header ? page.slice(header.index + header[0].length) : '';
      // A page without its final line end would run its last row into the next page's first.
      if (rows !== '' && !/[\r\n]$/.test(text)) text += LINE_END.exec(text)?.[0] ?? '\r\n';
      text += rows;
    }
    return text;
  }

  /**
   * A guard for a walk over pages that starts at `path`: called with each next link, it throws
   * once a link names a page already read (a proxy rewriting links, a broken server), which would
   * otherwise be followed for ever. Pages are compared by the URL they resolve to.
   */
  walk(path: string, query: Query = {}): (link: string) => void {
    const seen = new Set([this.url(path, query).href]);
    return (link) => {
      const href = this.#resolve(link).href;
      if (seen.has(href)) {
        // As written, but without a user name or password an absolute link may carry.
        const shown = link.replace(/^(https?:\/\/)[^/@]*@/i, '$1');
        throw new SightlineConnectionError(this.baseUrl, new Error(`the pages link back to ${shown}`));
      }
      seen.add(href);
    };
  }

  // Server paths are resolved under the base URL (keeping its path prefix). Absolute links (`next`)
  // are followed as given on the base URL's origin; on another origin (a PUBLIC_BASE_URL that names a
  // different host) only their API path (from `/api/`, past the public address's own prefix) and
  // query are kept, so the key is never sent anywhere else.
  #resolve(link: string): URL {
    if (/^https?:\/\//i.test(link)) {
      const url = new URL(link);
      // A user name or password in a link would only make fetch refuse it, quoting them.
      url.username = '';
      url.password = '';
      if (url.origin === this.baseUrl.origin) return url;
      // The last `/api/`: a public prefix may hold one too (`https://example.com/api/api/brands/`).
      const api = url.pathname.lastIndexOf('/api/');
      return new URL(`.${api > 0 ? url.pathname.slice(api) : url.pathname}${url.search}`, this.baseUrl);
    }
    return new URL(`.${link.startsWith('/') ? link : `/${link}`}`, this.baseUrl);
  }
}

/**
 * Reads an answer's body: a connection lost after the status came (`TypeError: terminated`) is a
 * SightlineConnectionError like one lost before it, not a TypeError of fetch's own.
 */
async function whileReading<T>(url: URL, read: () => Promise<T>): Promise<T> {
  try {
    return await read();
  } catch (error) {
    if (error instanceof Error && error.name === 'AbortError') throw error;
    throw new SightlineConnectionError(url, error);
  }
}

/** Statuses that say "try again shortly": the rate limit, and a database that is briefly unreachable. */
const RETRIED = new Set([429, 503]);

const LINE_END = /\r\n|\r|\n/;

function nextLink(response: Response): string | null {
  return /<([^>]*)>\s*;\s*rel="next"/.exec(response.headers.get('link') ?? '')?.[1] ?? null;
}

/** An error answer's body: its JSON, or the text when it is none (a proxy's page). */
function parsedOrText(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

/** A page envelope as every list endpoint answers it. */
export interface Envelope<T> {
  count: number;
  next: string | null;
  previous: string | null;
  results: T[];
}

type Item<E> = E extends Envelope<infer T> ? T : never;

/**
 * A list: `for await` walks every item across pages by following `next`; `pages()` walks the
 * envelopes (for `count`, or the report list's `permissions`); `page()` fetches only the page the
 * parameters name. Nothing is requested until one of them is used.
 */
export class Pager<E extends Envelope<unknown>> implements AsyncIterable<Item<E>> {
  readonly #transport: Transport;
  readonly #path: string;
  readonly #query: Query;

  constructor(transport: Transport, path: string, query: Query = {}) {
    this.#transport = transport;
    this.#path = path;
    this.#query = query;
  }

  page(): Promise<E> {
    return this.#transport.json<E>(this.#path, { ...this.#query, format: undefined });
  }

  /** Every page from the one the parameters name, as one CSV document with one header row. */
  csv(): Promise<string> {
    return this.#transport.csv(this.#path, this.#query);
  }

  async *pages(): AsyncGenerator<E, void, undefined> {
    let page = await this.page();
    yield page;
    const seen = this.#transport.walk(this.#path, { ...this.#query, format: undefined });
    while (page.next !== null) {
      seen(page.next);
      page = await this.#transport.json<E>(page.next);
      yield page;
    }
  }

  async *[Symbol.asyncIterator](): AsyncGenerator<Item<E>, void, undefined> {
    for await (const page of this.pages()) yield* page.results as Array<Awaited<Item<E>>>;
  }
}

export interface WaitOptions {
  /** Give up after this long (default 5 minutes). */
  timeoutMs?: number;
  /** First pause between polls (default 1 s); it doubles up to `maxIntervalMs` (default 15 s). */
  intervalMs?: number;
  maxIntervalMs?: number;
}

/** Polls `read` until `done` holds, with doubling pauses, never sleeping past the deadline. */
export async function poll<T>(
  read: () => Promise<T>,
  done: (state: T) => boolean,
  options: WaitOptions,
  what: string,
): Promise<T> {
  const timeoutMs = wholeOption('timeoutMs', options.timeoutMs, 300_000, 0);
  // A pause of 0 would poll as fast as the service answers.
  let interval = wholeOption('intervalMs', options.intervalMs, 1000, 1);
  const maxInterval = wholeOption('maxIntervalMs', options.maxIntervalMs, 15_000, 1);
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const state = await read();
    if (done(state)) return state;
    const left = deadline - Date.now();
    if (left <= 0) throw new SightlineTimeoutError(`${what} did not finish within ${timeoutMs} ms`, state);
    await sleep(Math.min(interval, left));
    interval = Math.min(interval * 2, maxInterval);
  }
}
