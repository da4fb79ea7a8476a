// "Failure is normal": each engine asks through its own policies, so one vendor's outage or rate
// limit never holds up another's. Per attempt, innermost first: a timeout (which aborts the HTTP
// request), the requests- and tokens-per-minute windows, a concurrency bulkhead, a circuit breaker;
// around them all, retries with exponential backoff and jitter that wait at least as long as the
// vendor's Retry-After. The SDKs' own retries are off (maxRetries: 0) so this is the only policy.
import {
  BrokenCircuitError,
  bulkhead as bulkheadPolicy,
  ConsecutiveBreaker,
  circuitBreaker,
  decorrelatedJitterGenerator,
  ExponentialBackoff,
  handleWhen,
  type IBackoff,
  type IBackoffFactory,
  type IPolicy,
  type IRetryBackoffContext,
  retry,
  TimeoutStrategy,
  timeout,
  wrap,
} from 'cockatiel';
import type { EngineConfig } from '../../config.ts';
import { describeFailure, MalformedReply, redact } from './errors.ts';
import type { EngineMetrics } from './metrics.ts';
import { estimateCostUsd } from './pricing.ts';
import { type Clock, EngineLimits, type Reservation, systemClock } from './rate-limit.ts';
import {
  type AskRequest,
  type AskResult,
  type Engine,
  type EngineAdapter,
  NO_TURN,
  type Turn,
  type VendorReply,
} from './types.ts';

/** The part of a pino logger this uses. */
export interface EngineLogger {
  warn(fields: Record<string, unknown>, message: string): void;
}

export interface ResilienceOptions {
  /** Attempts per ask, the first included. */
  maxAttempts: number;
  /** Consecutive failed attempts that open the circuit. */
  breakerFailures: number;
  breakerCooldownMs: number;
  /** Exponential backoff between attempts (tests make these small). */
  backoff?: { initialDelayMs: number; maxDelayMs: number };
  /** A vendor asking for a longer wait than this ends the ask instead. */
  maxRetryAfterMs?: number;
  /** Paces the limits and times the asks (the demo seed passes a stopped one: its latencies are 0). */
  clock?: Clock;
  logger?: EngineLogger;
  metrics?: EngineMetrics;
}

// Output of a web-search answer rarely passes this; the real count replaces it afterwards.
const OUTPUT_TOKENS_RESERVED = 2_000;

/** About four characters a token, for the estimate the real count replaces. */
const tokenEstimate = (prompt: string) => Math.ceil(prompt.length / 4) + OUTPUT_TOKENS_RESERVED;

/** Waits the exponential step or the vendor's Retry-After, whichever is longer. */
class RetryAfterBackoff implements IBackoffFactory<IRetryBackoffContext<unknown>> {
  readonly #steps: IBackoffFactory<unknown>;
  readonly #retryAfter: (error: unknown) => number | undefined;

  constructor(steps: IBackoffFactory<unknown>, retryAfter: (error: unknown) => number | undefined) {
    this.#steps = steps;
    this.#retryAfter = retryAfter;
  }

  next(context: IRetryBackoffContext<unknown>): IBackoff<IRetryBackoffContext<unknown>> {
    const step = this.#steps.next(context);
    const hinted = 'error' in context.result ? this.#retryAfter(context.result.error) : undefined;
    const following = new RetryAfterBackoff(step, this.#retryAfter);
    return { duration: Math.max(step.duration, hinted ?? 0), next: (c) => following.next(c) };
  }
}

/**
 * A count (tokens, searches) as a vendor reported it, if it is one: a whole number from 0 to
 * 2^31 − 1, else 0 (unknown). JSON's `1e400` reads as Infinity, which filled the engine's token
 * window for a minute and was stored as `Inf`; a negative or fractional count was stored as it
 * came, and one over an integer column's range failed the store at every attempt on PostgreSQL.
 */
function vendorCount(reported: number): number {
  return Number.isSafeInteger(reported) && reported >= 0 && reported <= 2_147_483_647 ? reported : 0;
}

export class ResilientEngine implements Engine {
  readonly name: EngineConfig['name'];
  readonly model: string;
  readonly turns: number;
  readonly #adapter: EngineAdapter;
  readonly #config: EngineConfig;
  readonly #options: ResilienceOptions;
  readonly #policy: IPolicy;
  readonly #turns: IPolicy;
  readonly #timeout: IPolicy;
  readonly #limits: EngineLimits;
  readonly #clock: Clock;

