// The one interface every answer engine is used through. An adapter speaks one vendor's API and
// says what the vendor answered; `ResilientEngine` (resilience.ts) wraps it with the limits,
// retries, timeout and circuit breaker, and turns every ending, failures included, into an
// `AskResult`.
import type { EngineName } from '../../config.ts';
import type { Reservation } from './rate-limit.ts';

export type { EngineName };

export interface AskContext {
  brandName?: string;
  competitorNames?: readonly string[];
}

/**
 * Asking for a recommendation's artifact instead of an answer. The prompt already says everything
 * a vendor needs; this repeats the essentials for the simulated engine, which reads no prompts.
 */
export interface DraftContext {
  artifactType: 'content_brief' | 'outreach_note';
  brandName: string;
  /** The question a content brief answers, or the domain an outreach note goes to. */
  subject: string;
  competitorNames: readonly string[];
}

export interface AskRequest {
  /** The user's own question (or a generation prompt), sent to the vendor as it is. */
  prompt: string;
  /**
   * Read only by the simulated engine, which has to know whom to mention. A real vendor never sees
   * it: which brand an organization monitors is that organization's business.
   */
  context?: AskContext;
  /** Simulated engine: the same prompt and seed give the same answer. */
  seed?: string;
  /** Read only by the simulated engine: write this draft rather than an answer. */
  draft?: DraftContext;
}

/**
 * `no_result`: the engine declined or showed no answer (a refusal, a safety block); `empty`: it
 * answered with no text. Neither is "the brand was not mentioned", which only an answer can say.
 */
export type AskOutcome = 'answered' | 'empty' | 'no_result' | 'error';

export interface Source {
  url: string;
  /** As the vendor gives it; null when it gives none (Perplexity's bare `citations`). */
  title: string | null;
}

export interface Usage {
  inputTokens: number;
  outputTokens: number;
}

export interface AskResult {
  engine: EngineName;
  outcome: AskOutcome;
  text: string;
  /** The sources the vendor itself attributes to the answer, first mention first, no repeats. */
  sources: Source[];
  /** The model as the vendor reports it (often a dated version of the configured one). */
  vendorModel: string | null;
  latencyMs: number;
  usage: Usage;
  /** From the price table in pricing.ts; null for a model it does not list. An estimate only. */
  estimatedCostUsd: number | null;
  /** Why an ask ended in `error`: short, and never a key or the vendor's own wording. */
  error?: string;
  /**
   * Set when the engine's circuit was open, so the ask got no answer because of earlier asks'
   * failures: in how many ms the circuit lets an ask through again. Asking it then may succeed.
   */
  retryInMs?: number;
}

/** What `inTurn` returns when its signal stopped the wait before a turn came. */
export const NO_TURN = Symbol('no turn: the wait was stopped');

/** A turn at an engine: the first request an ask sends in it goes out on the slots the turn took. */
export interface Turn {
  slots: { requests: Reservation; tokens: Reservation } | undefined;
}

export interface Engine {
  readonly name: EngineName;
  readonly model: string;
  /** How many asks this process has at the engine at once (its concurrency): more wait in its line. */
  readonly turns: number;
  /** Never rejects: a failure is a result with outcome `error`. */
  ask(request: AskRequest, options?: { signal?: AbortSignal; turn?: Turn }): Promise<AskResult>;
  /**
   * Runs `work` holding one of this process's turns at the engine (as many as its concurrency)
   * and what a request of `prompt` takes of its requests- and tokens-per-minute windows, on which
   * the ask `work` makes with the turn sends its first request: an ask claimed (and counted)
   * inside is sent at once, not queued behind the engine while a killed process would leave it
   * counted and unsent. NO_TURN, without running `work`, when `signal` stops the wait first.
   */
  inTurn<T>(prompt: string, work: (turn: Turn) => Promise<T>): Promise<T>;
  inTurn<T>(
    prompt: string,
    work: (turn: Turn) => Promise<T>,
    signal: AbortSignal | undefined,
  ): Promise<T | typeof NO_TURN>;
}

/** What a vendor said, before the wrapper adds timing, cost and outcome. */
export interface VendorReply {
  /** `declined`: a refusal or a block, whatever text came with it. */
  kind: 'answer' | 'declined';
  text: string;
  sources: Source[];
  vendorModel: string | null;
  usage: Usage;
  /** Web searches the vendor reports having run for this answer (some price per search). */
  webSearches: number;
}

export interface EngineAdapter {
  readonly name: EngineName;
  readonly model: string;
  /**
   * Rejects on any failure; `signal` aborts the HTTP request (timeout, caller gave up). An ask that
   * sends a further request (Claude's continuation of a paused turn) calls `nextRequest` before
   * each: the engine's requests-per-minute window counts it, without making it wait (a wait there
   * counted against the attempt's timeout, and a timed-out attempt paid its searches again).
   */
  call(request: AskRequest, signal: AbortSignal, nextRequest: () => void): Promise<VendorReply>;
}

/** Sources in order of first appearance, each URL once; a later title fills a missing one. */
/**
 * The vendor's client, built on first use. Loading a vendor SDK costs a few hundred milliseconds
 * of start-up, which only a process that asks that vendor should pay (every CLI command builds
 * the configured engines).
 */
export function onFirstUse<T>(build: () => Promise<T>): () => Promise<T> {
  let client: Promise<T> | undefined;
  return () => {
    client ??= build();
    return client;
  };
}

export function uniqueSources(sources: Iterable<Source>): Source[] {
  const byUrl = new Map<string, Source>();
  for (const source of sources) {
    // A citation whose link is not a text (a vendor's malformed annotation) names no page.
    if (typeof source.url !== 'string' || source.url === '') continue;
    const title = typeof source.title === 'string' && source.title !== '' ? source.title : null;
    const seen = byUrl.get(source.url);
    if (seen === undefined) byUrl.set(source.url, { url: source.url, title });
    else if (seen.title === null && title) seen.title = title;
  }
  return [...byUrl.values()];
}
