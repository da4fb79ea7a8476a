// Requests and tokens per minute, per engine. cockatiel bounds concurrency but has no rate
// limiter, and a token budget is not a plain token bucket: what an ask costs is only known after
// it (a web search pulls pages into the input), so an ask reserves an estimate and settles the
// real count when the vendor reports it.

export interface Clock {
  now(): number;
  sleep(ms: number, signal?: AbortSignal): Promise<void>;
}

export const systemClock: Clock = {
  now: () => Date.now(),
  sleep: (ms, signal) =>
    new Promise((resolve, reject) => {
      if (signal?.aborted) return reject(signal.reason);
      const timer = setTimeout(() => {
        signal?.removeEventListener('abort', onAbort);
        resolve();
      }, ms);
      const onAbort = () => {
        clearTimeout(timer);
        reject(signal?.reason);
      };
      signal?.addEventListener('abort', onAbort, { once: true });
    }),
};

const WINDOW_MS = 60_000;

export interface Reservation {
  /** Replaces the reserved amount by what was really used. */
  settle(actual: number): void;
  /**
   * Counts it from `now`, when what it was taken for goes out later (an ask's claim, written
   * between its turn and its request, can wait on the database): counted from when it was taken,
   * it left the window early and let the next request out less than a minute after this one.
   */
  sentAt(now: number): void;
}

const NOTHING: Reservation = { settle() {}, sentAt() {} };

// While a taken reservation is not yet sent (its ask's claim is being written), when it leaves
// the window is unknown: one that blocks is looked at again this often.
const UNSENT_RECHECK_MS = 1_000;

/** At most `limit` units in any 60 seconds; a limit of 0 means none. */
class MinuteWindow {
  readonly limit: number;
  /** `open`: taken and neither sent nor given back, so it stays counted however long ago it was taken. */
  #entries: Array<{ at: number; amount: number; open: boolean }> = [];

  constructor(limit: number) {
    this.limit = limit;
  }

  /** How long from `now` until `amount` fits: 0 when it does now. */
  waitFor(amount: number, now: number): number {
    if (this.limit === 0) return 0;
    this.#entries = this.#entries.filter((e) => e.open || e.at > now - WINDOW_MS);
    let used = 0;
    let leaves = Number.POSITIVE_INFINITY;
    for (const e of this.#entries) {
      used += e.amount;
      leaves = Math.min(leaves, e.open ? now + UNSENT_RECHECK_MS : e.at + WINDOW_MS);
    }
    // An ask larger than the whole budget still goes, alone, rather than never. Alone: nothing
    // used, since a reservation given back unused (settled to 0) stays in the window.
    if (used + amount <= this.limit || used === 0) return 0;
    // The first to leave: not always the first taken, since a reservation is counted again when sent.
    return leaves - now;
  }

  /** Counts `amount` from `now`; only after `waitFor` said 0 at that moment. */
  take(amount: number, now: number): Reservation {
    if (this.limit === 0) return NOTHING;
    const entry = { at: now, amount, open: true };
    this.#entries.push(entry);
    return {
      settle(actual) {
        entry.amount = actual;
        entry.open = false;
      },
      sentAt(moment) {
        entry.at = Math.max(entry.at, moment);
        entry.open = false;
      },
    };
  }
}

/** Resolves when `promise` does, or rejects with the signal's reason once it aborts. */
function unlessAborted(promise: Promise<unknown>, signal: AbortSignal | undefined): Promise<unknown> {
  if (!signal) return promise;
  if (signal.aborted) return Promise.reject(signal.reason);
  let onAbort = () => {};
  const aborted = new Promise((_, reject) => {
    onAbort = () => reject(signal.reason);
    signal.addEventListener('abort', onAbort, { once: true });
  });
  return Promise.race([promise, aborted]).finally(() => signal.removeEventListener('abort', onAbort));
}

/** One engine's requests and tokens per minute. */
export class EngineLimits {
  readonly #clock: Clock;
  readonly #requests: MinuteWindow;
  readonly #tokens: MinuteWindow;
  /** Settles when the last one to ask has taken its slots or given up. */
  #line: Promise<unknown> = Promise.resolve();

  constructor(limits: { requestsPerMinute: number; tokensPerMinute: number }, clock: Clock) {
    this.#clock = clock;
    this.#requests = new MinuteWindow(limits.requestsPerMinute);
    this.#tokens = new MinuteWindow(limits.tokensPerMinute);
  }

  /**
   * A request and `tokens`, taken at one moment once both windows have room, in the order asked
   * for. Taken one after another, a request slot held while the token window was full was counted
   * from when it was taken, not from when the request went out up to a minute later, and let the
   * next requests out early (up to twice the limit around the minute's turn). Taken as each finds
   * room, a large ask waited for good behind smaller ones that kept fitting.
   */
  async take(tokens: number, signal?: AbortSignal): Promise<{ requests: Reservation; tokens: Reservation }> {
    const ahead = this.#line;
    let done = () => {};
    const mine = new Promise<void>((resolve) => {
      done = resolve;
    });
    this.#line = ahead.then(() => mine);
    try {
      // Leaves the line at once when stopped: the ones behind still wait for those ahead.
      await unlessAborted(ahead, signal);
      for (;;) {
        signal?.throwIfAborted();
        const now = this.#clock.now();
        const wait = Math.max(this.#requests.waitFor(1, now), this.#tokens.waitFor(tokens, now));
        if (wait <= 0)
          return { requests: this.#requests.take(1, now), tokens: this.#tokens.take(tokens, now) };
        await this.#clock.sleep(wait, signal);
      }
    } finally {
      done();
    }
  }

  /**
   * A request sent now without waiting for room (a continuation of an ask in flight): counted, so
   * the requests after it wait for it to leave the window.
   */
  sendNow(): void {
    const now = this.#clock.now();
    this.#requests.take(1, now).sentAt(now);
  }
}