  constructor(adapter: EngineAdapter, config: EngineConfig, options: ResilienceOptions) {
    this.name = adapter.name;
    this.model = adapter.model;
    this.turns = config.limits.concurrency;
    this.#adapter = adapter;
    this.#config = config;
    this.#options = options;
    const clock = options.clock ?? systemClock;
    this.#clock = clock;
    this.#limits = new EngineLimits(config.limits, clock);

    const timeoutMs = config.limits.timeoutMs;
    const maxRetryAfterMs = options.maxRetryAfterMs ?? 60_000;
    const failure = (error: unknown) => describeFailure(error, timeoutMs);
    const retryable = handleWhen((error) => {
      const f = failure(error);
      return f.transient && (f.retryAfterMs ?? 0) <= maxRetryAfterMs;
    });
    const steps = new ExponentialBackoff({
      generator: decorrelatedJitterGenerator,
      initialDelay: options.backoff?.initialDelayMs ?? 500,
      maxDelay: options.backoff?.maxDelayMs ?? 30_000,
    });
    const retries = retry(retryable, {
      maxAttempts: options.maxAttempts - 1,
      backoff: new RetryAfterBackoff(steps, (error) => failure(error).retryAfterMs),
    });
    retries.onRetry((event) => {
      const reason = 'error' in event ? failure(event.error).message : 'unexpected result';
      options.logger?.warn(
        {
          engine: this.name,
          attempt: event.attempt,
          delayMs: Math.round(event.delay),
          reason: this.#safe(reason),
        },
        'engine ask failed; retrying',
      );
    });
    const breaker = circuitBreaker(
      handleWhen((error) => failure(error).transient),
      { halfOpenAfter: options.breakerCooldownMs, breaker: new ConsecutiveBreaker(options.breakerFailures) },
    );
    breaker.onBreak(() =>
      options.logger?.warn(
        { engine: this.name, cooldownMs: options.breakerCooldownMs },
        'engine circuit open: asks fail at once until it cools down',
      ),
    );
    // The queue is unbounded: callers wait their turn rather than being refused.
    const concurrency = bulkheadPolicy(config.limits.concurrency, Number.MAX_SAFE_INTEGER);
    this.#policy = wrap(retries, breaker, concurrency);
    this.#turns = bulkheadPolicy(config.limits.concurrency, Number.MAX_SAFE_INTEGER);
    this.#timeout = timeout(timeoutMs, TimeoutStrategy.Aggressive);
  }

  inTurn<T>(prompt: string, work: (turn: Turn) => Promise<T>): Promise<T>;
  inTurn<T>(
    prompt: string,
    work: (turn: Turn) => Promise<T>,
    signal: AbortSignal | undefined,
  ): Promise<T | typeof NO_TURN>;
  async inTurn<T>(
    prompt: string,
    work: (turn: Turn) => Promise<T>,
    signal?: AbortSignal,
  ): Promise<T | typeof NO_TURN> {
    // The signal is read inside, not handed to the bulkhead: cockatiel 3 rejects a queued task
    // whose signal was aborted without starting the next, so the ones behind it waited for good.
    return this.#turns.execute(async () => {
      if (signal?.aborted) return NO_TURN;
      let turn: Turn;
      try {
        turn = { slots: await this.#slots(prompt, signal) };
      } catch (error) {
        if (signal?.aborted) return NO_TURN;
        throw error;
      }
      try {
        return await work(turn);
      } finally {
        // Given back when the work sent nothing on them (its ask was taken elsewhere, or over budget).
        turn.slots?.requests.settle(0);
        turn.slots?.tokens.settle(0);
      }
    });
  }

