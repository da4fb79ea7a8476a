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
}

/** At most `limit` units in any 60 seconds; a limit of 0 means none. */
export class MinuteWindow {
  readonly limit: number;
  readonly #clock: Clock;
  #entries: Array<{ at: number; amount: number }> = [];

  constructor(limit: number, clock: Clock = systemClock) {
    this.limit = limit;
    this.#clock = clock;
  }

  async acquire(amount: number, signal?: AbortSignal): Promise<Reservation> {
    if (this.limit === 0) return { settle() {} };
    for (;;) {
      const now = this.#clock.now();
      this.#entries = this.#entries.filter((e) => e.at > now - WINDOW_MS);
      const used = this.#entries.reduce((sum, e) => sum + e.amount, 0);
      // An ask larger than the whole budget still goes, alone, rather than never. Alone: nothing
      // used, since a reservation given back unused (settled to 0) stays in the window.
      if (used + amount <= this.limit || used === 0) {
        const entry = { at: now, amount };
        this.#entries.push(entry);
        return {
          settle(actual) {
            entry.amount = actual;
          },
        };
      }
      const oldest = this.#entries[0] as { at: number };
      await this.#clock.sleep(oldest.at + WINDOW_MS - now, signal);
    }
  }
}