  async ask(request: AskRequest, options: { signal?: AbortSignal; turn?: Turn } = {}): Promise<AskResult> {
    const started = this.#clock.now();
    // Whether an attempt got past the breaker: an ask the open circuit refused before any did was
    // never sent, and may be handed back uncounted; one whose retry met it was sent, and paid for.
    let attempted = false;
    // The last attempt's own failure: an ask whose retry met the open circuit ended on the
    // vendor's error (a 500, a timeout), which "circuit open" hid.
    let lastFailure: unknown;
    let result: AskResult;
    try {
      const reply = await this.#policy.execute(async ({ signal }) => {
        attempted = true;
        try {
          return await this.#attempt(request, signal, options.turn);
        } catch (error) {
          lastFailure = error;
          throw error;
        }
      }, options.signal);
      result = this.#result(reply, started);
    } catch (error) {
      const ending = error instanceof BrokenCircuitError && attempted ? lastFailure : error;
      const failure = describeFailure(ending, this.#config.limits.timeoutMs);
      result = {
        engine: this.name,
        outcome: 'error',
        text: '',
        sources: [],
        vendorModel: null,
        latencyMs: Math.round(this.#clock.now() - started),
        usage: { inputTokens: 0, outputTokens: 0 },
        estimatedCostUsd: null,
        error: this.#safe(failure.message),
        ...(error instanceof BrokenCircuitError && !attempted
          ? { retryInMs: this.#options.breakerCooldownMs }
          : {}),
      };
    }
    this.#options.metrics?.observe(result);
    return result;
  }

  async #attempt(request: AskRequest, signal: AbortSignal, turn: Turn | undefined): Promise<VendorReply> {
    // The first request of an ask made in a turn goes out on the turn's slots; a retry takes its own.
    const slots = turn?.slots;
    if (turn) turn.slots = undefined;
    const { requests, tokens } = slots ?? (await this.#slots(request.prompt, signal));
    const now = this.#clock.now();
    requests.sentAt(now);
    tokens.sentAt(now);
    const reply = await this.#timeout.execute(
      ({ signal: attempt }) => this.#adapter.call(request, attempt, () => this.#limits.sendNow()),
      signal,
    );
    // Read by hand from a parsed body the SDK does not check: a text that is no text was a
    // TypeError further on (an "unexpected failure", not retried), and a model name that is no
    // text failed the store.
    if (typeof reply.text !== 'string') throw new MalformedReply();
    if (reply.vendorModel !== null && typeof reply.vendorModel !== 'string') reply.vendorModel = null;
    const usage = {
      inputTokens: vendorCount(reply.usage.inputTokens),
      outputTokens: vendorCount(reply.usage.outputTokens),
    };
    tokens.settle(usage.inputTokens + usage.outputTokens);
    // Priced per search: a count that is none (1e400, -7) made the cost Infinity or negative.
    return { ...reply, usage, webSearches: vendorCount(reply.webSearches) };
  }

  /** A request and the prompt's token estimate (`EngineLimits.take`). */
  #slots(prompt: string, signal?: AbortSignal): Promise<{ requests: Reservation; tokens: Reservation }> {
    return this.#limits.take(tokenEstimate(prompt), signal);
  }

  #result(reply: VendorReply, started: number): AskResult {
    const text = reply.text.trim();
    const outcome = reply.kind === 'declined' ? 'no_result' : text === '' ? 'empty' : 'answered';
    return {
      engine: this.name,
      outcome,
      text,
      sources: reply.sources,
      vendorModel: reply.vendorModel,
      latencyMs: Math.round(this.#clock.now() - started),
      usage: reply.usage,
      estimatedCostUsd: estimateCostUsd(
        this.name,
        [reply.vendorModel, this.model],
        reply.usage,
        reply.webSearches,
      ),
    };
  }

  #safe(message: string): string {
    return redact(message, this.#config.apiKey ? [this.#config.apiKey] : []);
  }
}
